import { describe, expect, it } from "vitest";
import { fleetIssues } from "../../components/overview/OverviewView";
import { overviewSchema } from "../../lib/ui/schemas";

const base = {
  generatedAt: "2026-12-01T00:00:00Z",
  scope: "fleet",
  queue: {
    due: 0,
    oldestDueAgeSeconds: null,
    waitingForRetry: 0,
    running: 0,
    leasesExpiringSoon: 0,
    leasesExpired: 0,
    dead: 0,
  },
  errors: [],
  drift: { count: 0, acknowledged: 0, oldestAgeSeconds: null },
  publishToSearchableSeconds: { p50: null, p95: null, p99: null, samples: 0 },
  perTask: { chunks: null, embeddingBatches: null },
  embeddingReuseRate: null,
  workers: [
    {
      id: "w",
      host: "h",
      pid: 1,
      concurrency: 2,
      startedAt: "2026-12-01T00:00:00Z",
      lastHeartbeatAt: "2026-12-01T00:00:00Z",
      currentTasks: [],
    },
  ],
  history: [],
  reconciler: null,
};

describe("overview findings", () => {
  it("documents served from another embedding space are flagged as invisible to search, linked to the list of them", () => {
    const o = overviewSchema.parse({
      ...base,
      otherEmbeddingSpace: { count: 3, model: "text-embedding-3-small", dimensions: 1536 },
    });
    expect(fleetIssues(o)).toEqual([
      {
        tone: "danger",
        text: "3 documents are invisible to search: built with another embedding model (search uses text-embedding-3-small, 1536 dimensions). They need a rebuild; the reconciler queues it.",
        href: "/documents?state=NOT_INDEXED",
      },
    ]);
  });

  it("none of them, or an answer from a server that does not count them: no finding", () => {
    expect(
      fleetIssues(overviewSchema.parse({ ...base, otherEmbeddingSpace: { count: 0, model: "m", dimensions: 3 } })),
    ).toEqual([]);
    expect(fleetIssues(overviewSchema.parse(base))).toEqual([]);
  });
});
