import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { createTestDb, onRealPostgres, type TestDb, extraPool } from "../helpers/db";

// The data layer's boundaries, read from the source: Prisma Client only in lib/**/repository.ts,
// never reachable from the worker or the task engine, and route handlers that reach the database
// through repositories rather than pg. Plus, at run time, one pg pool under both.

const ROOT = path.resolve(import.meta.dirname, "../..");
const rel = (f: string) => path.relative(ROOT, f).split(path.sep).join("/");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) {
        if (name !== "generated" && name !== "node_modules") walk(p);
      } else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
    }
  };
  walk(path.join(ROOT, dir));
  return out;
}

/** Every module specifier a file imports or re-exports, static or dynamic (TypeScript's own scanner). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** A specifier resolved to a project file (relative or the "@/" alias), or null for a package. */
function resolve(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(ROOT, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const c of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")])
    if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

const PRISMA = (spec: string) => spec.startsWith("@prisma/") || /(^|\/)generated\/prisma(\/|$)/.test(spec);

/** Files reachable from `start` through project imports, with the import chain that reached each. */
function reachable(start: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[start, [rel(start)]]]);
  const queue = [start];
  while (queue.length) {
    const f = queue.shift()!;
    for (const spec of importsOf(f)) {
      const to = resolve(f, spec);
      if (to && !seen.has(to)) {
        seen.set(to, [...seen.get(f)!, rel(to)]);
        queue.push(to);
      }
    }
  }
  return seen;
}

describe("layering", () => {
  it("only files named repository.ts under lib/ import the Prisma client", () => {
    const offenders = sourceFiles("lib")
      .filter((f) => importsOf(f).some(PRISMA))
      .map(rel)
      .filter((f) => path.basename(f) !== "repository.ts");
    expect(offenders).toEqual([]);
  });

  it("nor do they reach it through lib/db/repository.ts, which hands out the client", () => {
    // lib/db/repository.ts re-exports the client (`prisma`, `Prisma`, `transaction`), so a module
    // that imports it queries through Prisma as surely as one that imports @prisma/client.
    const gateway = path.join(ROOT, "lib/db/repository.ts");
    // Known to still query there; each entry goes once its reads move into its folder's repository.
    const pending: string[] = [];
    const offenders = sourceFiles("lib")
      .filter((f) => path.basename(f) !== "repository.ts" && importsOf(f).some((s) => resolve(f, s) === gateway))
      .map(rel);
    expect(offenders.filter((f) => !pending.includes(f))).toEqual([]);
    // An entry that no longer offends is stale: drop it so the file cannot slip back unnoticed.
    expect(pending.filter((f) => !offenders.includes(f))).toEqual([]);
  });

  it("every dashboard repository queries through Prisma", () => {
    const repos = sourceFiles("lib").filter((f) => path.basename(f) === "repository.ts");
    expect(repos.map(rel)).toEqual(
      expect.arrayContaining([
        "lib/operations/repository.ts",
        "lib/documents/repository.ts",
        "lib/admin/repository.ts",
        "lib/audit/repository.ts",
        "lib/tenants/repository.ts",
      ]),
    );
    const without = repos
      .filter((f) => !importsOf(f).some((s) => PRISMA(s) || resolve(f, s) === path.join(ROOT, "lib/db/repository.ts")))
      .map(rel);
    expect(without).toEqual([]);
  });

  it("worker/ and lib/queue/ never reach Prisma, not even through another module", () => {
    const starts = [...sourceFiles("worker"), ...sourceFiles("lib/queue")];
    expect(starts.length).toBeGreaterThan(3);
    const leaks: string[] = [];
    for (const start of starts) {
      for (const [file, chain] of reachable(start)) {
        const prismaImport = importsOf(file).find(PRISMA);
        if (prismaImport || path.basename(file) === "repository.ts")
          leaks.push(`${chain.join(" -> ")}${prismaImport ? ` -> ${prismaImport}` : ""}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it("route handlers reach the database through repositories, never pg directly", () => {
    const routes = sourceFiles("app/api").filter((f) => path.basename(f) === "route.ts");
    expect(routes.length).toBeGreaterThan(20);
    const raw = ["lib/db/pool.ts"].map((f) => path.join(ROOT, f));
    const offenders: string[] = [];
    for (const f of routes) {
      for (const spec of importsOf(f)) {
        if (spec === "pg" || spec.startsWith("pg/") || spec === "pg-pool" || spec === "postgres")
          offenders.push(`${rel(f)} imports ${spec}`);
        if (PRISMA(spec)) offenders.push(`${rel(f)} imports ${spec} (Prisma belongs in repositories)`);
        const to = resolve(f, spec);
        if (to && raw.includes(to)) offenders.push(`${rel(f)} imports ${rel(to)} instead of a repository`);
      }
      // A query on the pool itself, e.g. db().query(...), is pg used directly.
      if (/\.query\s*\(/.test(readFileSync(f, "utf8"))) offenders.push(`${rel(f)} runs SQL itself`);
    }
    expect(offenders).toEqual([]);
  });

  it("domain modules never import lib/http/: they refuse with a code, and the edge picks the status", () => {
    const domain = [
      "documents",
      "operations",
      "admin",
      "webhooks",
      "search",
      "evaluation",
      "spaces",
      "tenants",
      "queue",
      "pipeline",
      "reconcile",
      "embedding",
      "db",
    ].flatMap((d) => sourceFiles(`lib/${d}`));
    const http = path.join(ROOT, "lib/http") + path.sep;
    const offenders = domain.flatMap((f) =>
      importsOf(f)
        .map((spec) => resolve(f, spec))
        .filter((to) => to?.startsWith(http))
        .map((to) => `${rel(f)} imports ${rel(to!)}`),
    );
    expect(offenders).toEqual([]);
    // Not vacuous: the repositories that refuse do import the domain's error.
    expect(
      importsOf(path.join(ROOT, "lib/documents/repository.ts")).map((s) =>
        resolve(path.join(ROOT, "lib/documents/repository.ts"), s),
      ),
    ).toContain(path.join(ROOT, "lib/domain/errors.ts"));
  });

  it("the reader of imports sees a known Prisma import and a known worker chain", () => {
    // Guards the guards: if the scanner or resolver stopped working, the checks above would pass vacuously.
    expect(importsOf(path.join(ROOT, "lib/db/repository.ts")).some(PRISMA)).toBe(true);
    const chain = reachable(path.join(ROOT, "worker/main.ts"));
    expect([...chain.keys()].map(rel)).toEqual(
      expect.arrayContaining(["worker/loop.ts", "lib/queue/engine.ts", "lib/queue/sql.ts", "lib/pipeline/pointer.ts"]),
    );
  });
});

describe("one pool per process", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("Prisma runs on the pg pool it is given: one connection serves both, and the pool counts it", async () => {
    const { prisma, transaction } = await import("../../lib/db/repository");
    const pool = extraPool(t.url, { max: 1, application_name: "iw-layering" });
    try {
      const client = prisma(pool);
      expect(prisma(pool)).toBe(client); // one client per pool
      const [mine] = await client.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      const viaPg = (await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0];
      const inTx = await transaction(
        pool,
        async (tx) => (await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0],
      );
      expect(viaPg.pid).toBe(mine.pid);
      expect(inTx.pid).toBe(mine.pid);
      expect(pool.totalCount).toBe(1);
      // The server's own count of sessions: the embedded database has one session for every
      // socket connection, so only PostgreSQL can say how many the pool opened.
      if (onRealPostgres) {
        const seen = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'iw-layering'`,
        );
        expect(seen.rows[0].n).toBe(1);
      }
    } finally {
      await pool.end();
    }
  });
});
