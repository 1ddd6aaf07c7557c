// Runs `prisma generate` offline. The CLI insists on a schema-engine binary path even though
// generate never executes it; the real binary is a download this environment cannot reach.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = "/bin/false";
env.PRISMA_HIDE_UPDATE_MESSAGE = "1";
env.CHECKPOINT_DISABLE = "1";
if (!existsSync("prisma/schema.prisma")) process.exit(0);
const r = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], { stdio: "inherit", env });
process.exit(r.status ?? 1);
