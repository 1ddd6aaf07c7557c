import "server-only";
import { loadConfig, type Config } from "./config";
import { getPool } from "./db/pool";
import { createEmbedder } from "./embedding";
import { spaceOf, type Embedder } from "./embedding/types";

// Process-wide singletons for route handlers (one pool, one embedder per server process).
let cfg: Config | undefined;
let embedder: Embedder | undefined;

export const serverConfig = () => (cfg ??= loadConfig());
export const db = () => getPool();
export const serverEmbedder = () => (embedder ??= createEmbedder(serverConfig()));
/** Model and dimensions this server embeds queries with; rollback and unpin only choose index versions built in it. */
export const embeddingSpace = () => spaceOf(serverEmbedder());
