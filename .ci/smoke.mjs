// Smoke test of `npm start` on the embedded default, as a person would use it from a fresh clone:
// health → publish with the printed token → SEARCHABLE → search hit → restart → still searchable.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";

const PORT = 3217;
const BASE = `http://127.0.0.1:${PORT}`;
const DATA = `.indexwright/smoke-${Date.now()}`;
const results = { passed: 0, failed: 0, checks: [] };
const env = {
  ...process.env,
  PORT: String(PORT),
  INDEXWRIGHT_DATA_DIR: DATA,
  EMBEDDED_DB_PORT: "31461",
  POLL_INTERVAL_MS: "250",
};
delete env.DATABASE_URL;
delete env.INDEXWRIGHT_BOOTSTRAP_TOKEN;

function check(name, ok, detail = "") {
  results.checks.push({ name, ok, detail });
  if (ok) results.passed++;
  else results.failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
  if (!ok) throw new Error(`smoke check failed: ${name}`);
}

let server = null;
function start() {
  // Own process group, so stop() can send SIGINT to all of it, exactly like Ctrl-C in a terminal.
  const child = spawn("npm", ["start"], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
    process.stdout.write(d);
  });
  child.stderr.on("data", (d) => process.stderr.write(d));
  child.output = () => out;
  return child;
}
/** The launcher logged "stopped": a JSON log line (stdout is a pipe here), or a pretty one on a terminal. */
const saidStopped = (out) =>
  out
    .split("\n")
    .some(
      (line) => line.includes("[indexwright] stopped") || /^\{.*"svc":"indexwright".*"msg":"stopped"\}$/.test(line),
    );
/** Ctrl-C to the whole process group; resolves once Indexwright says it stopped (or not). */
async function stop(child) {
  if (!child) return "none";
  try {
    process.kill(-child.pid, "SIGINT");
  } catch {
    /* group already gone */
  }
  try {
    await waitFor(async () => saidStopped(child.output()), 60_000, "clean stop");
    return "stopped";
  } catch {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      /* gone */
    }
    return "killed";
  }
}
async function waitFor(fn, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch {
      /* not up yet */
    }
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
const api = (path, token, init = {}) =>
  fetch(BASE + path, {
    ...init,
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...init.headers,
    },
  });

const DOC = `# Smoke handbook\n\nThe lighthouse keeper winds the clockwork lamp every evening at dusk.\n\n## Storms\n\nDuring storms the keeper logs wind speed hourly in the blue ledger.\n`;

try {
  mkdirSync(".indexwright", { recursive: true });
  server = start();
  await waitFor(async () => (await fetch(`${BASE}/api/health`)).ok, 600_000, "health");
  const health = await (await fetch(`${BASE}/api/health`)).json();
  check("GET /api/health answers ok", health.ok === true);
  const token = readFileSync(`${DATA}/bootstrap-token`, "utf8").trim();
  check("start-up printed the admin token", server.output().includes(token));

  const unauth = await api("/api/v1/tenants/smoke/documents/handbook/versions", null, {
    method: "POST",
    body: JSON.stringify({ title: "x", contentType: "text/markdown", content: "x" }),
  });
  check("publish without a token is 401", unauth.status === 401);

  const t0 = Date.now();
  const pub = await api("/api/v1/tenants/smoke/documents/handbook/versions", token, {
    method: "POST",
    body: JSON.stringify({ title: "Smoke handbook", contentType: "text/markdown", content: DOC }),
  });
  check("publish Markdown is 202", pub.status === 202, JSON.stringify(await pub.clone().json()));
  const doc = await waitFor(
    async () => {
      const d = await (await api("/api/v1/tenants/smoke/documents/handbook", token)).json();
      return d.state === "SEARCHABLE" ? d : null;
    },
    60_000,
    "SEARCHABLE",
  );
  check("document reaches SEARCHABLE", doc.searchVersion === 1, `${Date.now() - t0} ms after publish`);

  const search = async () =>
    (
      await (
        await api("/api/v1/tenants/smoke/search", token, {
          method: "POST",
          body: JSON.stringify({ query: "keeper logs wind speed hourly in the blue ledger" }),
        })
      ).json()
    ).hits;
  const hits = await search();
  check(
    "search for a sentence returns the document first",
    hits[0]?.documentKey === "handbook" && hits[0].text.includes("blue ledger"),
    hits[0]?.sectionPath,
  );

  const code = await stop(server);
  check("Ctrl-C stops npm start cleanly", code === "stopped" && !existsSync(`${DATA}/indexwright.pid`), code);
  server = start();
  await waitFor(async () => (await fetch(`${BASE}/api/health`)).ok, 300_000, "health after restart");
  const again = await search();
  check("after a restart the document is still searchable", again[0]?.documentKey === "handbook");
  check(
    "a second start prints no token, and says where it is kept",
    !server.output().includes(token) && server.output().includes("admin token: kept in"),
  );
  check(
    "secret files are 0600",
    ["bootstrap-token", "session-secret", "admin-password", "db-password"].every(
      (f) => (statSync(`${DATA}/${f}`).mode & 0o777) === 0o600,
    ),
  );
  const code2 = await stop(server);
  check("second stop is clean too", code2 === "stopped", code2);
  server = null;
} catch (err) {
  console.error(err);
  results.failed += results.checks.every((c) => c.ok) ? 1 : 0;
  process.exitCode = 1;
} finally {
  await stop(server);
  mkdirSync("reports", { recursive: true });
  writeFileSync("reports/smoke.json", JSON.stringify(results, null, 2));
  rmSync(DATA, { recursive: true, force: true });
  console.log(`smoke: ${results.passed} passed, ${results.failed} failed`);
}
