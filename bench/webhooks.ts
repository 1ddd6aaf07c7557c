import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { machineFacts, median, percentile, round3, withBenchDatabase } from "./db";
import { WebhookDeliveryLoop } from "../worker/webhooks";
import { newSecret } from "../lib/webhooks/secret";

// What the webhook outbox costs and delivers. (1) A switch-like transaction (document row lock,
// business version + 1, pointer moved to it) timed with the outbox triggers disabled, enabled with
// no endpoint subscribed, and enabled with one subscribed endpoint (an event and a delivery
// written), the three modes alternated round by round on one pool so they see the same load.
// The outbox trigger's own time per pointer move is read from EXPLAIN ANALYZE. (2) Deliveries per second to a local receiver answering 204 at once, with one and two loops.
// Prints one JSON object as its last line.

const DOCS = Number(process.env.BENCH_DOCS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
type Mode = "triggersOff" | "noEndpoint" | "subscribed";

async function main() {
  return withBenchDatabase("webhooks", async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    const facts = await machineFacts(pool);
    const docs: { id: string; tenant: string }[] = [];
    for (let i = 0; i < DOCS; i++) {
      const id = randomUUID();
      const tenant = i % 2 ? "quiet" : "loud";
      await pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [tenant]);
      await pool.query(
        `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, $2, $3, 'T', 1)`,
        [id, tenant, `doc-${i}`],
      );
      const iv = randomUUID();
      await pool.query(
        `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count)
         VALUES ($1, $2, $3, 1, 'ACTIVE', 'c', 'm', 3, 0, 0)`,
        [iv, tenant, id],
      );
      await pool.query(
        `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, $2, $3, 1)`,
        [id, tenant, iv],
      );
      docs.push({ id, tenant });
    }
    // The receiver behind the subscribed endpoint is not running here: part (1) only writes rows.
    await pool.query(
      `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, created_by) VALUES ($1, 'loud', 'http://127.0.0.1:9/x', '{document.searchable}', $2, 'bench')`,
      [randomUUID(), newSecret()],
    );

    const switchOnce = async (d: { id: string; tenant: string }): Promise<number> => {
      const c = await pool.connect();
      try {
        await c.query("BEGIN");
        await c.query(`SELECT id FROM documents WHERE id = $1 FOR UPDATE`, [d.id]);
        const v = (
          await c.query<{ v: number }>(
            `UPDATE documents SET business_version = business_version + 1 WHERE id = $1 RETURNING business_version AS v`,
            [d.id],
          )
        ).rows[0].v;
        // EXPLAIN ANALYZE runs the update and reports each trigger's own time, which the
        // transaction's wall time (commit, load from other processes) drowns.
        const plan = (
          await c.query(
            `EXPLAIN (ANALYZE, FORMAT JSON) UPDATE search_pointers SET version_number = $2, updated_at = now() WHERE document_id = $1`,
            [d.id, v],
          )
        ).rows[0]["QUERY PLAN"][0];
        await c.query("COMMIT");
        return (
          ((plan.Triggers ?? []) as { "Trigger Name": string; Time: number }[]).find(
            (t) => t["Trigger Name"] === "search_pointers_webhook",
          )?.Time ?? 0
        );
      } finally {
        c.release();
      }
    };
    const ms: Record<Mode, number[]> = { triggersOff: [], noEndpoint: [], subscribed: [] };
    const triggerMs: Record<Mode, number[]> = { triggersOff: [], noEndpoint: [], subscribed: [] };
    const modes: Mode[] = ["triggersOff", "noEndpoint", "subscribed"];
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of r % 2 ? [...modes].reverse() : modes) {
        await pool.query(
          `ALTER TABLE search_pointers ${mode === "triggersOff" ? "DISABLE" : "ENABLE"} TRIGGER search_pointers_webhook`,
        );
        const tenant = mode === "subscribed" ? "loud" : "quiet";
        for (const d of docs.filter((x) => x.tenant === tenant)) {
          const t0 = performance.now();
          triggerMs[mode].push(await switchOnce(d));
          ms[mode].push(performance.now() - t0);
        }
      }
    }
    await pool.query(`ALTER TABLE search_pointers ENABLE TRIGGER search_pointers_webhook`);
    const events = Number((await pool.query(`SELECT count(*) AS n FROM webhook_events`)).rows[0].n);
    const summary = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { n: s.length, medianMs: round3(median(s)), p95Ms: round3(percentile(s, 95)) };
    };

    // (2) Delivery throughput.
    let received = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received++;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    await pool.query(`TRUNCATE webhook_endpoints, webhook_events, webhook_deliveries`);
    await pool.query(
      `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, created_by) VALUES ($1, 'loud', $2, '{task.dead}', $3, 'bench')`,
      [randomUUID(), target, newSecret()],
    );
    const throughput: Record<string, number> = {};
    for (const loops of [1, 2]) {
      await pool.query(`TRUNCATE webhook_events, webhook_deliveries`);
      await pool.query(
        `SELECT indexwright_webhook_emit('loud', 'task.dead', jsonb_build_object('i', g)) FROM generate_series(1, $1) g`,
        [EVENTS],
      );
      received = 0;
      const settings = {
        concurrency: 4,
        pollMs: 50,
        timeoutMs: 5000,
        maxAttempts: 3,
        retryBaseSeconds: 1,
        retryMaxSeconds: 1,
        allowPrivateNetworks: true,
        retentionDays: 30,
      };
      const t0 = performance.now();
      const running = Array.from(
        { length: loops },
        (_, i) => new WebhookDeliveryLoop({ pool, workerId: `bench-${i}`, settings }),
      );
      running.forEach((l) => l.start());
      for (;;) {
        const left = Number(
          (await pool.query(`SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'DELIVERED'`)).rows[0].n,
        );
        if (left === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const seconds = (performance.now() - t0) / 1000;
      await Promise.all(running.map((l) => l.stop(1000)));
      throughput[`loops${loops}`] = Math.round(EVENTS / seconds);
      if (received !== EVENTS) throw new Error(`receiver got ${received} requests for ${EVENTS} deliveries`);
    }
    server.close();
    await pool.end();
    return {
      bench: "webhooks",
      date: new Date().toISOString(),
      machine: facts,
      switchTransaction: {
        triggersOff: summary(ms.triggersOff),
        noEndpoint: summary(ms.noEndpoint),
        subscribed: summary(ms.subscribed),
        eventsWritten: events,
      },
      outboxTriggerOwnTime: { noEndpoint: summary(triggerMs.noEndpoint), subscribed: summary(triggerMs.subscribed) },
      deliveriesPerSecond: { ...throughput, events: EVENTS, concurrencyPerLoop: 4 },
    };
  });
}

const out = await main();
process.stdout.write(`${JSON.stringify(out)}\n`);
