import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { publish } from "../../lib/documents/publish";
import { getDocument, listDocuments, rollback, unpin } from "../../lib/documents/repository";
import { claim } from "../../lib/queue/engine";
import { executeTask } from "../helpers/pipeline";
import { LocalEmbedder } from "../../lib/embedding";

// The document detail tells the dashboard whether search is held by a rollback pin, and by whom and
// why, so the page can offer an unpin and explain why search is behind.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

const TENANT = "pin";
const actor = { subject: "test:operator" };
const local = new LocalEmbedder(384);

const pub = (content: string) =>
  publish(t.pool, {
    tenant: TENANT,
    key: "guide",
    title: "Guide",
    contentType: "text/markdown",
    content: Buffer.from(content),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 3,
  });

async function drain(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const [lease] = await claim(t.pool, "w-pin", 60, 1);
    if (!lease) return;
    await executeTask(
      t.pool,
      local,
      lease,
      { signal: new AbortController().signal, progress: () => undefined },
      { batchSize: 4, batchMaxBytes: 1 << 20 },
    );
  }
  throw new Error("drain did not settle");
}

describe("document detail: pinned, pinnedBy, pinnedReason", () => {
  it("unpinned → pinned by a rollback (who and why) → unpinned again, back at the business version", async () => {
    await pub("# Guide\n\nalpha edition text");
    await drain();
    await pub("# Guide\n\nbeta edition text");
    await drain();
    expect(await getDocument(t.pool, TENANT, "guide")).toMatchObject({
      searchVersion: 2,
      pinned: false,
      pinnedBy: null,
      pinnedReason: null,
    });

    await rollback(t.pool, TENANT, "guide", 1, "beta has the wrong figures", actor, 24);
    expect(await getDocument(t.pool, TENANT, "guide")).toMatchObject({
      businessVersion: 2,
      searchVersion: 1,
      pinned: true,
      pinnedBy: "test:operator",
      pinnedReason: "beta has the wrong figures",
    });
    // The list stays as it was: the pin is a detail-page concern.
    const listed = (await listDocuments(t.pool, { tenants: null, tenant: TENANT, limit: 10 })).items[0];
    expect(Object.keys(listed)).not.toContain("pinned");

    await unpin(t.pool, TENANT, "guide", actor, { retentionHours: 24, maxAttempts: 3 });
    expect(await getDocument(t.pool, TENANT, "guide")).toMatchObject({
      searchVersion: 2,
      pinned: false,
      pinnedBy: null,
      pinnedReason: null,
    });
  });

  it("a document search has never served is not pinned", async () => {
    await publish(t.pool, {
      tenant: TENANT,
      key: "fresh",
      title: "Fresh",
      contentType: "text/markdown",
      content: Buffer.from("# Fresh\n\nnew"),
      acl: [],
      abstract: null,
      overview: null,
      actor: "test",
      maxAttempts: 3,
    });
    expect(await getDocument(t.pool, TENANT, "fresh")).toMatchObject({
      searchVersion: null,
      pinned: false,
      pinnedBy: null,
      pinnedReason: null,
    });
  });
});
