import { describe, expect, it } from "vitest";
import { unpinForecast } from "../../lib/ui/pin";
import { rollbackCandidates } from "../../components/documents/DocumentActions";
import { documentDetailSchema, type DocumentDetail } from "../../lib/ui/schemas";

const iv = (versionNumber: number, status: string, model = "m-1", dims = 384, spaceId?: number) => ({
  id: `${versionNumber}-${status}-${model}-${spaceId}`,
  versionNumber,
  status,
  embeddingModel: model,
  embeddingDimensions: dims,
  spaceId,
  chunkCount: 3,
  createdAt: "2026-11-30T10:00:00.000Z",
});
const task = (taskId: string, versionNumber: number, status: string, taskType = "INDEX") => ({
  taskId,
  versionNumber,
  taskType,
  status,
  attempts: 1,
  maxAttempts: 3,
  createdAt: "2026-11-30T10:00:00.000Z",
  updatedAt: "2026-11-30T10:00:00.000Z",
});

/** A v1-pinned document whose latest version is v2, parsed the way the dashboard parses the API. */
function pinnedDoc(
  indexVersions: unknown[],
  tasks: unknown[] = [],
  embeddingSpace?: { id?: number; name?: string; model: string; dimensions: number },
): DocumentDetail {
  return documentDetailSchema.parse({
    tenant: "t",
    key: "k",
    title: "K",
    state: "SEARCHABLE",
    businessVersion: 2,
    searchVersion: 1,
    pinned: true,
    pinnedBy: "ops",
    pinnedReason: "wrong figures",
    indexVersions,
    tasks,
    embeddingSpace,
  });
}

describe("unpin forecast", () => {
  it("the detail schema carries the pin, and an older API answer without it reads as not pinned", () => {
    expect(pinnedDoc([])).toMatchObject({ pinned: true, pinnedBy: "ops", pinnedReason: "wrong figures" });
    const old = documentDetailSchema.parse({
      tenant: "t",
      key: "k",
      state: "SEARCHABLE",
      businessVersion: 1,
      searchVersion: 1,
    });
    expect(old).toMatchObject({ pinned: false, pinnedBy: null, pinnedReason: null });
  });

  it("returns to the latest version when a complete index of it exists in the serving space", () => {
    expect(unpinForecast(pinnedDoc([iv(2, "RETIRED"), iv(1, "ACTIVE")]))).toEqual({ kind: "returns", version: 2 });
    // Built while pinned: left READY for the unpin.
    expect(unpinForecast(pinnedDoc([iv(2, "READY"), iv(1, "ACTIVE")]))).toEqual({ kind: "returns", version: 2 });
  });

  it("judges by the space the server searches in, not the pinned version's: after a model change nothing of the old model is returned to", () => {
    // v1 pinned and v2 built under m-1; the server now searches m-2.
    const doc = {
      ...pinnedDoc([iv(2, "READY"), iv(1, "ACTIVE")], [task("5", 2, "SUCCEEDED")], { model: "m-2", dimensions: 384 }),
      searchVersionServed: false,
    };
    // The pinned v1 is of the old model too: it serves nothing meanwhile.
    expect(unpinForecast(doc)).toMatchObject({ kind: "waits", version: 2, serving: null });
    // Nor is it offered for a rollback: the server would refuse it (ROLLBACK_INCOMPATIBLE).
    expect(rollbackCandidates(doc)).toEqual([]);
    expect(
      rollbackCandidates({ ...doc, embeddingSpace: { id: null, name: null, model: "m-1", dimensions: 384 } }).map(
        (c) => c.versionNumber,
      ),
    ).toEqual([2]);
    expect(
      unpinForecast(pinnedDoc([iv(2, "READY", "m-2"), iv(1, "ACTIVE")], [], { model: "m-2", dimensions: 384 })),
    ).toEqual({ kind: "returns", version: 2 });
  });

  it("judges by the space's id where the API names it: a version of the same model and dimensions in another space (chunked otherwise) is no target", () => {
    const space = { id: 7, name: "m-1-rechunked", model: "m-1", dimensions: 384 };
    const doc = pinnedDoc(
      [iv(3, "RETIRED", "m-1", 384, 6), iv(2, "READY", "m-1", 384, 6), iv(1, "ACTIVE", "m-1", 384, 7)],
      [],
      space,
    );
    expect(unpinForecast(doc)).toMatchObject({ kind: "waits", version: 2 });
    expect(rollbackCandidates(doc)).toEqual([]);
    const built = pinnedDoc(
      [iv(2, "READY", "m-1", 384, 7), iv(2, "RETIRED", "m-1", 384, 6), iv(1, "ACTIVE", "m-1", 384, 7)],
      [],
      space,
    );
    expect(unpinForecast(built)).toEqual({ kind: "returns", version: 2 });
    // Of the two complete v2 indexes, only the active space's is offered.
    expect(rollbackCandidates({ ...built, searchVersion: 3 }).map((c) => [c.versionNumber, c.iv.spaceId])).toEqual([
      [2, 7],
    ]);
  });

  it("waits for the task that builds the latest version when it has no usable complete index", () => {
    const building = pinnedDoc(
      [iv(2, "BUILDING"), iv(1, "ACTIVE")],
      [task("9", 2, "RUNNING", "REINDEX"), task("5", 2, "SUCCEEDED")],
    );
    expect(unpinForecast(building)).toMatchObject({
      kind: "waits",
      version: 2,
      serving: 1,
      task: { taskId: "9", status: "RUNNING" },
    });
    // A v2 index built with another embedding model could not serve the current queries.
    expect(unpinForecast(pinnedDoc([iv(2, "RETIRED", "m-0"), iv(1, "ACTIVE")]))).toMatchObject({
      kind: "waits",
      serving: 1,
      task: null,
    });
  });
});
