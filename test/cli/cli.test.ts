import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDb, type TestDb } from "../helpers/db";
import { makePdf } from "../helpers/make-pdf";
import { makeDocx } from "../helpers/make-docx";
import type { ApiServer } from "./api-server";
import type { Worker } from "../../worker/loop";

// The CLI's remote commands, run as a user runs them (bin/indexwright.mjs in a child process)
// against a real HTTP server on a real database, with a worker building the indexes.

const BOOT = "cli-test-bootstrap-token-0123456789";
const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(ROOT, "bin/indexwright.mjs");

let t: TestDb;
let server: ApiServer;
let worker: Worker | null = null;
let work: string;

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs the CLI from an empty folder (no .env files), against the test server. */
function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      INDEXWRIGHT_URL: server.url,
      INDEXWRIGHT_TOKEN: BOOT,
      LOG_LEVEL: "silent",
    } as unknown as NodeJS.ProcessEnv;
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const json = <T = any>(r: Run): T => {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\nstderr: ${r.stderr}`);
  }
};

async function startWorker() {
  const { testWorker } = await import("../helpers/worker");
  worker = testWorker(t, "cli-test");
  await worker.start();
}

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.INDEXWRIGHT_SESSION_SECRET = "cli-test-session-secret";
  process.env.LOG_LEVEL = "silent";
  work = mkdtempSync(path.join(tmpdir(), "iw-cli-"));
  const { startApiServer } = await import("./api-server");
  server = await startApiServer();
});

afterAll(async () => {
  await worker?.stop(5_000);
  await server?.close();
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("publish --wait", () => {
  it("exits 2 when the document is not searchable within --timeout (no worker runs yet), with a line per state off a terminal", async () => {
    writeFileSync(path.join(work, "slow.md"), "# Slow\n\nNobody indexes this yet.");
    const r = await cli(
      "publish",
      "--tenant",
      "acme",
      "--key",
      "slow",
      "--file",
      path.join(work, "slow.md"),
      "--wait",
      "--timeout",
      "1.5",
      "--json",
    );
    expect(r.code, r.stderr).toBe(2);
    expect(json(r).wait.outcome).toBe("timeout");
    expect(r.stderr).toContain("acme/slow: INDEXING");
    expect(r.stderr).not.toContain("\r");
  });

  it("publishes a PDF and a DOCX as binary, typed by extension, and exits 0 once each is searchable", async () => {
    await startWorker();
    writeFileSync(path.join(work, "manual.pdf"), makePdf([["Lighthouse keepers trim the wick at dusk."]]));
    writeFileSync(path.join(work, "memo.docx"), makeDocx(["Harbour fees rise in spring."]));
    for (const [key, file, type] of [
      ["manual", "manual.pdf", "application/pdf"],
      ["memo", "memo.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
    ]) {
      const r = await cli(
        "publish",
        "--tenant",
        "acme",
        "--key",
        key,
        "--file",
        path.join(work, file),
        "--wait",
        "--json",
      );
      expect(r.code, r.stderr).toBe(0);
      expect(json(r)).toMatchObject({
        versionNumber: 1,
        state: "INDEXING",
        wait: { outcome: "searchable", state: "SEARCHABLE" },
      });
      const s = json(await cli("status", "--tenant", "acme", "--key", key, "--json"));
      expect(s.versions[0].contentType).toBe(type);
    }
    const hits = json(await cli("search", "--tenant", "acme", "--json", "wick", "at", "dusk"));
    expect(hits.hits[0].documentKey).toBe("manual");
    const text = json(await cli("search", "--tenant", "acme", "--mode", "text", "--json", "lighthouse", "keepers"));
    expect(text.hits[0].documentKey).toBe("manual");
    const human = await cli("search", "--tenant", "acme", "harbour", "fees");
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^1\. memo v1 /);
  }, 120_000);

  it("exits 1 when indexing fails, naming the error", async () => {
    writeFileSync(path.join(work, "broken.pdf"), "%PDF-1.4 this is not really a PDF");
    const r = await cli(
      "publish",
      "--tenant",
      "acme",
      "--key",
      "broken",
      "--file",
      path.join(work, "broken.pdf"),
      "--wait",
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/failed: [A-Z_]+/);
  });
});

describe("sync DIR", () => {
  it("publishes new files, does nothing the second time, and publishes changes and deletes what is gone", async () => {
    const dir = path.join(work, "kb");
    mkdirSync(path.join(dir, "Guides"), { recursive: true });
    mkdirSync(path.join(dir, ".git"), { recursive: true });
    writeFileSync(path.join(dir, "intro.md"), "# Intro\n\nWelcome to the knowledge base.");
    writeFileSync(path.join(dir, "Guides", "Night Shift.txt"), "The night shift checks the lamps every hour.");
    writeFileSync(path.join(dir, "Guides", "fees.pdf"), makePdf([["Mooring costs twelve crowns a night."]]));
    writeFileSync(path.join(dir, "logo.png"), "not a document");
    writeFileSync(path.join(dir, ".git", "config.txt"), "hidden");
    const sync = (...more: string[]) => cli("sync", dir, "--tenant", "kb", "--json", ...more);

    const dry = await sync("--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(json(dry).plan).toEqual({
      publish: [
        { key: "guides.fees.pdf", file: path.join("Guides", "fees.pdf"), reason: "new" },
        { key: "guides.night-shift.txt", file: path.join("Guides", "Night Shift.txt"), reason: "new" },
        { key: "intro.md", file: "intro.md", reason: "new" },
      ],
      delete: [],
      unchanged: [],
    });
    expect(json(dry).skipped).toEqual(["logo.png"]);
    expect(json(await cli("tasks", "list", "--tenant", "kb", "--json")).items).toEqual([]); // a dry run sends nothing

    const first = await sync("--wait");
    expect(first.code, first.stderr).toBe(0);
    expect(json(first).wait).toEqual({
      "guides.fees.pdf": "searchable",
      "guides.night-shift.txt": "searchable",
      "intro.md": "searchable",
    });

    const again = await sync();
    expect(again.code, again.stderr).toBe(0);
    expect(json(again).plan).toEqual({
      publish: [],
      delete: [],
      unchanged: ["guides.fees.pdf", "guides.night-shift.txt", "intro.md"],
    });
    expect(json(again).done).toEqual([]);
    const tasks = json(await cli("tasks", "list", "--tenant", "kb", "--json")).items;
    expect(tasks).toHaveLength(3); // the second run queued nothing

    writeFileSync(path.join(dir, "intro.md"), "# Intro\n\nWelcome to the revised knowledge base.");
    unlinkSync(path.join(dir, "Guides", "Night Shift.txt"));
    const third = await sync("--wait");
    expect(third.code, third.stderr).toBe(0);
    expect(json(third).plan).toEqual({
      publish: [{ key: "intro.md", file: "intro.md", reason: "changed" }],
      delete: [{ key: "guides.night-shift.txt", reason: "missing-locally" }],
      unchanged: ["guides.fees.pdf"],
    });
    expect(json(third).wait).toEqual({ "intro.md": "searchable", "guides.night-shift.txt": "deleted" });
    expect(json(await cli("status", "--tenant", "kb", "--key", "guides.night-shift.txt", "--json")).state).toBe(
      "DELETED",
    );
    expect(json(await cli("status", "--tenant", "kb", "--key", "intro.md", "--json")).searchVersion).toBe(2);

    const fourth = await sync();
    expect(json(fourth).plan).toEqual({ publish: [], delete: [], unchanged: ["guides.fees.pdf", "intro.md"] });
    const human = await cli("sync", dir, "--tenant", "kb", "--dry-run");
    expect(human.stdout).toContain("0 to publish, 0 to delete, 2 unchanged, 1 file(s) of other types skipped");
  }, 180_000);
});

describe("operations", () => {
  it("tasks list and retry, reindex, rollback and delete, with --json", async () => {
    writeFileSync(path.join(work, "ops.md"), "# Ops\n\nFirst words.");
    expect(
      (await cli("publish", "--tenant", "ops", "--key", "doc", "--file", path.join(work, "ops.md"), "--wait")).code,
    ).toBe(0);
    writeFileSync(path.join(work, "ops.md"), "# Ops\n\nSecond words.");
    const v2 = await cli(
      "publish",
      "--tenant",
      "ops",
      "--key",
      "doc",
      "--file",
      path.join(work, "ops.md"),
      "--wait",
      "--json",
    );
    expect(json(v2)).toMatchObject({ versionNumber: 2, wait: { outcome: "searchable" } });

    const rollback = await cli(
      "rollback",
      "--tenant",
      "ops",
      "--key",
      "doc",
      "--to-version",
      "1",
      "--reason",
      "the second words were wrong",
      "--json",
    );
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(json(rollback)).toEqual({ tenant: "ops", key: "doc", searchVersion: 1, pinned: true });

    const reindex = await cli("reindex", "--tenant", "ops", "--key", "doc", "--wait", "--json");
    expect(reindex.code, reindex.stderr).toBe(0);
    expect(json(reindex).wait.outcome).toBe("searchable");

    // A DEAD task to retry: failed by hand, as if its provider had kept timing out.
    const list = json(await cli("tasks", "list", "--tenant", "ops", "--json"));
    const taskId = list.items.find((x: { status: string }) => x.status === "SUCCEEDED").taskId as string;
    await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', error_code = 'EMBEDDING_TIMEOUT' WHERE task_id = $1`, [
      taskId,
    ]);
    const dead = json(await cli("tasks", "list", "--status", "DEAD", "--tenant", "ops", "--json"));
    expect(dead.items.map((x: { taskId: string }) => x.taskId)).toEqual([taskId]);
    const human = await cli("tasks", "list", "--status", "DEAD", "--tenant", "ops");
    expect(human.stdout).toContain("EMBEDDING_TIMEOUT");
    const retry = await cli("tasks", "retry", taskId, "--reason", "provider is back", "--json");
    expect(retry.code, retry.stderr).toBe(0);
    expect(json(retry).taskId).toBe(taskId);

    const del = await cli("delete", "--tenant", "ops", "--key", "doc", "--wait", "--json");
    expect(del.code, del.stderr).toBe(0);
    expect(json(del).wait.outcome).toBe("deleted");
  }, 180_000);

  it("an API error is its code and message (JSON on stderr under --json), exit 1; a usage mistake exits 2", async () => {
    const r = await cli(
      "rollback",
      "--tenant",
      "ops",
      "--key",
      "absent",
      "--to-version",
      "1",
      "--reason",
      "no such document",
      "--json",
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { status: 404, code: "NOT_FOUND", message: "document ops/absent not found" },
    });
    const human = await cli("tasks", "retry", "999999");
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/^NOT_FOUND: task 999999 not found/);
    const bad = await cli("publish", "--tenant", "acme", "--file", "x.md");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("publish needs --key");
    const unknown = await cli("search", "--tenant", "acme", "--nope", "x");
    expect(unknown.code).toBe(2);
    const badToken = await cli("status", "--token", "wrong-token");
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toMatch(/^UNAUTHORIZED: /);
  });
});
