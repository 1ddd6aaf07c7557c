import type pg from "pg";
import { withTransaction } from "../db/pool";
import type { SloDefaults } from "./limits";
import { freshnessHoursSql, SLI_SETTINGS } from "./sql";

// Hourly roll-ups of the freshness SLI (docs/operations.md#freshness-slo): per tenant and UTC hour,
// the publishes decided good and bad in it, so the long windows (a day, three days, the SLO's 28)
// are a sum of hours instead of a read of every task of the window at each scrape (3.8 s at a
// million tasks). An hour is rolled up once it has been over for the tenant's target plus MARGIN:
// a decision dated in it can still change until the publish's deadline (a DEAD publish retried and
// searchable in time turns good, dated later), and no deadline of a publish decided in the hour
// falls later than its end plus the target; the margin leaves room for the transactions that wrote
// the tasks to commit. From then on its counts are final. Counts depend on the target, so they are
// kept with the target they were counted under; when it changes, the tenant's hours are dropped
// and counted again.

const MARGIN_SECONDS = 10 * 60;
const HOUR_MS = 3_600_000;

export type RollupResult = { tenants: number; hours: number };

/** Rolls up every tenant's finished hours not yet counted; a tenant another worker is rolling is skipped. */
export async function rollUpFreshness(pool: pg.Pool, d: SloDefaults): Promise<RollupResult> {
  const keepSeconds = Math.max(d.windowDays, 3) * 86_400 + 86_400;
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM tenants
      WHERE freshness_rolled_until IS NULL
         OR freshness_rolled_target IS DISTINCT FROM coalesce(freshness_target_seconds, $1::int)
         OR freshness_rolled_until
            < date_trunc('hour', now() - make_interval(secs => $2 + coalesce(freshness_target_seconds, $1::int)), 'UTC')
      ORDER BY id`,
    [d.targetSeconds, MARGIN_SECONDS],
  );
  let hours = 0;
  let tenants = 0;
  for (const { id } of rows) {
    const n = await withTransaction(pool, async (c) => {
      await c.query(SLI_SETTINGS);
      // Held while counting: two workers do not count one tenant twice, and an admin's change of
      // the target waits for the count made under the old one (lib/slo/repository.ts locks it too).
      const t = await c.query<{ target: number; rolled_until: Date | null; rolled_target: number | null; until: Date }>(
        `SELECT coalesce(freshness_target_seconds, $2::int) AS target, freshness_rolled_until AS rolled_until,
                freshness_rolled_target AS rolled_target,
                date_trunc('hour', now() - make_interval(secs => $3 + coalesce(freshness_target_seconds, $2::int)), 'UTC') AS until
           FROM tenants WHERE id = $1 FOR NO KEY UPDATE SKIP LOCKED`,
        [id, d.targetSeconds, MARGIN_SECONDS],
      );
      if (t.rows.length === 0) return null;
      const { target, until } = t.rows[0];
      let from = t.rows[0].rolled_target === target ? t.rows[0].rolled_until : null;
      if (from === null) {
        await c.query(`DELETE FROM freshness_hours WHERE tenant_id = $1`, [id]);
        from = new Date(Math.floor((until.getTime() - keepSeconds * 1000) / HOUR_MS) * HOUR_MS);
      }
      if (from.getTime() >= until.getTime()) return 0;
      const s = freshnessHoursSql(id, { ...d, targetSeconds: target }, from, until);
      const inserted = await c.query(s.text, s.values);
      await c.query(`UPDATE tenants SET freshness_rolled_until = $2, freshness_rolled_target = $3 WHERE id = $1`, [
        id,
        until,
        target,
      ]);
      await c.query(`DELETE FROM freshness_hours WHERE tenant_id = $1 AND hour < now() - make_interval(secs => $2)`, [
        id,
        keepSeconds,
      ]);
      return inserted.rowCount ?? 0;
    });
    if (n === null) continue;
    tenants++;
    hours += n;
  }
  return { tenants, hours };
}
