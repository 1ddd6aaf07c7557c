// The embedded database as `npm start` runs it without DATABASE_URL (PGlite + pgvector behind
// lib/db/pglite-server.ts, data on disk), in a process of its own, so bench/index.ts can measure
// the default setup without sharing an event loop with it. Prints "ready <url>"; SIGTERM stops it.
import { startEmbedded } from "../lib/db/embedded";

const port = Number(process.env.PGLITE_PORT);
const dataDir = process.env.PGLITE_DATA_DIR;
if (!Number.isInteger(port) || port < 1 || !dataDir) throw new Error("PGLITE_PORT and PGLITE_DATA_DIR are required");
const db = await startEmbedded({ dataDir, port });
process.stdout.write(`ready ${db.url}\n`);
const stop = async () => {
  await db.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
