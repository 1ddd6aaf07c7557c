import "server-only";
import { loadConfig, type Config } from "./config";
import { getPool } from "./db/pool";
import { createEmbedder } from "./embedding";
import type { Embedder } from "./embedding/types";
import { SpaceEmbedders } from "./spaces/embedders";
import { requestReadPool } from "./http/request-context";

// Process-wide singletons for route handlers (one pool, one embedder per server process).
let cfg: Config | undefined;
let embedder: Embedder | undefined;
let spaces: SpaceEmbedders | undefined;

export const serverConfig = () => (cfg ??= loadConfig());
export const db = () => getPool();
/**
 * The pool for a route's reads: the replica when the handler chose it for this request (a read
 * route, the replica close enough behind and past the caller's last write), else the primary.
 * Only statements that write nothing go through it: a replica refuses writes.
 */
export const readDb = () => requestReadPool() ?? getPool();
export const serverEmbedder = () => (embedder ??= createEmbedder(serverConfig()));
/** Every index space's embedder for this server process (search embeds a query in its tenant's active space). */
export const serverSpaces = () =>
  (spaces ??= new SpaceEmbedders({ timeoutMs: serverConfig().EMBEDDING_TIMEOUT_MS, preset: serverEmbedder() }));
