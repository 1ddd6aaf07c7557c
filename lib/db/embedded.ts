import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGliteServer } from "./pglite-server";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export type EmbeddedDb = { url: string; stop: () => Promise<void>; db: PGlite };

/**
 * Serves an embedded PostgreSQL (PGlite + pgvector) on a local TCP port so every process
 * connects with an ordinary `pg` URL. `dataDir` undefined = in memory (tests).
 */
export async function startEmbedded(opts: {
  dataDir?: string;
  port: number;
  host?: string;
  maxConnections?: number;
  password?: string;
}): Promise<EmbeddedDb> {
  const host = opts.host ?? "127.0.0.1";
  // The password is the only thing between a local process and superuser; the network is not offered it.
  if (!LOOPBACK.has(host)) throw new Error(`the embedded database listens on loopback only, not ${host}`);
  // Without one given (tests, in-memory), a fresh one per server: there is never a passwordless socket.
  const password = opts.password ?? randomBytes(24).toString("base64url");
  let dataDir: string | undefined;
  if (opts.dataDir) {
    dataDir = path.resolve(opts.dataDir);
    mkdirSync(path.dirname(dataDir), { recursive: true });
  }
  // pg_trgm: the documents list's text filter is served by trigram indexes (a migration creates them).
  const db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
  await db.exec("CREATE EXTENSION IF NOT EXISTS vector");
  const server = new PGliteServer({ db, port: opts.port, host, maxConnections: opts.maxConnections ?? 64, password });
  await server.start();
  let stopped = false;
  return {
    db,
    url: `postgresql://postgres:${encodeURIComponent(password)}@${host.includes(":") ? `[${host}]` : host}:${opts.port}/postgres?sslmode=disable`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
      // close() checkpoints and flushes the data directory; skipping it risks a torn store.
      await db.close();
    },
  };
}
