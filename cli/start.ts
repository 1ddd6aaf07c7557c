import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync, readdirSync, statSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { checkSettings } from "./settings";
import { environment, setting } from "../lib/config";
import { migrate } from "../lib/db/migrate";
import { requirePgvector } from "../lib/db/pgvector";
import { loadEnvFiles } from "../lib/env-files";
import { startEmbedded, type EmbeddedDb } from "../lib/db/embedded";
import { seedDemo } from "../lib/demo";
import { upsertAdmin, hasUser, DEFAULT_ADMIN_EMAIL } from "../lib/auth/users";
import { generatePassword } from "../lib/auth/password";
import pg from "pg";
import { log } from "../lib/log";
import { print } from "./print";
import { bootstrapTokenLine, fileSecret, keepPrivate, writeSecret } from "./secrets";

const ROOT = process.cwd();
// The launcher's progress is logged like the worker's and the web server's; what a person reads to
// get in (the URL, the sign-in, the token) is printed as plain lines (cli/print.ts).
const say = (m: string) => log.info(m);
const display = (p: string) => (p.startsWith(ROOT + path.sep) ? path.relative(ROOT, p) : p);

// Data-dir lock: two embedded servers on one PGlite directory would corrupt it.
function takeLock(dir: string): () => void {
  const file = path.join(dir, "indexwright.pid");
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, "utf8"));
    let alive = false;
    try {
      if (pid > 0) {
        process.kill(pid, 0);
        alive = true;
      }
    } catch {
      alive = false;
    }
    if (alive && pid !== process.pid)
      throw new Error(`another Indexwright (pid ${pid}) is using ${dir}; stop it first`);
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

/** Fingerprint of what the production build is made from, to rebuild only when it changed. */
function sourceStamp(): string {
  const h = createHash("sha256");
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name === "node_modules" || e.name === "generated" || e.name.startsWith(".")) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else h.update(`${p}:${statSync(p).size}:${statSync(p).mtimeMs}\n`);
    }
  };
  for (const d of ["app", "components", "lib", "public"]) walk(path.join(ROOT, d));
  for (const f of ["next.config.mjs", "package.json", "tsconfig.json"])
    if (existsSync(f)) h.update(`${f}:${statSync(f).mtimeMs}\n`);
  return h.digest("hex");
}

function ensureBuild(): void {
  const stampFile = path.join(ROOT, ".next", "indexwright-stamp");
  const stamp = sourceStamp();
  if (
    existsSync(path.join(ROOT, ".next", "BUILD_ID")) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8") === stamp
  )
    return;
  say("building the dashboard (first run or sources changed; this takes a minute)…");
  const r = spawnSync(process.execPath, [path.join(ROOT, "node_modules", "next", "dist", "bin", "next"), "build"], {
    stdio: "inherit",
    env: { ...environment(), NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (r.status !== 0) throw new Error("next build failed");
  writeFileSync(stampFile, stamp);
}

export async function start(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { demo: { type: "boolean" } } });
  // Already loaded by cli/main.ts; asked again (a no-op) to say which files were read.
  const envFiles = loadEnvFiles();
  if (envFiles.length > 0) say(`settings from ${envFiles.join(", ")} (variables set in the environment win)`);
  // Bad and contradictory settings stop start-up here, naming the variables (cli/settings.ts).
  const { cfg, sso, embedding } = checkSettings();
  say(
    `embeddings: ${embedding.provider} ${embedding.model}, ${embedding.dimensions} dimensions (indexed as ${embedding.indexedAs})`,
  );
  const dataDir = path.resolve(cfg.INDEXWRIGHT_DATA_DIR);
  mkdirSync(dataDir, { recursive: true });

  let embedded: EmbeddedDb | null = null;
  let releaseLock: (() => void) | null = null;
  let url = setting("DATABASE_URL");
  if (!url) {
    releaseLock = takeLock(dataDir);
    const port = Number(setting("EMBEDDED_DB_PORT") ?? 54329);
    say(`starting embedded PostgreSQL (PGlite + pgvector), data in ${display(path.join(dataDir, "pgdata"))}`);
    // Kept beside the data (0600), so the database asks every client for it, this process's included.
    const password = fileSecret(dataDir, "db-password", 24).value;
    embedded = await startEmbedded({ dataDir: path.join(dataDir, "pgdata"), port, password });
    url = embedded.url;
  } else {
    // The embedded database ships a current pgvector; an external server may have none, or one too old.
    const v = await requirePgvector(url);
    say(`external database: pgvector ${v.installed ?? `${v.available} available`}`);
  }
  const r = await migrate(url, { log: (m) => say(m) });
  say(r.applied.length ? `applied ${r.applied.length} migration(s)` : "database schema is up to date");

  const tokenFile = cfg.INDEXWRIGHT_BOOTSTRAP_TOKEN ? null : fileSecret(dataDir, "bootstrap-token", 24);
  const token = cfg.INDEXWRIGHT_BOOTSTRAP_TOKEN ?? tokenFile!.value;
  const sessionSecret = cfg.INDEXWRIGHT_SESSION_SECRET ?? fileSecret(dataDir, "session-secret", 32).value;
  const childEnv: NodeJS.ProcessEnv = {
    ...environment(),
    DATABASE_URL: url,
    INDEXWRIGHT_BOOTSTRAP_TOKEN: token,
    INDEXWRIGHT_SESSION_SECRET: sessionSecret,
    INDEXWRIGHT_EMBEDDED: embedded ? "1" : "",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  const setup = new pg.Pool({ connectionString: url, max: 2 });
  const adminEmail = setting("INDEXWRIGHT_ADMIN_EMAIL") ?? DEFAULT_ADMIN_EMAIL;
  let adminNote: string;
  const adminPassword = setting("INDEXWRIGHT_ADMIN_PASSWORD");
  if (adminPassword) {
    const { disabled } = await upsertAdmin(setup, adminEmail, adminPassword);
    adminNote = `${adminEmail} (password from INDEXWRIGHT_ADMIN_PASSWORD)${disabled ? "; this account is disabled (an admin enables it under Admin → People)" : ""}`;
  } else if (!(await hasUser(setup, adminEmail))) {
    const password = generatePassword();
    await upsertAdmin(setup, adminEmail, password);
    writeSecret(path.join(dataDir, "admin-password"), password);
    adminNote = `${adminEmail} / ${password}  (shown once; also in ${display(path.join(dataDir, "admin-password"))})`;
  } else {
    adminNote = `${adminEmail} (password set earlier)`;
  }
  if (existsSync(path.join(dataDir, "admin-password"))) keepPrivate(path.join(dataDir, "admin-password"));
  // Rotated or revoked through the API since: the kept token no longer signs in, and start says so.
  const boot = (await setup.query<{ token_hash: string | null }>(`SELECT token_hash FROM bootstrap_token WHERE id`))
    .rows[0];
  const tokenStale = boot !== undefined && boot.token_hash !== createHash("sha256").update(token).digest("hex");
  if (values.demo || setting("INDEXWRIGHT_DEMO") === "1") {
    const n = await seedDemo(setup);
    say(
      n > 0 ? `demo: published ${n} sample versions in tenants acme and globex` : "demo: sample data already present",
    );
  }
  await setup.end();

  ensureBuild();

  let stopping = false;
  const children = new Set<ChildProcess>();
  const node = process.execPath;
  const launch = (name: string, args: string[], extraEnv: Record<string, string>, restart: boolean) => {
    const child = spawn(node, args, { stdio: "inherit", env: { ...childEnv, ...extraEnv } });
    children.add(child);
    child.on("exit", (code, signal) => {
      children.delete(child);
      if (stopping) return;
      // Ctrl-C reaches every process in the group at once, so a child may exit on that same
      // signal before our own handler runs: a clean or signalled exit is a shutdown, not a crash.
      const clean = code === 0 || signal === "SIGINT" || signal === "SIGTERM";
      if (restart && !clean) {
        say(`${name} exited (${signal ?? code}); restarting in 1 s`);
        setTimeout(() => !stopping && launch(name, args, extraEnv, restart), 1000);
      } else {
        say(`${name} exited (${signal ?? code}); shutting down`);
        void shutdown(clean ? 0 : 1);
      }
    });
    return child;
  };

  launch(
    "worker",
    [
      "--conditions=react-server",
      "--import",
      "tsx",
      path.join(ROOT, "cli", "main.ts"),
      "worker",
      "--concurrency",
      String(cfg.WORKER_CONCURRENCY),
      "--id",
      `embedded-${process.pid}`,
    ],
    { INDEXWRIGHT_PROCESS: "worker" },
    true,
  );
  // Next behind our own HTTP server (cli/web.ts), which decides the client address; without the
  // react-server condition the worker needs, as Next resolves React's server builds itself.
  launch(
    "dashboard",
    ["--import", "tsx", path.join(ROOT, "cli", "web.ts")],
    { INDEXWRIGHT_PROCESS: "web", NODE_ENV: "production" },
    false,
  );

  print(`dashboard: http://localhost:${cfg.PORT}`);
  print(`admin sign-in: ${adminNote}`);
  if (sso)
    print(
      `single sign-on: ${sso.displayName} (${sso.issuer})${sso.defaultRole ? `, new people join as ${sso.defaultRole}` : ", only people an admin added"}`,
    );
  print(
    tokenStale
      ? `admin token: ${boot!.token_hash ? "rotated" : "revoked"} through the API; the one ${tokenFile ? `in ${display(tokenFile.file)}` : "in INDEXWRIGHT_BOOTSTRAP_TOKEN"} no longer signs in`
      : bootstrapTokenLine(tokenFile ?? "configured", display),
  );

  async function shutdown(code: number): Promise<void> {
    if (stopping) return;
    stopping = true;
    say("shutting down…");
    for (const c of children) c.kill("SIGTERM");
    const deadline = Date.now() + (cfg.SHUTDOWN_GRACE_SECONDS + 10) * 1000;
    while (children.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const c of children) c.kill("SIGKILL");
    if (embedded) await embedded.stop();
    releaseLock?.();
    say("stopped");
    process.exit(code);
  }
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
}
