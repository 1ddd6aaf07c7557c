import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { search } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";

// Visibility filters run after the HNSW candidate scan; when they drop most candidates the
// candidate pool grows until enough visible hits are found.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

describe("filtered search", () => {
  it("finds a visible document even when the nearest 100+ chunks are hidden by ACLs", async () => {
    const w = testWorker(t, "s", {}, 2);
    await w.start();
    const secret = Array.from(
      { length: 120 },
      (_, i) => `## Vault ${i}\n\nThe vault door code rotates every night, entry ${i}.`,
    ).join("\n\n");
    const a = await publish(t.pool, {
      tenant: "s",
      key: "vault",
      title: "Vault",
      contentType: "text/markdown",
      content: Buffer.from(`# Vault\n\n${secret}`),
      acl: ["group:security"],
      abstract: null,
      overview: null,
      actor: "t",
      maxAttempts: 8,
    });
    const b = await publish(t.pool, {
      tenant: "s",
      key: "lobby",
      title: "Lobby",
      contentType: "text/markdown",
      content: Buffer.from("# Lobby\n\nThe lobby door opens at seven."),
      acl: [],
      abstract: null,
      overview: null,
      actor: "t",
      maxAttempts: 8,
    });
    await waitFor(
      async () =>
        (
          await t.pool.query(
            `SELECT count(*)::int AS n FROM index_tasks WHERE status = 'SUCCEEDED' AND task_id = ANY($1::bigint[])`,
            [[a.taskId, b.taskId]],
          )
        ).rows[0].n === 2,
      30_000,
    );
    await w.stop(2000);
    const chunks = (
      await t.pool.query(
        `SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.key = 'vault'`,
      )
    ).rows[0].n;
    expect(chunks).toBeGreaterThan(100);
    const e = new LocalEmbedder(384);
    const outsider = await search(t.pool, e, {
      tenant: "s",
      query: "vault door code rotates every night",
      topK: 3,
      principals: [],
    });
    expect(outsider.map((h) => h.documentKey)).toEqual(["lobby"]);
    const insider = await search(t.pool, e, {
      tenant: "s",
      query: "vault door code rotates every night",
      topK: 3,
      principals: ["group:security"],
    });
    expect(insider.map((h) => h.documentKey)).toEqual(["vault", "vault", "vault"]);
  });
});
