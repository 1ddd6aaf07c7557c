import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { routeCaller, type Mod } from "../helpers/route-call";

// The webhook admin routes through their handlers: secrets shown once, URL checks with stable
// codes that write nothing, tenant limits, audited changes and redelivery.

const BOOT = "webhooks-bootstrap-token-0123456789";

let t: TestDb;
let R: Record<string, Mod>;
let ownAdmin: string;

const call = routeCaller(BOOT);
const count = async (table: string) =>
  (await t.pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.LOG_LEVEL = "silent";
  delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  const base = "../../app/api/v1/admin";
  R = {
    list: await import(`${base}/webhooks/route`),
    one: await import(`${base}/webhooks/[id]/route`),
    rotate: await import(`${base}/webhooks/[id]/rotate-secret/route`),
    log: await import(`${base}/webhooks/[id]/deliveries/route`),
    redeliver: await import(`${base}/webhooks/[id]/deliveries/[deliveryId]/redeliver/route`),
    tokens: await import(`${base}/tokens/route`),
  } as unknown as Record<string, Mod>;
  ownAdmin = (await call(R.tokens, "POST", { body: { name: "own-admin", role: "admin", tenants: ["own"] } })).body
    .token as string;
});
afterAll(async () => {
  await t?.close();
});

describe("webhook endpoints API", () => {
  it("shows the secret once, at creation; lists never carry it", async () => {
    const c = await call(R.list, "POST", {
      body: {
        tenant: "own",
        url: "https://hooks.example.com/a",
        eventTypes: ["task.dead", "document.searchable", "task.dead"],
      },
    });
    expect(c.status).toBe(201);
    expect(c.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(c.body).toMatchObject({
      tenant: "own",
      url: "https://hooks.example.com/a",
      eventTypes: ["document.searchable", "task.dead"],
      enabled: true,
      createdBy: "token:bootstrap",
    });
    const l = await call(R.list, "GET");
    const item = (l.body.items as Record<string, unknown>[]).find((i) => i.id === c.body.id)!;
    expect(item).toBeDefined();
    expect(JSON.stringify(l.body)).not.toContain(c.body.secret as string);
    expect(item.secret).toBeUndefined();
    const audit = (
      await t.pool.query(`SELECT action, tenant_id, detail FROM audit_log WHERE target_id = $1`, [c.body.id])
    ).rows;
    expect(audit).toEqual([
      {
        action: "webhook.create",
        tenant_id: "own",
        detail: { url: "https://hooks.example.com/a", eventTypes: ["document.searchable", "task.dead"], enabled: true },
      },
    ]);
    expect(JSON.stringify(audit)).not.toContain("whsec_");
  });

  it("refuses bad and private URLs with stable codes and writes nothing", async () => {
    const before = [await count("webhook_endpoints"), await count("audit_log")];
    const cases: [string, string][] = [
      ["not a url", "WEBHOOK_URL_INVALID"],
      ["ftp://hooks.example.com/x", "WEBHOOK_URL_INVALID"],
      ["https://user:pw@hooks.example.com/x", "WEBHOOK_URL_INVALID"],
      ["http://127.0.0.1:8080/hook", "WEBHOOK_URL_PRIVATE"],
      ["http://[::1]/hook", "WEBHOOK_URL_PRIVATE"],
      ["http://[::ffff:10.0.0.1]/hook", "WEBHOOK_URL_PRIVATE"],
      ["http://169.254.169.254/latest/meta-data", "WEBHOOK_URL_PRIVATE"],
      ["http://0x7f000001/hook", "WEBHOOK_URL_PRIVATE"],
      ["http://192.168.1.20/hook", "WEBHOOK_URL_PRIVATE"],
      ["http://localhost:3000/hook", "WEBHOOK_URL_PRIVATE"],
      ["http://receiver/hook", "WEBHOOK_URL_PRIVATE"],
    ];
    for (const [url, code] of cases) {
      const r = await call(R.list, "POST", { body: { tenant: "own", url, eventTypes: ["task.dead"] } });
      expect([url, r.status, r.body.error?.code]).toEqual([url, 400, code]);
    }
    expect(
      (await call(R.list, "POST", { body: { tenant: "own", url: "https://x.example.com", eventTypes: [] } })).body.error
        ?.code,
    ).toBe("VALIDATION_FAILED");
    expect(
      (
        await call(R.list, "POST", {
          body: { tenant: "own", url: "https://x.example.com", eventTypes: ["document.exploded"] },
        })
      ).body.error?.code,
    ).toBe("VALIDATION_FAILED");
    expect([await count("webhook_endpoints"), await count("audit_log")]).toEqual(before);
  });

  it("allows private addresses when WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", async () => {
    const { createEndpoint } = await import("../../lib/webhooks/repository");
    const { bootstrapPrincipal } = await import("../../lib/auth/principal");
    const e = await createEndpoint(
      t.pool,
      bootstrapPrincipal(),
      { tenant: "own", url: "http://127.0.0.1:8080/hook", eventTypes: ["task.dead"], description: "", enabled: true },
      true,
    );
    expect(e.url).toBe("http://127.0.0.1:8080/hook");
  });

  it("keeps a tenant-limited admin to its own tenants' endpoints", async () => {
    const other = (
      await call(R.list, "POST", {
        body: { tenant: "other", url: "https://hooks.example.com/other", eventTypes: ["task.dead"] },
      })
    ).body.id as string;
    const mine = await call(R.list, "POST", {
      token: ownAdmin,
      body: { tenant: "own", url: "https://hooks.example.com/mine", eventTypes: ["task.dead"] },
    });
    expect(mine.status).toBe(201);
    const refused = await call(R.list, "POST", {
      token: ownAdmin,
      body: { tenant: "other", url: "https://hooks.example.com/x", eventTypes: ["task.dead"] },
    });
    expect([refused.status, refused.body.error?.code]).toEqual([403, "FORBIDDEN"]);
    const seen = ((await call(R.list, "GET", { token: ownAdmin })).body.items as { tenant: string }[]).map(
      (i) => i.tenant,
    );
    expect(new Set(seen)).toEqual(new Set(["own"]));
    for (const [mod, method, extra] of [
      [R.one, "PATCH", { body: { enabled: false } }],
      [R.one, "DELETE", {}],
      [R.rotate, "POST", {}],
      [R.log, "GET", {}],
    ] as const) {
      const r = await call(mod, method, { token: ownAdmin, params: { id: other }, ...extra });
      expect([method, r.status, r.body.error?.code]).toEqual([method, 404, "NOT_FOUND"]);
    }
    expect((await t.pool.query(`SELECT enabled FROM webhook_endpoints WHERE id = $1`, [other])).rows[0].enabled).toBe(
      true,
    );
  });

  it("changes an endpoint: URL checked as at creation, audited with the values before", async () => {
    const id = (
      await call(R.list, "POST", {
        body: { tenant: "own", url: "https://hooks.example.com/patch", eventTypes: ["task.dead"] },
      })
    ).body.id as string;
    const refused = await call(R.one, "PATCH", { params: { id }, body: { url: "http://10.1.2.3/hook" } });
    expect([refused.status, refused.body.error?.code]).toEqual([400, "WEBHOOK_URL_PRIVATE"]);
    const empty = await call(R.one, "PATCH", { params: { id }, body: {} });
    expect([empty.status, empty.body.error?.code]).toEqual([400, "VALIDATION_FAILED"]);
    const r = await call(R.one, "PATCH", {
      params: { id },
      body: { url: "https://hooks.example.com/patched", eventTypes: ["document.failed", "task.dead"], enabled: false },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      url: "https://hooks.example.com/patched",
      eventTypes: ["document.failed", "task.dead"],
      enabled: false,
      description: "",
    });
    const audit = (
      await t.pool.query(`SELECT detail FROM audit_log WHERE target_id = $1 AND action = 'webhook.update'`, [id])
    ).rows;
    expect(audit).toEqual([
      {
        detail: {
          changed: {
            url: "https://hooks.example.com/patched",
            eventTypes: ["document.failed", "task.dead"],
            enabled: false,
          },
          before: { url: "https://hooks.example.com/patch", eventTypes: ["task.dead"], enabled: true },
        },
      },
    ]);
  });

  it("rotates the secret: a new one shown once, the old one kept signing for a while; audited", async () => {
    const c = await call(R.list, "POST", {
      body: { tenant: "own", url: "https://hooks.example.com/rotate", eventTypes: ["task.dead"] },
    });
    const r = await call(R.rotate, "POST", { params: { id: c.body.id as string } });
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^whsec_/);
    expect(r.body.secret).not.toBe(c.body.secret);
    const until = Date.parse(r.body.previousSecretUntil as string);
    expect(until - Date.now()).toBeGreaterThan(23 * 3600_000);
    const row = (
      await t.pool.query(`SELECT secret, previous_secrets FROM webhook_endpoints WHERE id = $1`, [c.body.id])
    ).rows[0];
    expect(row).toEqual({
      secret: r.body.secret,
      previous_secrets: [{ secret: c.body.secret, until: r.body.previousSecretUntil }],
    });
    const audit = (
      await t.pool.query(`SELECT action, detail FROM audit_log WHERE target_id = $1 ORDER BY id`, [c.body.id])
    ).rows;
    expect(audit.map((a) => a.action)).toEqual(["webhook.create", "webhook.rotate_secret"]);
    expect(audit[1].detail).toEqual({ previousSecretHours: 24, previousSecretsSigning: 1 });
    expect(JSON.stringify(audit)).not.toContain("whsec_");
    // A second rotation within the window keeps the first secret too; its own window is unchanged.
    const r2 = await call(R.rotate, "POST", { params: { id: c.body.id as string } });
    const row2 = (
      await t.pool.query(`SELECT secret, previous_secrets FROM webhook_endpoints WHERE id = $1`, [c.body.id])
    ).rows[0];
    expect(row2).toEqual({
      secret: r2.body.secret,
      previous_secrets: [
        { secret: r.body.secret, until: r2.body.previousSecretUntil },
        { secret: c.body.secret, until: r.body.previousSecretUntil },
      ],
    });
    // An entry whose window has ended is dropped at the next rotation.
    await t.pool.query(
      `UPDATE webhook_endpoints SET previous_secrets = jsonb_set(previous_secrets, '{1,until}', '"2000-01-01T00:00:00.000Z"') WHERE id = $1`,
      [c.body.id],
    );
    const r3 = await call(R.rotate, "POST", { params: { id: c.body.id as string } });
    const kept = (await t.pool.query(`SELECT previous_secrets FROM webhook_endpoints WHERE id = $1`, [c.body.id]))
      .rows[0].previous_secrets as { secret: string }[];
    expect(kept.map((p) => p.secret)).toEqual([r2.body.secret, r.body.secret]);
    expect(r3.body.previousSecretUntil).not.toBeNull();
  });

  it("redelivers a dead delivery with a fresh budget and the same message id, audited; refuses one in flight", async () => {
    const c = await call(R.list, "POST", {
      body: { tenant: "own", url: "https://hooks.example.com/redeliver", eventTypes: ["task.dead"] },
    });
    const id = c.body.id as string;
    await t.pool.query(`SELECT indexwright_webhook_emit('own', 'task.dead', '{"taskId": "7"}'::jsonb)`);
    const [d] = (await t.pool.query(`SELECT id::text FROM webhook_deliveries WHERE endpoint_id = $1`, [id])).rows;
    await t.pool.query(
      `UPDATE webhook_deliveries SET status = 'DEAD', attempts = 10, last_status_code = 500, last_error = 'HTTP 500' WHERE id = $1`,
      [d.id],
    );
    const log = await call(R.log, "GET", { params: { id } });
    expect((log.body.items as Record<string, unknown>[])[0]).toMatchObject({
      id: d.id,
      status: "DEAD",
      attempts: 10,
      responseStatus: 500,
      error: "HTTP 500",
      nextAttemptAt: null,
      eventType: "task.dead",
    });
    const r = await call(R.redeliver, "POST", { params: { id, deliveryId: d.id }, body: { reason: "receiver fixed" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: d.id,
      status: "PENDING",
      attempts: 0,
      messageId: (log.body.items as { messageId: string }[])[0].messageId,
    });
    const audit = (
      await t.pool.query(
        `SELECT action, tenant_id, reason, detail FROM audit_log WHERE target_id = $1 AND target_type = 'webhook_delivery'`,
        [d.id],
      )
    ).rows;
    expect(audit).toEqual([
      {
        action: "webhook.redeliver",
        tenant_id: "own",
        reason: "receiver fixed",
        detail: expect.objectContaining({
          endpointId: id,
          previousStatus: "DEAD",
          previousAttempts: 10,
          eventType: "task.dead",
        }),
      },
    ]);
    await t.pool.query(
      `UPDATE webhook_deliveries SET status = 'SENDING', lease_owner = 'w', lease_until = now() + interval '1 minute' WHERE id = $1`,
      [d.id],
    );
    const busy = await call(R.redeliver, "POST", { params: { id, deliveryId: d.id } });
    expect([busy.status, busy.body.error?.code]).toEqual([409, "DELIVERY_IN_FLIGHT"]);
    // Through another endpoint's id it does not exist.
    const otherEp = (
      await call(R.list, "POST", {
        body: { tenant: "own", url: "https://hooks.example.com/else", eventTypes: ["task.dead"] },
      })
    ).body.id as string;
    expect((await call(R.redeliver, "POST", { params: { id: otherEp, deliveryId: d.id } })).status).toBe(404);
  });

  it("answers out-of-range ids and control characters with 400 VALIDATION_FAILED and writes nothing", async () => {
    const c = await call(R.list, "POST", {
      body: {
        tenant: "own",
        url: "https://hooks.example.com/guards",
        eventTypes: ["task.dead"],
        description: "before",
      },
    });
    const id = c.body.id as string;
    await t.pool.query(`SELECT indexwright_webhook_emit('own', 'task.dead', '{"taskId": "8"}'::jsonb)`);
    const [d] = (await t.pool.query(`SELECT id::text FROM webhook_deliveries WHERE endpoint_id = $1`, [id])).rows;
    await t.pool.query(`UPDATE webhook_deliveries SET status = 'DEAD', attempts = 10 WHERE id = $1`, [d.id]);
    const snapshot = async () => ({
      endpoints: (await t.pool.query(`SELECT id, description, updated_at FROM webhook_endpoints ORDER BY id`)).rows,
      deliveries: (await t.pool.query(`SELECT id, status, attempts, updated_at FROM webhook_deliveries ORDER BY id`))
        .rows,
      audit: await count("audit_log"),
    });
    const before = await snapshot();
    const refused = async (r: Promise<{ status: number; body: { error?: { code: string; message?: string } } }>) => {
      const { status, body } = await r;
      return [status, body.error?.code];
    };
    // Past the bigint range: the same check as a task id (9223372036854775807 is the last one).
    expect(
      await refused(
        call(R.redeliver, "POST", { params: { id, deliveryId: "9999999999999999999" }, body: { reason: "x" } }),
      ),
    ).toEqual([400, "VALIDATION_FAILED"]);
    expect(await refused(call(R.log, "GET", { params: { id }, query: "?cursor=9999999999999999999" }))).toEqual([
      400,
      "VALIDATION_FAILED",
    ]);
    expect(await refused(call(R.log, "GET", { params: { id }, query: "?cursor=9223372036854775808" }))).toEqual([
      400,
      "VALIDATION_FAILED",
    ]);
    // U+0000 cannot be stored in text; other control characters have no place in readable text.
    for (const bad of ["nul \u0000 here", "bell \u0007", "del \u007f"]) {
      expect(
        await refused(
          call(R.list, "POST", {
            body: { tenant: "own", url: "https://hooks.example.com/nul", eventTypes: ["task.dead"], description: bad },
          }),
        ),
      ).toEqual([400, "VALIDATION_FAILED"]);
      expect(await refused(call(R.one, "PATCH", { params: { id }, body: { description: bad } }))).toEqual([
        400,
        "VALIDATION_FAILED",
      ]);
      expect(
        await refused(call(R.redeliver, "POST", { params: { id, deliveryId: d.id }, body: { reason: bad } })),
      ).toEqual([400, "VALIDATION_FAILED"]);
    }
    expect(await snapshot()).toEqual(before);
    // At the edges they still pass: the last bigint as a cursor, tabs and newlines in readable text.
    const last = await call(R.log, "GET", { params: { id }, query: "?cursor=9223372036854775807" });
    expect([last.status, (last.body.items as { id: string }[]).map((i) => i.id)]).toEqual([200, [d.id]]);
    const patched = await call(R.one, "PATCH", { params: { id }, body: { description: "line one\nline two\tend" } });
    expect([patched.status, patched.body.description]).toEqual([200, "line one\nline two\tend"]);
    const again = await call(R.redeliver, "POST", {
      params: { id, deliveryId: d.id },
      body: { reason: "fixed:\nreceiver redeployed" },
    });
    expect([again.status, again.body.status]).toEqual([200, "PENDING"]);
  });

  it("guards ids and text exactly as the task routes do", async () => {
    const W = await import("../../lib/webhooks/schemas");
    const { taskIdParam } = await import("../../lib/operations/schemas");
    const D = await import("../../lib/documents/schemas");
    for (const v of [
      "0",
      "1",
      "42",
      "9223372036854775807",
      "9223372036854775808",
      "9999999999999999999",
      "10000000000000000000",
      "",
      "-1",
      "1e3",
      " 1",
      "0x10",
      "１",
    ]) {
      expect([v, W.deliveryIdParam.safeParse(v).success]).toEqual([v, taskIdParam.safeParse(v).success]);
    }
    for (let cp = 0; cp <= 0xffff; cp++) {
      const s = `a${String.fromCharCode(cp)}b`;
      if (W.readableText(s) !== D.readableText(s)) expect([cp, W.readableText(s)]).toEqual([cp, D.readableText(s)]);
    }
    expect(W.TEXT_CONTROL).toBe(D.TEXT_CONTROL);
  });

  it("deletes an endpoint with its delivery log; the event stays for other endpoints", async () => {
    const a = (
      await call(R.list, "POST", {
        body: { tenant: "del", url: "https://hooks.example.com/a", eventTypes: ["task.dead"] },
      })
    ).body.id as string;
    const b = (
      await call(R.list, "POST", {
        body: { tenant: "del", url: "https://hooks.example.com/b", eventTypes: ["task.dead"] },
      })
    ).body.id as string;
    await t.pool.query(`SELECT indexwright_webhook_emit('del', 'task.dead', '{}'::jsonb)`);
    const r = await call(R.one, "DELETE", { params: { id: a } });
    expect(r.body).toEqual({ id: a, deleted: true });
    const left = (await t.pool.query(`SELECT endpoint_id::text FROM webhook_deliveries WHERE tenant_id = 'del'`)).rows;
    expect(left).toEqual([{ endpoint_id: b }]);
  });
});
