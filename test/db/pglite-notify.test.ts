import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { startEmbedded, type EmbeddedDb } from "../../lib/db/embedded";
import { BackendStream } from "../../lib/db/pglite-notify";
import { migrate } from "../../lib/db/migrate";
import { publish } from "../../lib/documents/publish";
import { freePort } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";

// LISTEN/NOTIFY across the embedded server's client connections, which all share PGlite's single
// session. The same cases run against PostgreSQL when TEST_DATABASE_URL is set, so the embedded
// server is held to what the real server does. "Never delivered" is checked with a marker: a
// later notification on a channel the listener also listens on; delivery is in commit order, so
// anything that was going to arrive before the marker has arrived when the marker does.

type Notification = { channel: string; payload: string | undefined };

class Listener {
  readonly received: Notification[] = [];
  private waiters: (() => void)[] = [];
  constructor(readonly client: pg.Client) {
    client.on("notification", (n) => {
      this.received.push({ channel: n.channel, payload: n.payload });
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves with everything received once `count` notifications are in. */
  async until(count: number): Promise<Notification[]> {
    while (this.received.length < count) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`waited for ${count} notifications, have ${JSON.stringify(this.received)}`)),
          20_000,
        );
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.received;
  }
}

const backends: { name: string; url: () => Promise<{ url: string; stop: () => Promise<void> }> }[] = [
  {
    name: "embedded PGlite server",
    url: async () => {
      const e = await startEmbedded({ port: await freePort() });
      return { url: e.url, stop: e.stop };
    },
  },
];
if (process.env.TEST_DATABASE_URL)
  backends.push({
    name: "PostgreSQL",
    url: async () => ({ url: process.env.TEST_DATABASE_URL!, stop: async () => undefined }),
  });

describe.each(backends)("LISTEN/NOTIFY across connections: $name", ({ url: start }) => {
  let server: { url: string; stop: () => Promise<void> };
  const clients: pg.Client[] = [];
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await server?.stop();
  });

  const connect = async () => {
    const c = new pg.Client({ connectionString: server.url });
    c.on("error", () => undefined);
    await c.connect();
    clients.push(c);
    return c;
  };
  const listener = async (...channels: string[]) => {
    const c = await connect();
    const l = new Listener(c);
    for (const ch of channels) await c.query(`LISTEN ${ch}`);
    return l;
  };
  // Unique per test, so the PostgreSQL run never sees another file's traffic.
  const channel = () => `ch_${randomBytes(4).toString("hex")}`;

  it("delivers another connection's NOTIFY only when its transaction commits", async () => {
    const ch = channel();
    const l = await listener(ch);
    // The sender listens too: its own socket orders a notification before or after its responses,
    // so it can see that nothing arrives before the commit. (The listener cannot run a statement
    // meanwhile: the embedded server runs one transaction at a time.)
    const sender = await listener(ch);
    await sender.client.query("BEGIN");
    await sender.client.query(`NOTIFY ${ch}, 'in the transaction'`);
    await sender.client.query("SELECT 1");
    expect(sender.received).toEqual([]);
    expect(l.received).toEqual([]);
    await sender.client.query("COMMIT");
    expect(await l.until(1)).toEqual([{ channel: ch, payload: "in the transaction" }]);
    expect(await sender.until(1)).toEqual([{ channel: ch, payload: "in the transaction" }]);
  });

  it("never delivers a rolled-back NOTIFY, nor one in a transaction that failed", async () => {
    const ch = channel();
    const l = await listener(ch);
    const sender = await connect();
    await sender.query("BEGIN");
    await sender.query(`NOTIFY ${ch}, 'rolled back'`);
    await sender.query("ROLLBACK");
    await sender.query("BEGIN");
    await sender.query(`SELECT pg_notify('${ch}', 'failed')`);
    await expect(sender.query("SELECT 1/0")).rejects.toThrow(/division by zero/);
    await sender.query("COMMIT"); // ends the failed transaction as a rollback
    await expect(sender.query(`SELECT pg_notify('${ch}', 'failed too'); SELECT 1/0`)).rejects.toThrow(
      /division by zero/,
    );
    await sender.query(`NOTIFY ${ch}, 'marker'`);
    expect(await l.until(1)).toEqual([{ channel: ch, payload: "marker" }]);
  });

  it("keeps payloads intact: quotes, non-ASCII, empty, the 7999-byte maximum, parameters over the extended protocol", async () => {
    const ch = channel();
    const l = await listener(ch);
    const sender = await connect();
    const payloads = ['it\'s "quoted"; NOTIFY x', "Grüße, 東京, ✓", "", "p".repeat(7999), "line\nbreak\ttab"];
    for (const p of payloads) await sender.query("SELECT pg_notify($1, $2)", [ch, p]);
    expect((await l.until(payloads.length)).map((n) => n.payload)).toEqual(payloads);
  });

  it("delivers a transaction's notifications in order, once each, and to every listener", async () => {
    const ch = channel();
    const a = await listener(ch);
    const b = await listener(ch);
    const sender = await connect();
    await sender.query("BEGIN");
    for (let i = 0; i < 5; i++) await sender.query(`NOTIFY ${ch}, '${i}'`);
    await sender.query(`NOTIFY ${ch}, '0'`); // the same payload twice in a transaction is sent once
    await sender.query("COMMIT");
    const expected = ["0", "1", "2", "3", "4"].map((payload) => ({ channel: ch, payload }));
    expect(await a.until(5)).toEqual(expected);
    expect(await b.until(5)).toEqual(expected);
  });

  it("delivers a connection's own notifications to it, after its commit", async () => {
    const ch = channel();
    const l = await listener(ch);
    await l.client.query(`NOTIFY ${ch}, 'to myself'`);
    expect(await l.until(1)).toEqual([{ channel: ch, payload: "to myself" }]);
    const ch2 = channel();
    await l.client.query(`LISTEN ${ch2}; NOTIFY ${ch2}, 'listened and sent at one commit'`);
    expect(await l.until(2)).toEqual([
      { channel: ch, payload: "to myself" },
      { channel: ch2, payload: "listened and sent at one commit" },
    ]);
  });

  it("matches channel names as PostgreSQL folds them (quoted names keep their case)", async () => {
    const suffix = randomBytes(4).toString("hex");
    const l = await listener(`"Mixed_${suffix}"`, `Folded_${suffix}`);
    const sender = await connect();
    await sender.query(`NOTIFY mixed_${suffix}, 'not mine'`);
    await sender.query(`NOTIFY "Mixed_${suffix}", 'mine'`);
    await sender.query(`NOTIFY FOLDED_${suffix}, 'folded'`);
    expect(await l.until(2)).toEqual([
      { channel: `Mixed_${suffix}`, payload: "mine" },
      { channel: `folded_${suffix}`, payload: "folded" },
    ]);
  });

  it("takes LISTEN and UNLISTEN into account only when their transaction commits", async () => {
    const ch = channel();
    const marker = channel();
    const l = await listener(marker);
    const sender = await connect();
    await l.client.query("BEGIN");
    await l.client.query(`LISTEN ${ch}`);
    await l.client.query("ROLLBACK");
    await sender.query(`NOTIFY ${ch}, 'not listening: the LISTEN was rolled back'`);
    await sender.query(`NOTIFY ${marker}, 'm1'`);
    expect(await l.until(1)).toEqual([{ channel: marker, payload: "m1" }]);

    await l.client.query("BEGIN");
    await l.client.query(`LISTEN ${ch}`);
    await l.client.query("COMMIT");
    await l.client.query("BEGIN");
    await l.client.query(`UNLISTEN ${ch}`);
    await l.client.query("ROLLBACK");
    await sender.query(`NOTIFY ${ch}, 'still listening: the UNLISTEN was rolled back'`);
    expect(await l.until(2)).toEqual([
      { channel: marker, payload: "m1" },
      { channel: ch, payload: "still listening: the UNLISTEN was rolled back" },
    ]);
  });

  it("stops delivery after UNLISTEN and UNLISTEN *, without stopping other connections' delivery", async () => {
    const ch = channel();
    const other = channel();
    const marker = channel();
    const leaving = await listener(ch, other, marker);
    const staying = await listener(ch, other);
    const sender = await connect();
    await leaving.client.query(`UNLISTEN ${ch}`);
    await sender.query(`NOTIFY ${ch}, 'a'`);
    await sender.query(`NOTIFY ${other}, 'b'`);
    expect(await leaving.until(1)).toEqual([{ channel: other, payload: "b" }]);
    await leaving.client.query("UNLISTEN *");
    await leaving.client.query(`LISTEN ${marker}`);
    await sender.query(`NOTIFY ${ch}, 'c'`);
    await sender.query(`NOTIFY ${other}, 'd'`);
    await sender.query(`NOTIFY ${marker}, 'marker'`);
    expect(await leaving.until(2)).toEqual([
      { channel: other, payload: "b" },
      { channel: marker, payload: "marker" },
    ]);
    expect(await staying.until(4)).toEqual([
      { channel: ch, payload: "a" },
      { channel: other, payload: "b" },
      { channel: ch, payload: "c" },
      { channel: other, payload: "d" },
    ]);
  });

  it("stops delivery to a closed connection; the server stops listening once no connection does", async () => {
    const ch = channel();
    const closing = await listener(ch);
    const staying = await listener(ch);
    await closing.client.end();
    const sender = await connect();
    await sender.query(`NOTIFY ${ch}, 'after the close'`);
    expect(await staying.until(1)).toEqual([{ channel: ch, payload: "after the close" }]);
    await staying.client.end();
    // pg_listening_channels() is per session: on PostgreSQL the sender's own, which never listened.
    await waitFor(
      async () => {
        const { rows } = await sender.query<{ ch: string }>("SELECT pg_listening_channels() AS ch");
        return !rows.some((r) => r.ch === ch);
      },
      10_000,
      20,
    );
    expect(closing.received).toEqual([]);
  });

  it("interleaves notifications with other connections' extended-protocol queries without corrupting any response", async () => {
    const ch = channel();
    const l = await listener(ch);
    const pool = new pg.Pool({ connectionString: server.url, max: 6 });
    const sender = await connect();
    const n = 60;
    const sent = (async () => {
      for (let i = 0; i < n; i++) {
        await sender.query("BEGIN");
        await sender.query("SELECT pg_notify($1, $2)", [ch, `n${i}`]);
        await sender.query("SELECT pg_notify($1, $2)", [ch, `n${i}b`]);
        await sender.query("COMMIT");
      }
    })();
    const queries = Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        pool.query("SELECT $1::int + 1 AS v, repeat($2::text, $3::int) AS s", [i, "ab", i % 50]).then((r) => {
          expect(r.rows[0]).toEqual({ v: i + 1, s: "ab".repeat(i % 50) });
        }),
      ),
    );
    // The listener's own parameterised queries, so notifications land between its responses too.
    const own = Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const r = await l.client.query("SELECT $1::text AS s, generate_series(1, $2::int) AS k", [`own${i}`, 3]);
        expect(r.rows).toEqual([1, 2, 3].map((k) => ({ s: `own${i}`, k })));
      }),
    );
    await Promise.all([sent, queries, own]);
    await pool.end();
    const got = await l.until(2 * n);
    expect(got.map((x) => x.payload)).toEqual(Array.from({ length: n }, (_, i) => [`n${i}`, `n${i}b`]).flat());
  });
});

describe("BackendStream", () => {
  const message = (type: string, body: Buffer) => {
    const m = Buffer.alloc(5 + body.length);
    m.write(type, 0, "latin1");
    m.writeInt32BE(4 + body.length, 1);
    body.copy(m, 5);
    return m;
  };
  const cstr = (s: string) => Buffer.concat([Buffer.from(s, "utf8"), Buffer.from([0])]);
  const notification = (channel: string, payload: string) =>
    message("A", Buffer.concat([Buffer.from([0, 0, 0, 42]), cstr(channel), cstr(payload)]));
  const response = [
    message("C", cstr("NOTIFY")),
    notification("jobs", "first"),
    message("D", Buffer.from("row data")),
    notification("Ünïcode", "second ✓"),
    notification("jobs", ""),
    message("C", cstr("COMMIT")),
    message("Z", Buffer.from("I")),
  ];
  const all = Buffer.concat(response);
  const kept = Buffer.concat(response.filter((m) => m[0] !== 0x41));

  it("forwards everything but the notifications, byte for byte, however the response is split into chunks", () => {
    const wanted = [response[1], response[3], response[4]];
    const wrong: string[] = [];
    for (let a = 0; a <= all.length; a++) {
      for (let b = a; b <= all.length; b++) {
        const out: Buffer[] = [];
        const s = new BackendStream((d) => out.push(Buffer.from(d)));
        for (const chunk of [all.subarray(0, a), all.subarray(a, b), all.subarray(b)])
          if (chunk.length) s.write(new Uint8Array(chunk));
        const ok =
          Buffer.concat(out).equals(kept) &&
          s.aborted === false &&
          s.notifications.length === 3 &&
          s.notifications.every(
            (n, i) => Buffer.from(n.raw).equals(wanted[i]) && n.channel === ["jobs", "Ünïcode", "jobs"][i],
          );
        if (!ok) wrong.push(`${a},${b}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("notes how a response ends its transaction: ROLLBACK tag or an error is an abort, the last one counts", () => {
    const ended = (...messages: Buffer[]) => {
      const s = new BackendStream(() => undefined);
      s.write(new Uint8Array(Buffer.concat(messages)));
      return s.aborted;
    };
    expect(ended(message("C", cstr("SELECT 1")), message("Z", Buffer.from("I")))).toBe(null);
    expect(ended(message("C", cstr("ROLLBACK")), message("Z", Buffer.from("I")))).toBe(true);
    expect(ended(message("E", cstr("SERROR")), message("Z", Buffer.from("I")))).toBe(true);
    expect(ended(message("E", cstr("SERROR")), message("C", cstr("COMMIT")))).toBe(false);
  });
});

describe("worker on the embedded server", () => {
  let e: EmbeddedDb;
  let pool: pg.Pool;
  beforeAll(async () => {
    e = await startEmbedded({ port: await freePort() });
    await migrate(e.url);
    pool = new pg.Pool({ connectionString: e.url, max: 6 });
  });
  afterAll(async () => {
    await pool?.end();
    await e?.stop();
  });

  it("is woken by a publish: the task runs although the next poll is ten minutes away", async () => {
    const w = testWorker(
      { url: e.url, pool, real: false, close: async () => undefined },
      "notified",
      { POLL_INTERVAL_MS: "600000" },
      1,
    );
    await w.start();
    try {
      // Published only once the worker has gone idle: a claim of its found nothing.
      await waitFor(async () => w.stats.emptyClaims >= 1, 20_000, 10);
      const r = await publish(pool, {
        tenant: "n",
        key: "wake",
        title: "Wake",
        contentType: "text/plain",
        content: Buffer.from("one paragraph, searchable soon after it is published"),
        acl: [],
        abstract: null,
        overview: null,
        actor: "test",
        maxAttempts: 8,
      });
      await waitFor(
        async () =>
          (await pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [r.taskId])).rows[0].status ===
          "SUCCEEDED",
        30_000,
        20,
      );
      expect(w.stats.succeeded).toBe(1);
      // Stopped once idle again: a stop during a claim would wait out the ten-minute sleep that follows it.
      await waitFor(async () => w.stats.emptyClaims >= 2, 20_000, 10);
    } finally {
      await w.stop(2000);
    }
  });
});
