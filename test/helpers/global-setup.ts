import pg from "pg";

/** Says which database the suite runs on, and fails fast when TEST_DATABASE_URL is unreachable. */
export default async function setup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    console.log("[test] TEST_DATABASE_URL unset: each test file runs on its own embedded PGlite");
    return;
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const v = await c.query("SELECT current_setting('server_version') AS v");
  await c.end();
  console.log(
    `[test] PostgreSQL ${v.rows[0].v} at ${url.replace(/:[^:@/]+@/, ":***@")}: each test file gets its own database`,
  );
}
