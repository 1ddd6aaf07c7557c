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

Against a running server (--url URL or INDEXWRIGHT_URL; --token TOKEN or INDEXWRIGHT_TOKEN; --json for JSON output):
  publish --tenant T --key K --file F [--title T] [--content-type CT] [--acl P,Q] [--priority interactive|bulk] [--wait] [--timeout S]
                                          Markdown, text, HTML, PDF or DOCX; the type from the file's extension.
                                          no --acl: the document keeps its ACL; --acl "": open to the whole tenant
                                          --wait: until SEARCHABLE (exit 0), FAILED or held on an older version by a pin
                                          or a force-done (exit 1); exit 2 after --timeout (600 s)
  sync DIR --tenant T [--prefix P] [--dry-run] [--wait] [--concurrency N] [--priority bulk|interactive]
                                          publish new and changed files (bulk: what people publish meanwhile goes first),
                                          delete documents whose file is gone;
                                          key = path relative to DIR ("/" as "."), change = content checksum
  search --tenant T [--top-k N] [--mode vector|text|hybrid] [--principal P]... WORDS
  status [--tenant T --key K]             a document's state, or the overview
  tasks list [--status S] [--tenant T] [--type T] [--error-code C] [--limit N] [--cursor C]
  tasks retry ID... [--reason R]          retry DEAD tasks; or --dead [--tenant T] [--type T] [--error-code C] for all matching
  delete --tenant T --key K [--wait]
  reindex --tenant T --key K [--wait]
  rollback --tenant T --key K --to-version N --reason R
  spaces list                             index spaces: provider, model, dimensions, tenants searching each
  spaces create --name N --provider local|openai --dimensions D [--model M] [--base-url U] [--api-key-env VAR]
                [--chunk-target-chars C] [--texts-per-minute R] [--price-per-million-tokens P]
                                          one probe call first; VAR is the NAME of the variable holding the key
  spaces set --name N [--texts-per-minute R] [--price-per-million-tokens P] [--base-url U] [--api-key-env VAR]
  spaces retire --name N [--reason R]
  migration start --tenant T --space S [--auto-switch] [--reason R]
                                          build the tenant's documents into space S; search keeps its space until the switch
  migration start --all-tenants --space S [--from F]   one migration per tenant on F (every tenant not on S)
  migration status|switch|switch-back|abort|finish --tenant T [--id N]   the tenant's open (or latest) migration
  eval-set push FILE --tenant T          the tenant's golden query set, a new version (JSON, or JSONL: one query a line)
  eval-set show --tenant T
  eval run --tenant T [--space S] [--mode M] [--top-k N] [--wait]   evaluate the set (default: active space, hybrid)
  eval list|show [ID] --tenant T          runs with recall@10, MRR@10, nDCG@10; one run's misses, each diagnosed
  why --tenant T --key K [--mode M] [--principal P]... QUESTION   why a document is not in the question's results
  token rotate-bootstrap [--print]        a new bootstrap token (all-tenant admins); replaces the data directory's
                                          bootstrap-token file when start keeps one there; the old token and its sessions stop
  token revoke-bootstrap                  no bootstrap token signs in any more, until a rotation by another admin token
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
      const { setEnv, setting } = await import("../lib/config");
      if (setting("INDEXWRIGHT_PROCESS") === undefined) setEnv("INDEXWRIGHT_PROCESS", "worker");
      const { runWorker } = await import("../worker/main");
      return runWorker(rest);
    }
    case "migrate":
      return migrateCmd(rest);
    case "config":
      return configCmd(rest, loadEnvFiles());
    case "publish":
    case "sync":
    case "search":
    case "status":
    case "tasks":
    case "delete":
    case "reindex":
    case "rollback":
    case "spaces":
    case "migration":
    case "eval-set":
    case "eval":
    case "why":
    case "token": {
      const remote = await import("./remote");
      const { tokenCmd } = await import("./token");
      const { spacesCmd, migrationCmd } = await import("./spaces");
      const { evalSetCmd, evalCmd, whyCmd } = await import("./evaluation");
      const run = {
        publish: remote.publishCmd,
        sync: remote.syncCmd,
        search: remote.searchCmd,
        status: remote.statusCmd,
        tasks: remote.tasksCmd,
        delete: remote.deleteCmd,
        reindex: remote.reindexCmd,
        rollback: remote.rollbackCmd,
        spaces: spacesCmd,
        migration: migrationCmd,
        "eval-set": evalSetCmd,
        eval: evalCmd,
        why: whyCmd,
        token: tokenCmd,
      }[cmd];
      try {
        return await run(rest);
      } catch (err) {
        process.exitCode = remote.reportError(err, rest.includes("--json"));
        return;
      }
    }
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
  print(
    files.length
      ? `.env files read (first wins; the environment wins over all): ${files.join(", ")}`
      : "no .env files read",
  );
  for (const [k, v] of Object.entries(settings))
    print(`  ${k} = ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v ?? "")}`);
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
      const { values } = parseArgs({
        args,
        options: { applied: { type: "string" }, "rolled-back": { type: "string" } },
      });
      const applied = values.applied;
      const rolledBack = values["rolled-back"];
      if (!applied === !rolledBack)
        throw new Error("migrate resolve needs exactly one of --applied NAME or --rolled-back NAME");
      await resolveMigration(databaseUrl(), applied ? { applied } : { rolledBack: rolledBack! });
      print(
        applied
          ? `migration ${applied} marked as applied`
          : `migration ${rolledBack} marked as rolled back; the next migrate applies it`,
      );
      return;
    }
    default:
      throw new Error(`unknown migrate command: ${sub} (deploy, status or resolve)`);
  }
}

function printStatus(s: import("../lib/db/migrate").MigrationStatus): void {
  const local = s.migrations.filter((m) => m.local);
  print(
    `${local.length} migration(s) in prisma/migrations${s.hasTable ? "" : "; the database has no migrations table yet"}`,
  );
  const when = (d: Date | null) => (d ? d.toISOString() : "");
  const width = Math.max(0, ...s.migrations.map((m) => m.name.length));
  for (const m of s.migrations) {
    const note =
      m.state === "applied"
        ? when(m.finishedAt)
        : m.state === "failed"
          ? `started ${when(m.startedAt)}`
          : m.state === "modified"
            ? `applied ${when(m.finishedAt)}, file changed since`
            : "";
    print(
      `  ${m.state.padEnd(8)} ${m.name.padEnd(width)}  ${[note, m.local ? "" : "not in this checkout"].filter(Boolean).join("; ")}`.trimEnd(),
    );
  }
  const failed = s.migrations.filter((m) => m.state === "failed");
  for (const m of failed) {
    if (m.logs?.trim()) print(`\n${m.name} failed with:\n${m.logs.trim()}`);
  }
  if (failed.length > 0) {
    const n = failed[0].name;
    print(
      `\nResolve a failed migration before migrating again:\n  undone (or a transactional one, which rolled back): npm run migrate -- resolve --rolled-back ${n}\n  completed by hand: npm run migrate -- resolve --applied ${n}`,
    );
  }
  if (s.migrations.some((m) => m.state === "modified"))
    print("\nA modified migration must be restored as it was applied; changes go in a new migration.");
  if (s.upToDate) print("\ndatabase schema is up to date");
  else if (failed.length === 0 && s.migrations.some((m) => m.state === "pending"))
    print("\npending migrations: run npm run migrate");
}

main().catch((err) => {
  printError(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
