import { describe, expect, it } from "vitest";
import * as sql from "../../lib/queue/actions-sql";

// Every task write outside the hot path rendered with fixed arguments: any SQL change is a snapshot diff.
describe("task action SQL", () => {
  it("renders every statement", () => {
    const dead = { errorCode: "PARSE_ERROR", tenant: "acme", type: "INDEX", tenants: ["acme"] };
    const rendered = {
      supersedeOlderTasks: sql.supersedeOlderTasks("doc-id", 5, "token:bootstrap", ["INDEX", "REINDEX", "DELETE"]),
      queueMigrationTasks: sql.queueMigrationTasks("acme", 2, "7", 8, "user:ops"),
      supersedeMigrationTasks: sql.supersedeMigrationTasks("acme", "user:ops", "migration 7 aborted"),
      createTask: sql.createTask("acme", "doc-id", 3, "DELETE", 8, "token:bootstrap", { versionNumber: 3 }),
      reopenReindexTask: sql.reopenReindexTask("acme", "doc-id", 3, 8, "token:bootstrap", "DEAD"),
      restartReindexTask: sql.restartReindexTask("acme", "doc-id", 3, 8, "reconciler", {
        versionNumber: 3,
        reason: "STALE_MODEL",
      }),
      retryTask: sql.retryTask("42", 8, "token:bootstrap", { reason: "provider back", from: "DEAD" }),
      lockDeadTaskDocuments: sql.lockDeadTaskDocuments(dead),
      retryDeadTasks: sql.retryDeadTasks(dead, ["doc-a", "doc-b"], 8, "token:bootstrap", { reason: null, bulk: true }),
      forceDoneTask: sql.forceDoneTask("42", null, "token:bootstrap", "acknowledged"),
      cancelTask: sql.cancelTask("42", "Cancelled by token:bootstrap: not needed", "token:bootstrap", {
        reason: "not needed",
        from: "PENDING",
      }),
      expireExhaustedLease: sql.expireExhaustedLease("42", 3, 30, "reconciler"),
    };
    const exported = Object.entries(sql)
      .filter(([, v]) => typeof v === "function")
      .map(([k]) => k)
      .sort();
    expect(Object.keys(rendered).sort()).toEqual(exported);
    expect(rendered).toMatchSnapshot();
  });
});
