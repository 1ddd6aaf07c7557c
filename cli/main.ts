import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { print, printError } from "./print";

const USAGE = `indexwright <command>

  start [--demo]                          embedded or DATABASE_URL database, migrations, worker, dashboard
  worker [--concurrency N] [--id NAME]    a worker process
  migrate                                 apply pending migrations to DATABASE_URL
  publish --tenant T --key K --file F [--title T] [--content-type CT] [--url URL] [--token TOKEN]
  status [--tenant T --key K] [--url URL] [--token TOKEN]
`;

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  switch (cmd) {
    case "start": {
      const { start } = await import("./start");
      return start(rest);
    }
    case "worker": {
      process.env.INDEXWRIGHT_PROCESS ??= "worker";
      const { runWorker } = await import("../worker/main");
      return runWorker(rest);
    }
    case "migrate": {
      const { migrate } = await import("../lib/db/migrate");
      const { databaseUrl } = await import("../lib/db/pool");
      const r = await migrate(databaseUrl(), { log: (m) => console.log(m) });
      console.log(r.applied.length ? `applied ${r.applied.length} migration(s)` : "database is up to date");
      return;
    }
    case "publish":
      return publishCmd(rest);
    case "status":
      return statusCmd(rest);
    case undefined:
    case "help":
    case "--help":
      print(USAGE);
      return;
    default:
      printError(`unknown command: ${cmd}\n\n${USAGE}`);
      process.exit(2);
  }
}

function apiBase(url?: string): string {
  return (url ?? process.env.INDEXWRIGHT_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`).replace(/\/$/, "");
}

function token(t?: string): string {
  if (t) return t;
  if (process.env.INDEXWRIGHT_TOKEN) return process.env.INDEXWRIGHT_TOKEN;
  if (process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN) return process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN;
  const file = path.join(process.env.INDEXWRIGHT_DATA_DIR ?? ".indexwright", "bootstrap-token");
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    throw new Error(`no token: pass --token, set INDEXWRIGHT_TOKEN, or run next to ${file}`);
  }
}

const CONTENT_TYPES: Record<string, string> = { ".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".html": "text/html", ".htm": "text/html" };

async function publishCmd(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { tenant: { type: "string" }, key: { type: "string" }, file: { type: "string" }, title: { type: "string" }, "content-type": { type: "string" }, url: { type: "string" }, token: { type: "string" } },
  });
  if (!values.tenant || !values.key || !values.file) throw new Error("publish needs --tenant, --key and --file");
  const content = readFileSync(values.file, "utf8");
  const contentType = values["content-type"] ?? CONTENT_TYPES[path.extname(values.file).toLowerCase()] ?? "text/plain";
  const title = values.title ?? path.basename(values.file, path.extname(values.file));
  const res = await fetch(`${apiBase(values.url)}/api/v1/tenants/${encodeURIComponent(values.tenant)}/documents/${encodeURIComponent(values.key)}/versions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token(values.token)}` },
    body: JSON.stringify({ title, contentType, content }),
  });
  const body = await res.json();
  print(JSON.stringify(body, null, 2));
  if (!res.ok) process.exit(1);
}

async function statusCmd(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { tenant: { type: "string" }, key: { type: "string" }, url: { type: "string" }, token: { type: "string" } } });
  const url =
    values.tenant && values.key
      ? `${apiBase(values.url)}/api/v1/tenants/${encodeURIComponent(values.tenant)}/documents/${encodeURIComponent(values.key)}`
      : `${apiBase(values.url)}/api/v1/overview`;
  const res = await fetch(url, { headers: { authorization: `Bearer ${token(values.token)}` } });
  print(JSON.stringify(await res.json(), null, 2));
  if (!res.ok) process.exit(1);
}

main().catch((err) => {
  printError(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
