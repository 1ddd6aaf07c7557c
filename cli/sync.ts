import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pLimit from "p-limit";
import { unwrap, type IndexwrightClient } from "../lib/client";
import { contentTypeOf } from "./api";

// `sync DIR`: make a tenant's documents (those under a key prefix) what a folder holds. A file's
// key is its path relative to the folder; a document is changed when the SHA-256 of the file
// differs from the checksum of the server's current version (the server hashes the bytes it is
// sent, and the CLI sends the file's bytes as they are). Documents under the prefix with no file
// are deleted. Running it again with nothing changed sends nothing.

const KEY = /^[a-z0-9][a-z0-9._-]{0,127}$/;

/**
 * A file's document key: its relative path, lower-cased, with each directory separator written as
 * "." and any other character a key cannot hold as "-" (keys are [a-z0-9._-], 128 at most).
 */
export function keyForPath(rel: string, prefix = ""): string {
  const key =
    prefix +
    rel
      .split(/[\\/]+/)
      .map((part) => part.toLowerCase().replace(/[^a-z0-9._-]+/g, "-"))
      .join(".");
  if (!KEY.test(key))
    throw new Error(
      `${rel}: its key ${key} is not a valid document key ([a-z0-9][a-z0-9._-], at most 128 characters); rename the file or shorten --prefix`,
    );
  return key;
}

export type LocalFile = { key: string; rel: string; abs: string; checksum: string; contentType: string; bytes: number };

/** Files under `dir` the server can parse (by extension), skipping hidden files and folders. */
export async function scanFolder(dir: string, prefix = ""): Promise<{ files: LocalFile[]; skipped: string[] }> {
  const files: LocalFile[] = [];
  const skipped: string[] = [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (!e.isFile()) continue;
    const abs = path.join(e.parentPath, e.name);
    const rel = path.relative(dir, abs);
    if (rel.split(path.sep).some((p) => p.startsWith("."))) continue;
    const contentType = contentTypeOf(rel);
    if (!contentType) {
      skipped.push(rel);
      continue;
    }
    const content = await readFile(abs);
    files.push({
      key: keyForPath(rel, prefix),
      rel,
      abs,
      checksum: createHash("sha256").update(content).digest("hex"),
      contentType,
      bytes: content.length,
    });
  }
  files.sort((a, b) => a.key.localeCompare(b.key));
  for (let i = 1; i < files.length; i++) {
    if (files[i].key === files[i - 1].key)
      throw new Error(`${files[i - 1].rel} and ${files[i].rel} would both be document ${files[i].key}; rename one`);
  }
  return { files, skipped: skipped.sort() };
}

/** A document as the server has it: its current version's checksum, null when it has none (deleted, never published). */
export type RemoteDoc = { key: string; state: string; checksum: string | null };

export type PlanEntry = { key: string; file?: string; reason: "new" | "changed" | "missing-locally" };
export type SyncPlan = { publish: PlanEntry[]; delete: PlanEntry[]; unchanged: string[] };

/** What to do, from the folder and the server: pure, so the rule is tested without either. */
export function planSync(files: LocalFile[], remote: RemoteDoc[]): SyncPlan {
  const byKey = new Map(remote.map((d) => [d.key, d]));
  const local = new Set(files.map((f) => f.key));
  const plan: SyncPlan = { publish: [], delete: [], unchanged: [] };
  for (const f of files) {
    const d = byKey.get(f.key);
    if (!d || d.checksum === null) plan.publish.push({ key: f.key, file: f.rel, reason: "new" });
    else if (d.checksum !== f.checksum) plan.publish.push({ key: f.key, file: f.rel, reason: "changed" });
    else plan.unchanged.push(f.key);
  }
  for (const d of remote)
    if (!local.has(d.key) && d.checksum !== null) plan.delete.push({ key: d.key, reason: "missing-locally" });
  return plan;
}

/** The tenant's documents under the prefix, with their current version's checksum. */
export async function remoteDocuments(
  client: IndexwrightClient,
  tenant: string,
  prefix: string,
  concurrency = 4,
): Promise<RemoteDoc[]> {
  const listed: { key: string; state: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(
      client.GET("/api/v1/documents", { params: { query: { tenant, limit: 200, ...(cursor ? { cursor } : {}) } } }),
    );
    for (const d of page.items) if (d.key.startsWith(prefix)) listed.push({ key: d.key, state: d.state });
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const limit = pLimit(concurrency);
  return Promise.all(
    listed.map((d) =>
      limit(async (): Promise<RemoteDoc> => {
        if (d.state === "DELETED") return { key: d.key, state: d.state, checksum: null };
        const doc = await unwrap(
          client.GET("/api/v1/tenants/{tenant}/documents/{key}", { params: { path: { tenant, key: d.key } } }),
        );
        const current = doc.versions.find((v) => v.versionNumber === doc.businessVersion);
        return { key: d.key, state: doc.state, checksum: doc.state === "DELETED" ? null : (current?.checksum ?? null) };
      }),
    ),
  );
}

/** Publishes one file as it is on disk: its bytes as base64, its content type from its extension. */
export async function publishFile(
  client: IndexwrightClient,
  tenant: string,
  key: string,
  file: string,
  opts: { title?: string; contentType?: string; acl?: string[]; priority?: "interactive" | "bulk" } = {},
) {
  const content = await readFile(file);
  const contentType = opts.contentType ?? contentTypeOf(file);
  if (!contentType)
    throw new Error(
      `${file}: unknown file type; pass --content-type (the server reads ${"Markdown, plain text, HTML, PDF and DOCX"})`,
    );
  return unwrap(
    client.POST("/api/v1/tenants/{tenant}/documents/{key}/versions", {
      params: { path: { tenant, key } },
      body: {
        title: opts.title ?? path.basename(file, path.extname(file)),
        contentType,
        content: content.toString("base64"),
        contentEncoding: "base64",
        ...(opts.acl ? { acl: opts.acl } : {}),
        ...(opts.priority ? { priority: opts.priority } : {}),
      },
    }),
  );
}
