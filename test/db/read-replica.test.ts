import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { migrate } from "../../lib/db/migrate";
import { replicaPairPossible, startReplicaPair, type ReplicaPair } from "../helpers/replica-cluster";
import { testWorker, waitFor } from "../helpers/worker";
import type { TestDb } from "../helpers/db";
import type { Worker } from "../../worker/loop";

// DATABASE_READ_URL against a real streaming replica: two clusters of this machine's PostgreSQL,
// the second fed by pg_basebackup and streaming replication. The replica is held back on purpose
// (recovery_min_apply_delay) to show what a reader there would see, and that a caller who just
// wrote never sees it.
const TOKEN = "test-bootstrap-token-replica-0123456789";
const DELAY_MS = 4000;
let pair: ReplicaPair;
let primary: pg.Pool;
let replica: pg.Pool;
let worker: Worker | undefined;
let routes: {
  publish: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
  doc: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/route");
  search: typeof import("../../app/api/v1/tenants/[tenant]/search/route");
  overview: typeof import("../../app/api/v1/overview/route");
  tokens: typeof import("../../app/api/v1/admin/tokens/route");
  metrics: typeof import("../../app/api/metrics/route");
};

const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });
const req = (method: string, body?: unknown, token = TOKEN, headers: Record<string, string> = {}) =>
  new Request("http://localhost/x", {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const doc = (title: string, content: string) => ({ title, contentType: "text/markdown", content });

async function replicaHas(key: string): Promise<boolean> {
  const { rows } = await replica.query("SELECT 1 FROM documents WHERE tenant_id = 'acme' AND key = $1", [key]);
  return rows.length > 0;
}

const possible = replicaPairPossible();

describe.skipIf(!possible)("read replica (DATABASE_READ_URL)", () => {
  beforeAll(async () => {
    pair = await startReplicaPair();
    await migrate(pair.primaryUrl, { log: () => undefined });
    primary = new pg.Pool({ connectionString: pair.primaryUrl, max: 4 });
    replica = new pg.Pool({ connectionString: pair.replicaUrl, max: 2 });
    primary.on("error", () => undefined);
    replica.on("error", () => undefined);
    await pair.caughtUp();
    Object.assign(process.env, {
      DATABASE_URL: pair.primaryUrl,
      DATABASE_READ_URL: pair.replicaUrl,
      INDEXWRIGHT_BOOTSTRAP_TOKEN: TOKEN,
      LOG_LEVEL: "silent",
      REPLICA_MAX_LAG_SECONDS: "60",
      READ_YOUR_WRITES_WAIT_MS: "100",
    });
    routes = {
      publish: await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route"),
      doc: await import("../../app/api/v1/tenants/[tenant]/documents/[key]/route"),
      search: await import("../../app/api/v1/tenants/[tenant]/search/route"),
      overview: await import("../../app/api/v1/overview/route"),
      tokens: await import("../../app/api/v1/admin/tokens/route"),
      metrics: await import("../../app/api/metrics/route"),
    };
  }, 120_000);

  afterAll(async () => {
    await worker?.stop(5000);
    const { closePools } = await import("../../lib/db/pool");
    await closePools();
    await primary?.end().catch(() => undefined);
    await replica?.end().catch(() => undefined);
    delete process.env.DATABASE_READ_URL;
    pair?.drop();
  }, 60_000);

  it("the caller who published reads its new document at once, while the replica still lacks it", async () => {
    // Another reader first, so the next one is a separate caller (no cookie, no remembered write).
    const minted = await routes.tokens.POST(
      req("POST", { name: "dash-viewer", role: "viewer", tenants: ["*"] }),
      ctx({}),
    );
    expect(minted.status).toBe(201);
    const viewer = (await minted.json()).token as string;
    await pair.caughtUp();
    await pair.setApplyDelay(DELAY_MS);

    const published = await routes.publish.POST(
      req("POST", doc("Leave policy", "Employees accrue two days of leave per month.")),
      ctx({ tenant: "acme", key: "leave" }),
    );
    expect(published.status).toBe(202);
    const lsn = published.headers.get("indexwright-lsn");
    expect(lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(published.headers.get("set-cookie")).toContain(`iw_lsn=${encodeURIComponent(lsn!)}`);
    // The replica is behind: a plain read there finds nothing yet.
    expect(await replicaHas("leave")).toBe(false);

    // The publisher (the same token, no header: this process remembers its write).
    const mine = await routes.doc.GET(req("GET"), ctx({ tenant: "acme", key: "leave" }));
    expect(mine.status).toBe(200);
    expect(mine.headers.get("indexwright-read-from")).toBe("primary");
    expect(await mine.json()).toMatchObject({ key: "leave", businessVersion: 1 });

    // Another caller reads the replica: the replica's view, within the bounded staleness.
    const theirs = await routes.doc.GET(req("GET", undefined, viewer), ctx({ tenant: "acme", key: "leave" }));
    expect(theirs.headers.get("indexwright-read-from")).toBe("replica");
    expect(theirs.status).toBe(404);

    // The same caller passing the position on (a browser's cookie, an API client's header) reads its write.
    const carried: Record<string, string>[] = [
      { cookie: `iw_lsn=${encodeURIComponent(lsn!)}` },
      { "indexwright-min-lsn": lsn! },
    ];
    for (const headers of carried) {
      const r = await routes.doc.GET(req("GET", undefined, viewer, headers), ctx({ tenant: "acme", key: "leave" }));
      expect(r.status).toBe(200);
      expect(r.headers.get("indexwright-read-from")).toBe("primary");
    }

    // The dashboard shows how far behind the replica is: at least the time since the write it lacks.
    await new Promise((r) => setTimeout(r, 1200));
    const o = await routes.overview.GET(req("GET", undefined, viewer), ctx({}));
    const reads = (await o.json()).reads;
    expect(reads).toMatchObject({ configured: true, servingReads: "replica", answeredFrom: "replica" });
    expect(reads.lagSeconds).toBeGreaterThan(1);
    expect(reads.lagSeconds).toBeLessThan(DELAY_MS / 1000 + 2);
    expect(reads.lagBytes).toBeGreaterThan(0);

    // Once the delay has passed, the other caller sees it too.
    await waitFor(async () => replicaHas("leave"), 15_000);
    const later = await routes.doc.GET(req("GET", undefined, viewer), ctx({ tenant: "acme", key: "leave" }));
    expect(later.status).toBe(200);
  }, 60_000);

  it("with the replica close behind, the caller's read waits for it and is served there", async () => {
    await pair.setApplyDelay(0);
    await pair.caughtUp();
    process.env.READ_YOUR_WRITES_WAIT_MS = "5000";
    try {
      const published = await routes.publish.POST(
        req("POST", doc("Leave policy", "Employees accrue three days of leave per month.")),
        ctx({ tenant: "acme", key: "leave" }),
      );
      expect(published.status).toBe(202);
      const r = await routes.doc.GET(req("GET"), ctx({ tenant: "acme", key: "leave" }));
      expect(r.headers.get("indexwright-read-from")).toBe("replica");
      expect(await r.json()).toMatchObject({ businessVersion: 2 });
    } finally {
      process.env.READ_YOUR_WRITES_WAIT_MS = "100";
    }
  }, 30_000);

  it("search answers from the replica once the document is SEARCHABLE there", async () => {
    const t: TestDb = { url: pair.primaryUrl, pool: primary, real: true, close: async () => undefined };
    worker = testWorker(t, "replica-worker");
    await worker.start();
    await waitFor(async () => {
      const r = await routes.doc.GET(req("GET"), ctx({ tenant: "acme", key: "leave" }));
      const d = await r.json();
      return d.state === "SEARCHABLE" && d.searchVersion === 2;
    });
    await pair.caughtUp();
    const s = await routes.search.POST(req("POST", { query: "days of leave per month" }), ctx({ tenant: "acme" }));
    expect(s.status).toBe(200);
    expect(s.headers.get("indexwright-read-from")).toBe("replica");
    const { hits } = await s.json();
    expect(hits[0]).toMatchObject({ documentKey: "leave", versionNumber: 2 });
  }, 60_000);

  it("reads move to the primary, with the reason shown, when the replica is too far behind or down", async () => {
    const { resetReplicaState } = await import("../../lib/db/replica");
    process.env.REPLICA_MAX_LAG_SECONDS = "1";
    try {
      await pair.setApplyDelay(DELAY_MS);
      resetReplicaState();
      await routes.overview.GET(req("GET"), ctx({})); // a first sample of the primary's position
      await routes.publish.POST(
        req("POST", doc("Travel", "Book trains for trips under four hours.")),
        ctx({ tenant: "acme", key: "travel" }),
      );
      await new Promise((r) => setTimeout(r, 1700));
      const o = await (await routes.overview.GET(req("GET"), ctx({}))).json();
      expect(o.reads).toMatchObject({ configured: true, servingReads: "primary" });
      expect(o.reads.reason).toMatch(/more than 1 s behind/);
      const m = await (await routes.metrics.GET(req("GET"), ctx({}))).text();
      expect(m).toMatch(/^indexwright_read_replica_serving 0$/m);
      expect(m).toMatch(/^indexwright_read_replica_lag_seconds [1-9]/m);

      await pair.setApplyDelay(0);
      pair.stopReplica();
      resetReplicaState();
      const down = await routes.doc.GET(req("GET"), ctx({ tenant: "acme", key: "travel" }));
      expect(down.status).toBe(200);
      expect(down.headers.get("indexwright-read-from")).toBe("primary");
      const od = await (await routes.overview.GET(req("GET"), ctx({}))).json();
      expect(od.reads.servingReads).toBe("primary");
      expect(od.reads.reason).toMatch(/did not answer/);
    } finally {
      process.env.REPLICA_MAX_LAG_SECONDS = "60";
    }
  }, 60_000);
});
