import { afterAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createTestDb } from "../helpers/db";
import { waitFor } from "../helpers/worker";

// The CLI and the worker share cli/main.ts, which loads the .env files before anything reads a
// setting. Each case runs `indexwright config --json` as a real process in a temp directory with a
// bare environment, and reads back what it saw.
const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "iw-env-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** A bare environment: no NODE_ENV (which Next's types call always present), as under `npm start`. */
const bare = (env: Record<string, string>) =>
  ({ PATH: process.env.PATH ?? "", ...env }) as unknown as NodeJS.ProcessEnv;

type Seen = {
  files: string[];
  settings: Record<string, unknown> & {
    embedding: { provider: string; model: string; dimensions: number; indexedAs: string };
  };
};

function configIn(
  dir: string,
  env: Record<string, string> = {},
): { code: number | null; seen: Seen | null; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ["--conditions=react-server", "--import", TSX, path.join(ROOT, "cli/main.ts"), "config", "--json"],
    {
      cwd: dir,
      env: bare(env),
      encoding: "utf8",
      timeout: 30_000,
    },
  );
  return { code: r.status, seen: r.status === 0 ? (JSON.parse(r.stdout) as Seen) : null, stderr: r.stderr };
}

describe(".env files", () => {
  it("EMBEDDING_PROVIDER=openai in .env reaches the CLI and the worker, not only the web process", () => {
    const dir = project({ ".env": "EMBEDDING_PROVIDER=openai\nOPENAI_API_KEY=sk-test-0000\n" });
    const { code, seen, stderr } = configIn(dir);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(seen!.files).toEqual([".env"]);
    expect(seen!.settings.embedding).toEqual({
      provider: "openai",
      model: "text-embedding-3-small",
      dimensions: 1536,
      indexedAs: "vector",
    });
    expect(seen!.settings.OPENAI_API_KEY).toBe("(set)");
    // The web process reads them with Next's copy of the loader: the very same module.
    const fromNext = createRequire(createRequire(path.join(ROOT, "package.json")).resolve("next/package.json")).resolve(
      "@next/env",
    );
    expect(fromNext).toBe(createRequire(path.join(ROOT, "package.json")).resolve("@next/env"));
  });

  it("a worker started next to such a .env embeds with the provider it names (and connects to the DATABASE_URL it names)", async () => {
    const t = await createTestDb();
    const dir = project({
      ".env": `DATABASE_URL=${t.url}\nEMBEDDING_PROVIDER=openai\nOPENAI_API_KEY=sk-test-0000\nEMBEDDING_DIMENSIONS=1024\n`,
    });
    const child = spawn(
      process.execPath,
      ["--conditions=react-server", "--import", TSX, path.join(ROOT, "cli/main.ts"), "worker", "--id", "env-files"],
      {
        cwd: dir,
        env: bare({ LOG_LEVEL: "info" }),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    try {
      // On start the worker registers its settings as the default index space, with its HNSW index:
      // openai at 1024 dimensions from .env, not the local embedder's 384.
      await waitFor(
        async () =>
          (
            await t.pool.query(
              `SELECT 1 FROM embedding_spaces s JOIN pg_indexes i ON i.indexname = 'chunk_vectors_space_' || s.id || '_hnsw'
                WHERE s.is_default AND s.provider = 'openai' AND s.dimensions = 1024 AND s.api_key_env = 'OPENAI_API_KEY'`,
            )
          ).rowCount === 1,
        30_000,
        100,
      ).catch((err) => {
        throw new Error(`${(err as Error).message}; worker output:\n${out}`);
      });
      await waitFor(async () => out.includes("worker started"), 10_000);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      await t.close();
    }
  });

  it("follows next start's order: .env.production.local, .env.local, .env.production, .env; the environment wins over all", () => {
    const dir = project({
      ".env.production.local": "PORT=4001\n",
      ".env.local": "PORT=4002\nLEASE_SECONDS=41\n",
      ".env.production": "PORT=4003\nLEASE_SECONDS=42\nMAX_ATTEMPTS=3\n",
      ".env": "PORT=4004\nLEASE_SECONDS=44\nMAX_ATTEMPTS=4\nWORKER_CONCURRENCY=5\nLOG_LEVEL=warn\n",
      ".env.development": "WORKER_CONCURRENCY=9\n",
    });
    const { seen } = configIn(dir, { LOG_LEVEL: "debug" });
    expect(seen!.files).toEqual([".env.production.local", ".env.local", ".env.production", ".env"]);
    expect(seen!.settings).toMatchObject({
      PORT: 4001,
      LEASE_SECONDS: 41,
      MAX_ATTEMPTS: 3,
      WORKER_CONCURRENCY: 5,
      LOG_LEVEL: "debug",
    });
  });

  it("reads the development files under NODE_ENV=development, and skips .env.local under NODE_ENV=test, as Next does", () => {
    const dir = project({
      ".env.local": "PORT=4002\n",
      ".env.development": "PORT=4005\nWORKER_CONCURRENCY=9\n",
      ".env.test": "WORKER_CONCURRENCY=7\n",
      ".env": "PORT=4004\n",
    });
    expect(configIn(dir, { NODE_ENV: "development" }).seen!.settings).toMatchObject({
      PORT: 4002,
      WORKER_CONCURRENCY: 9,
    });
    const test = configIn(dir, { NODE_ENV: "test" }).seen!;
    expect(test.files).toEqual([".env.test", ".env"]);
    expect(test.settings).toMatchObject({ PORT: 4004, WORKER_CONCURRENCY: 7 });
  });

  it("expands references, from the environment or other lines", () => {
    const dir = project({
      ".env":
        "EMBEDDING_PROVIDER=openai\nOPENAI_API_KEY=sk-test\nOPENAI_BASE_URL=http://${PROVIDER_HOST}:${PROVIDER_PORT}/v1\nPROVIDER_PORT=8080\n",
    });
    expect(configIn(dir, { PROVIDER_HOST: "embedder.internal" }).seen!.settings.OPENAI_BASE_URL).toBe(
      "http://embedder.internal:8080/v1",
    );
  });

  it("a process npm start launched takes the settings passed down and reads no file again", () => {
    const dir = project({ ".env": "PORT=4004\nWORKER_CONCURRENCY=5\n" });
    const { seen } = configIn(dir, { __NEXT_PROCESSED_ENV: "true", PORT: "3001" });
    expect(seen!.settings).toMatchObject({ PORT: 3001, WORKER_CONCURRENCY: 2 });
  });

  it("a contradiction written in a file is refused by name, as npm start refuses it", () => {
    const dir = project({ ".env.local": "RETRY_BASE_SECONDS=600\n" });
    const { code, stderr } = configIn(dir);
    expect(code).toBe(1);
    expect(stderr).toContain("invalid configuration: RETRY_BASE_SECONDS (600) must not exceed RETRY_MAX_SECONDS (300)");
  });
});
