import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { createTestDb, type TestDb } from "../helpers/db";
import { routeCaller, type Mod } from "../helpers/route-call";
import { KNOWN_AUDIT_ACTIONS } from "../../lib/audit/schemas";
import { REDACTED, redactForReader, scrubForStorage } from "../../lib/audit/redact";

// No secret reaches a tenant operator through GET /api/v1/audit: webhook URLs (capability URLs,
// a secret in the path or query) show their origin only, and secrets are never stored at all.
// Every audit action the code can write is found by reading the code, and each one is walked.

const BOOT = "audit-secrets-bootstrap-token-0123456789";

let t: TestDb;
let R: Record<string, Mod>;
let operator: string;
let ownAdmin: string;

const call = routeCaller(BOOT);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    if (n === "generated" || n === "node_modules") return [];
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(n) ? [p] : [];
  });
}
const code = [...sources("lib"), ...sources("app"), ...sources("worker")].map((f) => ({
  f,
  text: readFileSync(f, "utf8"),
}));

/** Every action string the code writes an audit row with. */
function actionsInCode(): Set<string> {
  const found = new Set<string>();
  for (const { text } of code) {
    if (!/writeAudit|adminAudit|INSERT INTO audit_log|audit\(client/.test(text)) continue;
    for (const m of text.matchAll(/action: "([a-z_]+\.[a-z_]+)"/g)) found.add(m[1]);
    for (const m of text.matchAll(/adminAudit\([^,]+, "([a-z_]+\.[a-z_]+)"/g)) found.add(m[1]);
    for (const m of text.matchAll(/audit\(client, [^,]+, "([a-z_]+\.[a-z_]+)"/g)) found.add(m[1]);
    for (const m of text.matchAll(/INSERT INTO audit_log[^`]*VALUES \([^)]*'([a-z_]+\.[a-z_]+)'/g)) found.add(m[1]);
  }
  return found;
}

const SECRET_PATH = "/hooks/T0SECRETPATH/B0SECRETPATH";
const SECRET_QUERY = "?sig=Q0SECRETQUERY";
const CAPABILITY_URL = `https://hooks.example.com${SECRET_PATH}${SECRET_QUERY}`;
/** Values that must never reach a tenant operator. */
const secretLooking = (s: string) =>
  [/SECRET/, /whsec_/, /user:pw@/, /T0SECRET|B0SECRET|Q0SECRET/, new RegExp(BOOT)].filter((r) => r.test(s));

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.LOG_LEVEL = "silent";
  delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  const base = "../../app/api/v1";
  R = {
    hooks: await import(`${base}/admin/webhooks/route`),
    hook: await import(`${base}/admin/webhooks/[id]/route`),
    rotate: await import(`${base}/admin/webhooks/[id]/rotate-secret/route`),
    tokens: await import(`${base}/admin/tokens/route`),
    audit: await import(`${base}/audit/route`),
  } as unknown as Record<string, Mod>;
  operator = (await call(R.tokens, "POST", { body: { name: "own-operator", role: "operator", tenants: ["own"] } })).body
    .token as string;
  ownAdmin = (await call(R.tokens, "POST", { body: { name: "own-admin", role: "admin", tenants: ["own"] } })).body
    .token as string;
});
afterAll(async () => {
  await t?.close();
});

describe("audit rows and secrets", () => {
  it("every audit insert in the code goes through the scrubber, and every action is a known one", () => {
    for (const { f, text } of code) {
      if (f === path.join("lib", "audit", "repository.ts")) continue;
      for (const m of text.matchAll(/INSERT INTO audit_log[\s\S]{0,400}?\]/g)) {
        expect(m[0], `${f}: a raw audit insert must store its detail through auditDetailJson`).toMatch(
          /auditDetailJson\(/,
        );
      }
    }
    const found = actionsInCode();
    expect(found.size).toBeGreaterThan(15);
    // A new action is added to the list the dashboard's filter offers, and so to the walk below.
    expect([...found].filter((a) => !(KNOWN_AUDIT_ACTIONS as readonly string[]).includes(a))).toEqual([]);
  });

  it("webhook create, update and delete through the API: a tenant operator reads the origin only, an admin the URL", async () => {
    const c = await call(R.hooks, "POST", {
      token: ownAdmin,
      body: { tenant: "own", url: CAPABILITY_URL, eventTypes: ["task.dead"] },
    });
    expect(c.status).toBe(201);
    const id = c.body.id as string;
    expect(
      (
        await call(R.hook, "PATCH", {
          token: ownAdmin,
          params: { id },
          body: { url: `https://other.example.net${SECRET_PATH}2${SECRET_QUERY}` },
        })
      ).status,
    ).toBe(200);
    expect((await call(R.rotate, "POST", { token: ownAdmin, params: { id } })).status).toBe(200);
    expect((await call(R.hook, "DELETE", { token: ownAdmin, params: { id } })).status).toBe(200);

    const seen = await call(R.audit, "GET", { token: operator, query: "?action=webhook.*&limit=100" });
    expect(seen.status).toBe(200);
    const items = seen.body.items as { action: string; detail: Record<string, unknown> }[];
    expect(items.map((i) => i.action).sort()).toEqual([
      "webhook.create",
      "webhook.delete",
      "webhook.rotate_secret",
      "webhook.update",
    ]);
    expect(secretLooking(JSON.stringify(items))).toEqual([]);
    expect(items.find((i) => i.action === "webhook.create")!.detail.url).toBe("https://hooks.example.com");
    expect(items.find((i) => i.action === "webhook.update")!.detail).toMatchObject({
      changed: { url: "https://other.example.net" },
      before: { url: "https://hooks.example.com" },
    });

    const admin = await call(R.audit, "GET", { token: ownAdmin, query: "?action=webhook.create" });
    expect((admin.body.items as { detail: { url: string } }[])[0].detail.url).toBe(CAPABILITY_URL);
  });

  it("every action the code can write: secret-looking values in its detail never reach a tenant operator", async () => {
    const actions = [...actionsInCode()];
    const { writeAudit } = await import("../../lib/audit/repository");
    const { transaction } = await import("../../lib/db/repository");
    for (const action of actions) {
      // The shapes details take: URLs at any depth, free text, and values under secret-named keys.
      await transaction(t.pool, (tx) =>
        writeAudit(tx, {
          actor: "token:bootstrap",
          action,
          tenant: "own",
          targetType: "walk",
          targetId: action,
          detail: {
            url: CAPABILITY_URL,
            changed: { url: `https://user:pw@hooks.example.com${SECRET_PATH}` },
            nested: [{ endpoint: `http://10.0.0.1:8080${SECRET_PATH}${SECRET_QUERY}` }],
            secret: "whsec_SECRETVALUE",
            password: "SECRET-PASSWORD",
            token: BOOT,
            apiKey: "SECRET-KEY",
            authorization: "Bearer SECRET",
          },
        }),
      );
    }
    const seen = await call(R.audit, "GET", { token: operator, query: "?limit=200" });
    const walked = (seen.body.items as { targetType: string; action: string }[]).filter((i) => i.targetType === "walk");
    expect(walked.map((i) => i.action).sort()).toEqual(actions.sort());
    expect(secretLooking(JSON.stringify(seen.body.items))).toEqual([]);
    // Secrets are not stored at all, so not even an admin reads them.
    const stored = JSON.stringify((await t.pool.query(`SELECT detail FROM audit_log`)).rows);
    expect(stored).not.toMatch(/whsec_SECRETVALUE|SECRET-PASSWORD|SECRET-KEY|Bearer SECRET|user:pw@/);
    expect(stored).not.toContain(BOOT);
  });

  it("redaction keeps what is not secret: booleans, counts, origins, and URL-free text", () => {
    expect(scrubForStorage({ password: true, passwordChanged: false, previousSecretHours: 24, name: "x" })).toEqual({
      password: true,
      passwordChanged: false,
      previousSecretHours: 24,
      name: "x",
    });
    expect(scrubForStorage({ secret: "s", nested: { clientSecret: "t" } })).toEqual({
      secret: REDACTED,
      nested: { clientSecret: REDACTED },
    });
    expect(redactForReader({ url: "https://h.example/a?b=c", text: "see https://h.example/a", n: 1 })).toEqual({
      url: "https://h.example",
      text: "see https://h.example/a",
      n: 1,
    });
    expect(redactForReader(null)).toBeNull();
  });
});
