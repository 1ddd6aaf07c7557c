import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../../lib/generated/prisma/client";
import { createTestDb, type TestDb } from "../helpers/db";

// Fails when prisma/schema.prisma and the SQL migrations disagree: tables, columns, nullability,
// and a round trip of every model through the generated client against the migrated database.

type Field = { column: string; optional: boolean; list: boolean };
type Model = { name: string; table: string; fields: Field[] };

function parseSchema(text: string): Model[] {
  const models: Model[] = [];
  const re = /model\s+(\w+)\s*\{([\s\S]*?)\n\}/g;
  // Relation fields (typed with another model) have no column of their own.
  const modelNames = new Set([...text.matchAll(re)].map((m) => m[1]));
  for (const m of text.matchAll(re)) {
    const body = m[2];
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? m[1];
    const fields: Field[] = [];
    for (const line of body.split("\n")) {
      const f = /^\s+(\w+)\s+([\w()"]+?)(\[\])?(\?)?(\s|$)/.exec(line);
      if (!f || line.trim().startsWith("@@") || line.trim().startsWith("//") || modelNames.has(f[2])) continue;
      const column = /@map\("([^"]+)"\)/.exec(line)?.[1] ?? f[1];
      fields.push({ column, optional: Boolean(f[4]), list: Boolean(f[3]) });
    }
    models.push({ name: m[1], table, fields });
  }
  return models;
}

let t: TestDb;
let prisma: PrismaClient;
const models = parseSchema(readFileSync("prisma/schema.prisma", "utf8"));

beforeAll(async () => {
  t = await createTestDb();
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: t.url }) });
});
afterAll(async () => {
  await prisma?.$disconnect();
  await t?.close();
});

describe("schema.prisma matches the migrations", () => {
  it("has exactly the tables of the database", async () => {
    const { rows } = await t.pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations' ORDER BY 1`,
    );
    expect(models.map((m) => m.table).sort()).toEqual(rows.map((r) => r.table_name));
  });

  it("has exactly the columns, with the same nullability", async () => {
    const { rows } = await t.pool.query(
      `SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'`,
    );
    for (const m of models) {
      const db = rows.filter((r) => r.table_name === m.table);
      expect(m.fields.map((f) => f.column).sort(), `columns of ${m.table}`).toEqual(
        db.map((r) => r.column_name).sort(),
      );
      for (const f of m.fields) {
        const col = db.find((r) => r.column_name === f.column)!;
        expect(col.is_nullable === "YES", `${m.table}.${f.column} nullability`).toBe(f.optional);
      }
    }
  });

  it("round-trips every model through the generated client", async () => {
    const tenant = await prisma.tenant.create({ data: { id: "drift", name: "Drift" } });
    const docId = randomUUID();
    const doc = await prisma.document.create({
      data: { id: docId, tenantId: tenant.id, key: "k", title: "T", businessVersion: 1 },
    });
    const ver = await prisma.documentVersion.create({
      data: {
        id: randomUUID(),
        tenantId: tenant.id,
        documentId: docId,
        versionNumber: 1,
        title: "T",
        contentType: "text/plain",
        content: new Uint8Array([104, 105]),
        contentBytes: 2,
        checksum: "c",
        acl: ["a", "b"],
        abstract: "ab",
        overview: "ov",
        publishedBy: "me",
      },
    });
    const task = await prisma.indexTask.create({
      data: { tenantId: tenant.id, documentId: docId, versionNumber: 1, taskType: "INDEX", chunksTotal: 1 },
    });
    const ev = await prisma.taskEvent.create({
      data: { taskId: task.taskId, tenantId: tenant.id, kind: "CREATED", detail: { a: 1 } },
    });
    const iv = await prisma.indexVersion.create({
      data: {
        id: randomUUID(),
        tenantId: tenant.id,
        documentId: docId,
        versionNumber: 1,
        taskId: task.taskId,
        status: "ACTIVE",
        chunkerVersion: "c",
        embeddingModel: "m",
        embeddingDimensions: 3,
        expectedChunkCount: 1,
      },
    });
    // The vector column is Unsupported in Prisma, so the row is written in SQL and read back by Prisma,
    // in a space of its three dimensions (the default space's HNSW index takes 384).
    const space = await prisma.embeddingSpace.create({
      data: { name: `drift-${tenant.id}`, provider: "openai", model: "m", dimensions: 3, chunkerVersion: "c" },
    });
    const vectorId = (
      await t.pool.query(
        `INSERT INTO chunk_vectors (tenant_id, document_id, content_hash, embedding_model, dims, chunker_version, embedding, text, space_id) VALUES ($1, $2, 'h', 'm', 3, 'c', '[1,2,3]', 'text', $3) RETURNING id`,
        [tenant.id, docId, space.id],
      )
    ).rows[0].id;
    await t.pool.query(
      `INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, section_path, text, content_hash, dims, vector_id) VALUES ($1, 0, 'cid', $2, $3, 'a > b', 'text', 'h', 3, $4)`,
      [iv.id, tenant.id, docId, vectorId],
    );
    const sp = await prisma.searchPointer.create({
      data: { documentId: docId, tenantId: tenant.id, indexVersionId: iv.id, versionNumber: 1 },
    });
    const w = await prisma.worker.create({
      data: { id: "w1", host: "h", pid: 1, concurrency: 2, currentTasks: [task.taskId] },
    });
    const snap = await prisma.backlogSnapshot.create({
      data: { pending: 1, retryWait: 0, running: 0, dead: 0, due: 1, oldestDueAgeSeconds: 1.5 },
    });
    const user = await prisma.user.create({
      data: {
        id: randomUUID(),
        email: "a@b.c",
        role: "admin",
        tenants: ["drift"],
        oidcIssuer: "https://idp",
        oidcSubject: "s1",
      },
    });
    const tok = await prisma.apiToken.create({ data: { id: randomUUID(), name: "n", tokenHash: "h", role: "viewer" } });
    const sess = await prisma.session.create({
      data: {
        idHash: "sh",
        userId: user.id,
        method: "oidc",
        expiresAt: new Date(Date.now() + 60_000),
        userAgent: "ua",
      },
    });
    const audit = await prisma.auditLog.create({
      data: { actor: "me", action: "x", targetType: "task", targetId: "1", detail: { r: true } },
    });
    const idem = await prisma.idempotencyKey.create({
      data: { tenantId: tenant.id, key: "k", requestHash: "h", statusCode: 202, response: { ok: 1 } },
    });
    const pass = await prisma.reconcilePass.create({
      data: { actor: "w1", counts: { MISSING_TASK: { found: 1 } }, totals: {} },
    });
    const anomaly = await prisma.anomalyEvent.create({
      data: {
        passId: pass.id,
        kind: "MISSING_TASK",
        action: "REPORTED",
        fingerprint: "f",
        tenantId: tenant.id,
        documentId: docId,
        taskId: task.taskId,
        detail: { v: 1 },
      },
    });

    const limit = await prisma.signInLimit.create({ data: { key: "drift-key", points: 1, expire: 1n } });
    expect(await prisma.signInLimit.findUniqueOrThrow({ where: { key: "drift-key" } })).toEqual(limit);
    const owner = await prisma.user.create({
      data: {
        id: randomUUID(),
        email: "drift@example.com",
        role: "viewer",
        tenants: ["*"],
        groups: ["hr"],
        ssoGroups: ["finance"],
      },
    });
    const personal = await prisma.apiToken.create({
      data: {
        id: randomUUID(),
        name: "drift",
        tokenHash: "drift-hash",
        role: "viewer",
        tenants: ["drift"],
        userId: owner.id,
      },
    });
    expect(await prisma.apiToken.findUniqueOrThrow({ where: { id: personal.id } })).toEqual({
      ...personal,
      capabilities: [],
    });
    expect(await prisma.user.findUniqueOrThrow({ where: { id: owner.id } })).toEqual(owner);
    expect(await prisma.tenant.findUniqueOrThrow({ where: { id: "drift" } })).toEqual(tenant);
    // The search pointer's trigger copied its version onto the document.
    expect(await prisma.document.findUniqueOrThrow({ where: { id: docId } })).toEqual({
      ...doc,
      searchVersion: 1,
      drifted: false,
    });
    const ver2 = await prisma.documentVersion.findUniqueOrThrow({ where: { id: ver.id } });
    expect({ ...ver2, content: Buffer.from(ver2.content).toString() }).toEqual({ ...ver, content: "hi" });
    expect(await prisma.indexTask.findUniqueOrThrow({ where: { taskId: task.taskId } })).toEqual(task);
    expect(
      await prisma.taskEvent.findUniqueOrThrow({ where: { taskId_id: { taskId: ev.taskId, id: ev.id } } }),
    ).toEqual(ev);
    expect(await prisma.indexVersion.findUniqueOrThrow({ where: { id: iv.id } })).toEqual(iv);
    const chunk = await prisma.chunk.findUniqueOrThrow({
      where: { indexVersionId_ordinal: { indexVersionId: iv.id, ordinal: 0 } },
    });
    expect(chunk).toMatchObject({
      chunkId: "cid",
      level: 2,
      sectionPath: "a > b",
      dims: 3,
      vectorId: BigInt(vectorId),
    });
    expect(await prisma.chunkVector.findUniqueOrThrow({ where: { id: BigInt(vectorId) } })).toMatchObject({
      documentId: docId,
      contentHash: "h",
      embeddingModel: "m",
      dims: 3,
      chunkerVersion: "c",
      text: "text",
    });
    expect(await prisma.searchPointer.findUniqueOrThrow({ where: { documentId: docId } })).toEqual(sp);
    expect(await prisma.worker.findUniqueOrThrow({ where: { id: "w1" } })).toEqual(w);
    expect(await prisma.backlogSnapshot.findUniqueOrThrow({ where: { id: snap.id } })).toEqual(snap);
    expect(await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).toEqual(user);
    expect(await prisma.apiToken.findUniqueOrThrow({ where: { id: tok.id } })).toEqual(tok);
    expect(await prisma.session.findUniqueOrThrow({ where: { idHash: "sh" } })).toEqual(sess);
    expect(await prisma.auditLog.findUniqueOrThrow({ where: { id: audit.id } })).toEqual(audit);
    expect(
      await prisma.idempotencyKey.findUniqueOrThrow({ where: { tenantId_key: { tenantId: tenant.id, key: "k" } } }),
    ).toEqual(idem);
    expect(await prisma.reconcilePass.findUniqueOrThrow({ where: { id: pass.id } })).toEqual(pass);
    expect(await prisma.anomalyEvent.findUniqueOrThrow({ where: { id: anomaly.id } })).toEqual(anomaly);
  });
});
