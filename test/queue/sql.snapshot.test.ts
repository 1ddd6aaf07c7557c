import { describe, expect, it } from "vitest";
import * as sql from "../../lib/queue/sql";

// Every hot-path statement rendered with fixed arguments: any SQL change is a snapshot diff.
describe("hot-path SQL", () => {
  it("renders every statement", () => {
    const rendered = {
      claimTasks: {
        takeOver: sql.claimTasks("worker-a", 60, 4),
        dueOnly: sql.claimTasks("worker-a", 60, 4, { takeOver: false }),
      },
      claimMigrationTasks: sql.claimMigrationTasks("worker-a", 60, 8),
      renewLease: sql.renewLease("42", "worker-a", 3, 60, 5, 10),
      recordRenewLost: sql.recordRenewLost("42", "acme", "worker-a", 3),
      lockDocument: sql.lockDocument("doc-id"),
      failTask: sql.failTask("42", "worker-a", 3, "RETRY_WAIT", 4.2, "EMBEDDING_TIMEOUT", "timed out"),
      releaseTask: sql.releaseTask("42", "worker-a", 3),
      notifyTasks: sql.notifyTasks(),
      dropSearchPointer: sql.dropSearchPointer("doc-id"),
      retireDocumentIndexVersions: sql.retireDocumentIndexVersions("doc-id"),
      leasesHeld: sql.leasesHeld("worker-a", [
        { taskId: "42", leaseAttempt: 3 },
        { taskId: "43", leaseAttempt: 1 },
      ]),
      lockDocuments: sql.lockDocuments(["doc-a", "doc-b"]),
      lockHeldTasks: sql.lockHeldTasks("worker-a", [
        { taskId: "42", leaseAttempt: 3 },
        { taskId: "43", leaseAttempt: 1 },
      ]),
      supersedeHeldTasks: sql.supersedeHeldTasks("worker-a", [
        { taskId: "42", leaseAttempt: 3, reason: "document deleted", businessVersion: 6 },
      ]),
      completeTasks: sql.completeTasks("worker-a", [
        { taskId: "42", leaseAttempt: 3, stats: { chunksTotal: 10, chunksReused: 7, batchesSent: 1 } },
      ]),
      moveSearchPointers: sql.moveSearchPointers([
        {
          documentId: "doc-a",
          tenantId: "acme",
          indexVersionId: "iv-a2",
          versionNumber: 2,
          previousIndexVersionId: "iv-a1",
          pin: null,
        },
        {
          documentId: "doc-b",
          tenantId: "acme",
          indexVersionId: "iv-b1",
          versionNumber: 1,
          previousIndexVersionId: null,
          pin: { by: "token:bootstrap", reason: "bad edit" },
        },
      ]),
    };
    const exported = Object.entries(sql)
      .filter(([, v]) => typeof v === "function")
      .map(([k]) => k)
      .sort();
    expect(Object.keys(rendered).sort()).toEqual(exported);
    expect(rendered).toMatchSnapshot();
  });

  it("fences every statement that acts on a held lease", () => {
    for (const s of [
      sql.renewLease("1", "w", 1, 1, 0, 0),
      sql.failTask("1", "w", 1, "DEAD", 0, "PARSE_ERROR", "x"),
      sql.releaseTask("1", "w", 1),
    ]) {
      expect(s.text).toContain("status = 'RUNNING' AND lease_owner = $2 AND attempts = $3 AND lease_until > now()");
      expect(s.values[1]).toBe("w");
      expect(s.values[2]).toBe(1);
    }
  });

  it("fences each task of a batch with its own lease attempt", () => {
    const held = [
      { taskId: "1", leaseAttempt: 4 },
      { taskId: "2", leaseAttempt: 1 },
    ];
    for (const s of [
      sql.leasesHeld("w", held),
      sql.lockHeldTasks("w", held),
      sql.supersedeHeldTasks(
        "w",
        held.map((h) => ({ ...h, reason: "r", businessVersion: 2 })),
      ),
      sql.completeTasks(
        "w",
        held.map((h) => ({ ...h, stats: { chunksTotal: 1, chunksReused: 0, batchesSent: 1 } })),
      ),
    ]) {
      expect(s.text).toContain(
        "t.status = 'RUNNING' AND t.lease_owner = $1 AND t.attempts = h.attempts AND t.lease_until > now()",
      );
      expect(s.values[0]).toBe("w");
      expect(s.values[1]).toEqual(["1", "2"]);
      expect(s.values[2]).toEqual([4, 1]);
    }
  });
});
