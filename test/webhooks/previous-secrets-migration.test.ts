import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { migrate } from "../../lib/db/migrate";
import { databaseBefore } from "../helpers/migrations";

// Endpoints kept one previous secret (previous_secret, previous_secret_until); the migration moves a
// previous secret still inside its window into previous_secrets, with the end of its window, and
// drops one whose window has ended.
const MOVE = "20261201110000_webhook_previous_secrets";
const db = databaseBefore(MOVE);

describe("previous secrets migration", () => {
  it("keeps a previous secret still signing, with its window; drops an expired one", async () => {
    await migrate(db.t.url, { dir: db.before });
    const [signing, expired, none] = [randomUUID(), randomUUID(), randomUUID()];
    const insert = (id: string, previous: string | null, until: string | null) =>
      db.t.pool.query(
        `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, previous_secret, previous_secret_until, created_by)
         VALUES ($1, 'acme', 'https://hooks.example.com/x', '{task.dead}', 'whsec_current', $2, $3::timestamptz, 'test')`,
        [id, previous, until],
      );
    await insert(signing, "whsec_old", "2999-01-02T03:04:05.678Z");
    await insert(expired, "whsec_gone", "2000-01-01T00:00:00.000Z");
    await insert(none, null, null);
    await migrate(db.t.url);
    const rows = (
      await db.t.pool.query(`SELECT id::text, secret, previous_secrets FROM webhook_endpoints ORDER BY created_at, id`)
    ).rows;
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.secret, r.previous_secrets]]))).toEqual({
      [signing]: ["whsec_current", [{ secret: "whsec_old", until: "2999-01-02T03:04:05.678Z" }]],
      [expired]: ["whsec_current", []],
      [none]: ["whsec_current", []],
    });
    const cols = (
      await db.t.pool.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'webhook_endpoints' AND column_name LIKE 'previous%' ORDER BY 1`,
      )
    ).rows;
    expect(cols).toEqual([{ column_name: "previous_secrets" }]);
    await expect(
      db.t.pool.query(`UPDATE webhook_endpoints SET previous_secrets = '{}'::jsonb WHERE id = $1`, [none]),
    ).rejects.toMatchObject({ code: "23514" });
  });
});
