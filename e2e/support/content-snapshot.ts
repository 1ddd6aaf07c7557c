import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";

/**
 * A fingerprint of the content tables, read straight from the app's database: per table a row
 * count and an md5 over every row rendered as JSON, sorted, so two snapshots are equal exactly when
 * the rows are byte-identical.
 *
 * Tables with a tenant column are read for the given tenants only. The app's worker goes on
 * indexing (and retrying) what other specs published while this one runs, so a whole-table
 * checksum would change for reasons that have nothing to do with the requests under test.
 * tenants, users and api_tokens have no tenant column and are read whole: only API calls write
 * them, and Playwright runs the spec files one after another (workers: 1), so during a spec nobody
 * else writes them.
 */

/** Table → the column that scopes it to tenants (null: read whole). */
export const CONTENT_TABLES: Record<string, string | null> = {
  documents: "tenant_id",
  document_versions: "tenant_id",
  index_tasks: "tenant_id",
  index_versions: "tenant_id",
  chunks: "tenant_id",
  search_pointers: "tenant_id",
  tenants: null,
  users: null,
  api_tokens: null,
};

/**
 * Columns left out of the rendering: a token records its last use (at most once a minute) whenever
 * it authenticates, which every request with a valid token may do — that is bookkeeping, not
 * content.
 *
 * Tables that legitimately change under refused requests are not compared at all: sign_in_limits
 * (failed sign-ins are counted, that is the throttle working), sessions (last_seen_at), and
 * audit_log (an operator action that matches nothing, such as a bulk retry of another tenant's
 * tasks, is still recorded). task_events is left out as well: the worker writes it for other
 * specs' tasks, and every event of ours accompanies a change to index_tasks, which is compared.
 */
const VOLATILE: Record<string, string[]> = { api_tokens: ["last_used_at"] };

export type Snapshot = Record<string, { rows: number; md5: string }>;

/** The app's embedded database, with the password `start` keeps in its data directory (playwright.config.ts names the directory). */
export function connectAppDb(port: number): pg.Client {
  const password = readFileSync(
    path.join(".indexwright", `e2e-${process.env.INDEXWRIGHT_E2E_RUN_STAMP}`, "db-password"),
    "utf8",
  ).trim();
  return new pg.Client({
    connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres?sslmode=disable`,
  });
}

export async function contentSnapshot(db: pg.Client, tenants: string[]): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const [table, scope] of Object.entries(CONTENT_TABLES)) {
    // Table and column names come from the constant above, never from input.
    const where = scope ? `WHERE t.${scope} = ANY($1::text[])` : "WHERE $1::text[] IS NOT NULL";
    const { rows } = await db.query<{ n: number; h: string }>(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(r, E'\\n' ORDER BY r), '')) AS h
         FROM (SELECT (to_jsonb(t) - $2::text[])::text AS r FROM ${table} t ${where}) s`,
      [tenants, VOLATILE[table] ?? []],
    );
    out[table] = { rows: rows[0].n, md5: rows[0].h };
  }
  return out;
}

/** Tables whose fingerprint differs, with both values; empty when the snapshots are identical. */
export function snapshotDiff(before: Snapshot, after: Snapshot): string[] {
  const diff: string[] = [];
  for (const table of Object.keys(CONTENT_TABLES)) {
    const a = before[table];
    const b = after[table];
    if (a?.md5 !== b?.md5 || a?.rows !== b?.rows)
      diff.push(`${table}: ${a?.rows} rows ${a?.md5} → ${b?.rows} rows ${b?.md5}`);
  }
  return diff;
}
