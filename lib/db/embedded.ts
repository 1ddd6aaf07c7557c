import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGliteServer } from "./pglite-server";

export type EmbeddedDb = { url: string; stop: () => Promise<void>; db: PGlite };

/**
 * Serves an embedded PostgreSQL (PGlite + pgvector) on a local TCP port so every process
 * connects with an ordinary `pg` URL. `dataDir` undefined = in memory (tests).
 */
export async function startEmbedded(opts: { dataDir?: string; port: number; host?: string; maxConnections?: number }): Promise<EmbeddedDb> {
  const host = opts.host ?? "127.0.0.1";
  let dataDir: string | undefined;
  if (opts.dataDir) {
    dataDir = path.resolve(opts.dataDir);
    mkdirSync(path.dirname(dataDir), { recursive: true });
  }
  // pg_trgm: the documents list's text filter is served by trigram indexes (a migration creates them).
  const db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
  await db.exec("CREATE EXTENSION IF NOT EXISTS vector");
  const server = new PGliteServer({ db, port: opts.port, host, maxConnections: opts.maxConnections ?? 64 });
  await server.start();
  let stopped = false;
  return {
    db,
    url: `postgresql://postgres:postgres@${host}:${opts.port}/postgres?sslmode=disable`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
      // close() checkpoints and flushes the data directory; skipping it risks a torn store.
      await db.close();
    },
  };
}
