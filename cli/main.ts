import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { print, printError } from "./print";

const USAGE = `indexwright <command>

  start [--demo]                          embedded or DATABASE_URL database, migrations, worker, dashboard
  worker [--concurrency N] [--id NAME]    a worker process
  migrate [deploy]                        apply pending migrations to DATABASE_URL
  migrate status [--json]                 applied, pending, failed and modified migrations (exit 1 unless up to date)
  migrate resolve --rolled-back NAME      a failed migration was undone: the next migrate applies it anew
  migrate resolve --applied NAME          a migration's changes were made by hand: record it as applied
  config [--json]                         the settings this process sees (.env files read, secrets masked); exit 1 if start would refuse them
  publish --tenant T --key K --file F [--title T] [--content-type CT] [--url URL] [--token TOKEN]
  status [--tenant T --key K] [--url URL] [--token TOKEN]
`;

async function main(): Promise<void> {
  // .env files, in the order `next start` reads them, before anything reads a setting: the web
  // process, the worker and this CLI then see the same configuration.
  const { loadEnvFiles } = await import("../lib/env-files");
  loadEnvFiles();
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
    case "migrate":
      return migrateCmd(rest);
    case "config":
      return configCmd(rest, loadEnvFiles());
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

async function configCmd(argv: string[], files: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { json: { type: "boolean" } } });
  const { checkSettings, describeSettings } = await import("./settings");
  const settings = describeSettings(checkSettings());
  if (values.json) {
    print(JSON.stringify({ files, settings }, null, 2));
    return;
  }
  print(files.length ? `.env files read (first wins; the environment wins over all): ${files.join(", ")}` : "no .env files read");
  for (const [k, v] of Object.entries(settings)) print(`  ${k} = ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v ?? "")}`);
}

async function migrateCmd(argv: string[]): Promise<void> {
  const { migrate, migrationStatus, resolveMigration } = await import("../lib/db/migrate");
  const { databaseUrl } = await import("../lib/db/pool");
  const [sub = "deploy", ...args] = argv;
  switch (sub) {
    case "deploy": {
      // Before the first migration's CREATE EXTENSION fails and is recorded as a failed migration.
      const { requirePgvector } = await import("../lib/db/pgvector");
      await requirePgvector(databaseUrl());
      const r = await migrate(databaseUrl(), { log: (m) => print(m) });
      print(r.applied.length ? `applied ${r.applied.length} migration(s)` : "database is up to date");
      return;
    }
    case "status": {
      const { values } = parseArgs({ args, options: { json: { type: "boolean" } } });
      const s = await migrationStatus(databaseUrl());
      if (values.json) print(JSON.stringify(s, null, 2));
      else printStatus(s);
      if (!s.upToDate) process.exitCode = 1;
      return;
    }
    case "resolve": {
      const { values } = parseArgs({ args, options: { applied: { type: "string" }, "rolled-back": { type: "string" } } });
      const applied = values.applied;
      const rolledBack = values["rolled-back"];
      if (!applied === !rolledBack) throw new Error("migrate resolve needs exactly one of --applied NAME or --rolled-back NAME");
      await resolveMigration(databaseUrl(), applied ? { applied } : { rolledBack: rolledBack! });
      print(applied ? `migration ${applied} marked as applied` : `migration ${rolledBack} marked as rolled back; the next migrate applies it`);
      return;
    }
    default:
      throw new Error(`unknown migrate command: ${sub} (deploy, status or resolve)`);
  }
}

function printStatus(s: import("../lib/db/migrate").MigrationStatus): void {
  const local = s.migrations.filter((m) => m.local);
  print(`${local.length} migration(s) in prisma/migrations${s.hasTable ? "" : "; the database has no migrations table yet"}`);
  const when = (d: Date | null) => (d ? d.toISOString() : "");
  const width = Math.max(0, ...s.migrations.map((m) => m.name.length));
  for (const m of s.migrations) {
    const note =
      m.state === "applied" ? when(m.finishedAt)
      : m.state === "failed" ? `started ${when(m.startedAt)}`
      : m.state === "modified" ? `applied ${when(m.finishedAt)}, file changed since`
      : "";
    print(`  ${m.state.padEnd(8)} ${m.name.padEnd(width)}  ${[note, m.local ? "" : "not in this checkout"].filter(Boolean).join("; ")}`.trimEnd());
  }
  const failed = s.migrations.filter((m) => m.state === "failed");
  for (const m of failed) {
    if (m.logs?.trim()) print(`\n${m.name} failed with:\n${m.logs.trim()}`);
  }
  if (failed.length > 0) {
    const n = failed[0].name;
    print(`\nResolve a failed migration before migrating again:\n  undone (or a transactional one, which rolled back): npm run migrate -- resolve --rolled-back ${n}\n  completed by hand: npm run migrate -- resolve --applied ${n}`);
  }
  if (s.migrations.some((m) => m.state === "modified")) print("\nA modified migration must be restored as it was applied; changes go in a new migration.");
  if (s.upToDate) print("\ndatabase schema is up to date");
  else if (failed.length === 0 && s.migrations.some((m) => m.state === "pending")) print("\npending migrations: run npm run migrate");
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
