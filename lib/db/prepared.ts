import { createHash } from "node:crypto";
import type pg from "pg";
import { setting, type RawSetting } from "../config";
import { run, type Queryable, type Statement } from "./pool";

/**
 * Named (prepared) statements are parsed once per server session, and after five executions the
 * server may keep one generic plan for them, so a statement run often skips most of its parse and
 * plan work. They need one server session per connection: the embedded database (PGlite) shares a
 * single session among all its socket's connections (two connections preparing one name collide,
 * 42P05), and PgBouncer in transaction mode without max_prepared_statements moves a connection's
 * statements between sessions. Hence a setting, "auto" meaning on for an external PostgreSQL only.
 */
export type PreparedSetting = "auto" | "true" | "false";

/** PGlite names itself in version(); its socket's connections share one session. */
export function isEmbeddedServer(version: string): boolean {
  return /\bPGlite\b/.test(version);
}

export function preparedStatementsFor(setting: PreparedSetting, embedded: boolean): boolean {
  return setting === "auto" ? !embedded : setting === "true";
}

const names = new Map<string, string>();
/** One name per statement text (a digest), so two versions of a statement never share a name. */
export function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `iw_${createHash("sha256").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** Runs a statement named (prepared once per connection) or unnamed. */
export function runNamed<T extends pg.QueryResultRow>(
  db: Queryable,
  stmt: Statement,
  named: boolean,
): Promise<pg.QueryResult<T>> {
  if (!named) return run<T>(db, stmt);
  return db.query<T>({ name: statementName(stmt.text), text: stmt.text, values: stmt.values as unknown[] });
}

const embeddedPools = new WeakMap<pg.Pool, Promise<boolean>>();
/** Whether a pool's server is the embedded database, asked once per pool (a failed ask is asked again). */
export function poolIsEmbedded(pool: pg.Pool): Promise<boolean> {
  let known = embeddedPools.get(pool);
  if (!known) {
    known = pool.query<{ v: string }>("SELECT version() AS v").then(
      (r) => isEmbeddedServer(r.rows[0].v),
      (err: unknown) => {
        embeddedPools.delete(pool);
        throw err;
      },
    );
    embeddedPools.set(pool, known);
  }
  return known;
}

/** A PreparedSetting from the first of these environment variables that is set ("auto" if none). */
export function preparedSettingFromEnv(...names: RawSetting[]): PreparedSetting {
  const raw = names.map((n) => setting(n)?.trim()).find((v) => v);
  return (["auto", "true", "false"] as const).find((v) => v === raw) ?? "auto";
}

/**
 * Whether a web-process feature names its statements on this pool: unless its setting (or the
 * caller's override) says no, and never on the embedded database, whatever is asked, since its
 * connections share one session (names would collide, session settings would be everyone's).
 */
export async function namedStatementsOn(pool: pg.Pool, setting: PreparedSetting, override?: boolean): Promise<boolean> {
  if (!(override ?? setting !== "false")) return false;
  return preparedStatementsFor("auto", await poolIsEmbedded(pool));
}
