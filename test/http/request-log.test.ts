import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { captureLog } from "../helpers/log-capture";
import { publicHandler } from "../../lib/http/handler";
import { DomainError } from "../../lib/domain/errors";
import { noteSubject } from "../../lib/http/request-context";

// One log line per API request, from lib/http/handler.ts, through real route modules on a real
// database: method, route pattern, status, milliseconds, caller; never a query string, body or token.
const TOKEN = "request-log-token-0123456789abcdef";
let t: TestDb;
let capture: ReturnType<typeof captureLog>;
beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
  process.env.LOG_LEVEL = "silent";
  await t.pool.query(`INSERT INTO tenants (id, name) VALUES ('rl', 'rl')`);
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});
beforeEach(() => {
  capture = captureLog();
});
afterEach(() => capture.stop());

const requestLines = () => capture.lines().filter((l) => l.msg === "request");
const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });

describe("request log", () => {
  it("writes one line per request with the route pattern, not the URL, and nothing secret", async () => {
    const route = await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
    const secret = "sk-live-abcdefghijklmnop";
    const body = JSON.stringify({
      title: "Secret plans",
      contentType: "text/markdown",
      content: `# Plans\n\nThe vault code is ${secret}.`,
    });
    const res = await route.POST(
      new Request(`http://localhost/api/v1/tenants/rl/documents/plans/versions?code=${secret}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body,
      }),
      ctx({ tenant: "rl", key: "plans" }),
    );
    expect(res.status).toBe(202);
    const lines = requestLines();
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      level: 30,
      method: "POST",
      route: "/api/v1/tenants/[tenant]/documents/[key]/versions",
      status: 202,
    });
    expect(typeof line.ms).toBe("number");
    expect(line.ms).toBeGreaterThanOrEqual(0);
    expect(Object.keys(line)).toEqual(expect.arrayContaining(["time", "svc", "subject"]));
    const everything = JSON.stringify(capture.lines());
    for (const leak of [secret, TOKEN, "Secret plans", "vault code", "plans/versions"])
      expect(everything).not.toContain(leak);
  });

  it("logs refusals and failures with the status the caller got", async () => {
    const route = await import("../../app/api/v1/workers/route");
    const unauth = await route.GET(new Request("http://localhost/api/v1/workers"), ctx({}));
    expect(unauth.status).toBe(401);
    const bad = await route.GET(
      new Request("http://localhost/api/v1/workers", { headers: { authorization: "Basic abc" } }),
      ctx({}),
    );
    expect(bad.status).toBe(401);
    const ok = await route.GET(
      new Request("http://localhost/api/v1/workers", { headers: { authorization: `Bearer ${TOKEN}` } }),
      ctx({}),
    );
    expect(ok.status).toBe(200);
    expect(requestLines().map((l) => `${l.method} ${l.route} ${l.status}`)).toEqual([
      "GET /api/v1/workers 401",
      "GET /api/v1/workers 401",
      "GET /api/v1/workers 200",
    ]);
    expect(requestLines()[0].subject).toBeNull();
    expect(requestLines()[2].subject).toBe("token:bootstrap");
    expect(JSON.stringify(capture.lines())).not.toContain("Basic abc");
  });

  it("names the caller the route identified, and keeps callers of concurrent requests apart", async () => {
    const wrapped = publicHandler(async (req) => {
      const who = new URL(req.url).searchParams.get("who")!;
      noteSubject(`token:${who}`);
      // Interleave the two requests, so a shared (not per-request) context would swap their callers.
      await new Promise((r) => setTimeout(r, who === "first" ? 30 : 0));
      if (who === "second") throw new DomainError("INVALID_STATE", "busy");
      return new Response("{}", { status: 200 });
    });
    const [a, b] = await Promise.all([
      wrapped(new Request("http://localhost/api/v1/tasks/retry?who=first", { method: "POST" }), ctx({})),
      wrapped(new Request("http://localhost/api/v1/tasks/retry?who=second", { method: "POST" }), ctx({})),
    ]);
    expect([a.status, b.status]).toEqual([200, 409]);
    const lines = requestLines();
    expect(lines.map((l) => `${l.subject} ${l.status} ${l.route}`).sort()).toEqual([
      "token:first 200 /api/v1/tasks/retry",
      "token:second 409 /api/v1/tasks/retry",
    ]);
    // The slower request took its 30 ms and says so.
    expect(lines.find((l) => l.subject === "token:first")!.ms).toBeGreaterThanOrEqual(25);
  });
});
