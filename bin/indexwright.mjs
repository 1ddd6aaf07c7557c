#!/usr/bin/env node
// Entry point for `npm start`, `npm run worker`, `npm run migrate` and the CLI. Re-runs Node with
// the TypeScript loader and the `react-server` condition (so modules marked `server-only`, shared
// with the Next app, load in the worker and CLI too).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// tsx is resolved from this package, not from the current directory, so the CLI runs from anywhere.
const tsx = import.meta.resolve("tsx");
const child = spawn(
  process.execPath,
  ["--conditions=react-server", "--import", tsx, path.join(root, "cli", "main.ts"), ...process.argv.slice(2)],
  { stdio: "inherit", cwd: process.cwd(), env: process.env },
);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
