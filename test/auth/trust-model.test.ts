import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { upsertAdmin } from "../../lib/auth/users";
import type { Worker } from "../../worker/loop";

// Who may see what: search principals come from the identity, tenant grants are explicit and never
// exceed the granter's, and fleet-wide figures are for all-tenant accounts. Through the real route
// handlers, against PostgreSQL.
const BOOT = "trust-bootstrap-token-0123456789";
const PASSWORD = "a long enough password";
let t: TestDb;
let worker: Worker;
let R: Record<string, any>;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.LOG_LEVEL = "silent";
  await upsertAdmin(t.pool, "root@example.com", PASSWORD);
  const v1 = "../../app/api/v1";
  R = {
    signin: await import("../../app/api/auth/signin/route"),
    tokens: await import(`${v1}/admin/tokens/route`),
    token: await import(`${v1}/admin/tokens/[id]/route`),
    users: await import(`${v1}/admin/users/route`),
    user: await import(`${v1}/admin/users/[id]/route`),
    publish: await import(`${v1}/tenants/[tenant]/documents/[key]/versions/route`),
    doc: await import(`${v1}/tenants/[tenant]/documents/[key]/route`),
    search: await import(`${v1}/tenants/[tenant]/search/route`),
    task: await import(`${v1}/tasks/[taskId]/route`),
    overview: await import(`${v1}/overview/route`),
    workers: await import(`${v1}/workers/route`),
    metrics: await import("../../app/api/metrics/route"),
  };
  worker = testWorker(t, "trust-worker");
  await worker.start();
  for (const [tenant, key, content, acl] of [
    ["acme", "handbook", "# Handbook\n\nThe cafeteria opens at eight for every employee.", undefined],
    ["acme", "salaries", "# Salaries\n\nThe salary bands for engineers are reviewed each March.", ["group:hr"]],
    ["acme", "own-note", "# Note\n\nThe private parking spot belongs to dana alone.", ["user:dana@acme.example"]],
    ["globex", "plans", "# Plans\n\nThe globex expansion targets three new harbours.", undefined],
  ] as const) {
    const r = await call(
      R.publish,
      "POST",
      { tenant, key },
      { title: key, contentType: "text/markdown", content, ...(acl ? { acl } : {}) },
    );
    expect(r.status).toBe(202);
  }
  for (const [tenant, key] of [
    ["acme", "handbook"],
    ["acme", "salaries"],
    ["acme", "own-note"],
    ["globex", "plans"],
  ]) {
    await waitFor(async () => ((await call(R.doc, "GET", { tenant, key })).body.state === "SEARCHABLE" ? true : null));
  }
});
afterAll(async () => {
  await worker?.stop(5000);
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

type Auth = { bearer: string } | { cookie: string } | null;
const ctx = (p: object = {}) => ({ params: Promise.resolve(p) });
async function call(route: any, method: string, params: object, body?: unknown, auth: Auth = { bearer: BOOT }) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    host: "dash.local",
    origin: "http://dash.local",
  };
  if (auth && "bearer" in auth) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth && "cookie" in auth) headers.cookie = `iw_session=${auth.cookie}`;
  const res: Response = await route[method](
    new Request("http://dash.local/x", {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    ctx(params),
  );
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* metrics are text */
  }
  return { status: res.status, body: parsed };
}
const auditCount = async (action: string) =>
  (await t.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = $1`, [action])).rows[0].n as number;

async function person(
  email: string,
  role: string,
  tenants: string[],
  groups: string[] = [],
): Promise<{ id: string; cookie: string }> {
  const u = await call(R.users, "POST", {}, { email, password: PASSWORD, role, tenants, groups });
  expect(u.status).toBe(201);
  const s: Response = await R.signin.POST(
    new Request("http://dash.local/x", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        host: "dash.local",
        origin: "http://dash.local",
        "x-forwarded-for": `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
      },
      body: JSON.stringify({ email, password: PASSWORD }),
    }),
    ctx(),
  );
  expect(s.status).toBe(200);
  return { id: u.body.id, cookie: /iw_session=([^;]+)/.exec(s.headers.get("set-cookie")!)![1] };
}
async function token(body: object, as: Auth = { bearer: BOOT }): Promise<string> {
  const r = await call(R.tokens, "POST", {}, body, as);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.token;
}
const keys = (r: { body: any }) => r.body.hits.map((h: any) => h.documentKey).sort();
const search = (auth: Auth, body: object, tenant = "acme") =>
  call(R.search, "POST", { tenant }, { query: "cafeteria salary bands parking spot", topK: 10, ...body }, auth);

describe("a version's checksum follows the text it would confirm", () => {
  it("a viewer outside the ACL gets no checksum, in the document detail or the task timeline; inside it, or as a maintainer, they do", async () => {
    const sha = (
      await t.pool.query(
        `SELECT v.checksum FROM document_versions v JOIN documents d ON d.id = v.document_id WHERE d.key = 'salaries'`,
      )
    ).rows[0].checksum as string;
    const outsider = await token({ name: "viewer-outside", role: "viewer", tenants: ["acme"] });
    const maintainer = await token({ name: "maintainer-app", role: "maintainer", tenants: ["acme"] });
    const hr = await person("hana@acme.example", "viewer", ["acme"], ["hr"]);
    const detail = async (auth: Auth, key = "salaries") =>
      (await call(R.doc, "GET", { tenant: "acme", key }, undefined, auth)).body;
    const outsiderView = await detail({ bearer: outsider });
    expect(outsiderView.versions.map((v: any) => v.checksum)).toEqual([null]);
    expect((await detail({ bearer: outsider }, "handbook")).versions[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    expect((await detail({ cookie: hr.cookie })).versions[0].checksum).toBe(sha);
    expect((await detail({ bearer: maintainer })).versions[0].checksum).toBe(sha);
    // The publish's CREATED event carried it too.
    const taskId = outsiderView.tasks[0].taskId;
    const created = async (auth: Auth) =>
      (await call(R.task, "GET", { taskId }, undefined, auth)).body.events.find((e: any) => e.kind === "CREATED")
        .detail;
    expect(await created({ bearer: outsider })).toEqual({ versionNumber: 1 });
    expect(await created({ bearer: maintainer })).toEqual({ versionNumber: 1, checksum: sha });
  });
});

describe("search principals come from the identity", () => {
  it("a viewer token cannot name group:hr (403 PRINCIPALS_NOT_ALLOWED, nothing written); without principals it sees only unrestricted documents", async () => {
    const viewer = await token({ name: "viewer-app", role: "viewer", tenants: ["acme"] });
    const audits = await auditCount("search.as_principals");
    const refused = await search({ bearer: viewer }, { principals: ["group:hr"] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("PRINCIPALS_NOT_ALLOWED");
    expect(await auditCount("search.as_principals")).toBe(audits);
    const plain = await search({ bearer: viewer }, {});
    expect(plain.status).toBe(200);
    expect(keys(plain)).toEqual(["handbook"]);
    expect(plain.body.searchedAs).toEqual([]);
    // An empty list is a list of principals too: it narrows to public documents and is allowed.
    expect(keys(await search({ bearer: viewer }, { principals: [] }))).toEqual(["handbook"]);
  });

  it("an application token minted with search:principals names its end user's principals, unaudited", async () => {
    const app = await token({ name: "portal", role: "viewer", tenants: ["acme"], capabilities: ["search:principals"] });
    const audits = await auditCount("search.as_principals");
    const r = await search({ bearer: app }, { principals: ["group:hr"] });
    expect(r.status).toBe(200);
    expect(keys(r)).toEqual(["handbook", "salaries"]);
    expect(r.body.searchedAs).toEqual(["group:hr"]);
    expect(await auditCount("search.as_principals")).toBe(audits);
  });

  it("people search as themselves: their email and their groups; a viewer may narrow but not widen", async () => {
    const dana = await person("dana@acme.example", "viewer", ["acme"]);
    const own = await search({ cookie: dana.cookie }, {});
    expect(keys(own)).toEqual(["handbook", "own-note"]);
    expect(own.body.searchedAs).toEqual(["user:dana@acme.example"]);
    expect(keys(await search({ cookie: dana.cookie }, { principals: [] }))).toEqual(["handbook"]);
    const widen = await search({ cookie: dana.cookie }, { principals: ["user:dana@acme.example", "group:hr"] });
    expect(widen.status).toBe(403);
    expect(widen.body.error.code).toBe("PRINCIPALS_NOT_ALLOWED");
    // An admin puts her in hr; her open session sees it on the next request.
    expect((await call(R.user, "PATCH", { id: dana.id }, { groups: ["hr"] })).status).toBe(200);
    const grouped = await search({ cookie: dana.cookie }, {});
    expect(keys(grouped)).toEqual(["handbook", "own-note", "salaries"]);
    expect(grouped.body.searchedAs).toEqual(["user:dana@acme.example", "group:hr"]);
  });

  it("an operator may search as other principals, and each such search is in the audit log", async () => {
    const op = await person("olga@acme.example", "operator", ["acme"]);
    const before = await auditCount("search.as_principals");
    const r = await search({ cookie: op.cookie }, { principals: ["group:hr"], topK: 7 });
    expect(r.status).toBe(200);
    expect(keys(r)).toEqual(["handbook", "salaries"]);
    const rows = (
      await t.pool.query(
        `SELECT actor, tenant_id, detail FROM audit_log WHERE action = 'search.as_principals' ORDER BY id DESC LIMIT 1`,
      )
    ).rows;
    expect(await auditCount("search.as_principals")).toBe(before + 1);
    expect(rows[0]).toEqual({
      actor: "user:olga@acme.example",
      tenant_id: "acme",
      detail: { principals: ["group:hr"], topK: 7 },
    });
  });

  it("a person's token acts as that person: their principals, never above their role or outside their tenants; disabling them stops it", async () => {
    const pat = await person("pat@acme.example", "maintainer", ["acme"], ["hr"]);
    // An operator token for a maintainer, or one reaching globex, would be more than Pat holds.
    const tooHigh = await call(
      R.tokens,
      "POST",
      {},
      { name: "pat-op", role: "operator", tenants: ["acme"], kind: "person", userId: pat.id },
    );
    expect([tooHigh.status, tooHigh.body.error.code]).toEqual([403, "GRANT_EXCEEDS_OWN"]);
    const elsewhere = await call(
      R.tokens,
      "POST",
      {},
      { name: "pat-globex", role: "viewer", tenants: ["globex"], kind: "person", userId: pat.id },
    );
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([403, "GRANT_EXCEEDS_OWN"]);
    const withCap = await call(
      R.tokens,
      "POST",
      {},
      {
        name: "pat-cap",
        role: "viewer",
        tenants: ["acme"],
        kind: "person",
        userId: pat.id,
        capabilities: ["search:principals"],
      },
    );
    expect([withCap.status, withCap.body.error.code]).toEqual([400, "CAPABILITY_NOT_ALLOWED"]);
    const tok = await token({ name: "pat-laptop", role: "viewer", tenants: ["acme"], kind: "person", userId: pat.id });
    const r = await search({ bearer: tok }, {});
    expect(r.body.searchedAs).toEqual(["user:pat@acme.example", "group:hr"]);
    expect(keys(r)).toEqual(["handbook", "salaries"]);
    const listed = (await call(R.tokens, "GET", {})).body.items.find((x: any) => x.name === "pat-laptop");
    expect(listed).toMatchObject({ kind: "person", userId: pat.id, userEmail: "pat@acme.example", capabilities: [] });
    await call(R.user, "PATCH", { id: pat.id }, { disabled: true });
    expect((await search({ bearer: tok }, {})).status).toBe(401);
  });
});

describe("tenant grants are explicit and never exceed the granter's", () => {
  it('an empty list is refused, ["*"] must stand alone, tenants are required', async () => {
    const u = await person("erin@acme.example", "viewer", ["acme"]);
    const empty = await call(R.user, "PATCH", { id: u.id }, { tenants: [] });
    expect([empty.status, empty.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(
      (await call(R.users, "POST", {}, { email: "x@acme.example", password: PASSWORD, role: "viewer" })).status,
    ).toBe(400);
    expect((await call(R.tokens, "POST", {}, { name: "no-tenants", role: "viewer" })).status).toBe(400);
    expect((await call(R.tokens, "POST", {}, { name: "mixed", role: "viewer", tenants: ["*", "acme"] })).status).toBe(
      400,
    );
    const stored = (await t.pool.query(`SELECT tenants FROM users WHERE id = $1`, [u.id])).rows[0].tenants;
    expect(stored).toEqual(["acme"]);
  });

  it("a tenant-limited admin grants only its tenants, never all, and cannot see or touch accounts beyond them", async () => {
    const ada = await person("ada@acme.example", "admin", ["acme"]);
    const as = { cookie: ada.cookie };
    const all = await call(R.tokens, "POST", {}, { name: "ada-all", role: "viewer", tenants: ["*"] }, as);
    expect([all.status, all.body.error.code]).toEqual([403, "GRANT_EXCEEDS_OWN"]);
    const other = await call(
      R.tokens,
      "POST",
      {},
      { name: "ada-globex", role: "viewer", tenants: ["acme", "globex"] },
      as,
    );
    expect([other.status, other.body.error.code]).toEqual([403, "GRANT_EXCEEDS_OWN"]);
    const metrics = await call(
      R.tokens,
      "POST",
      {},
      { name: "ada-scrape", role: "viewer", tenants: ["acme"], capabilities: ["metrics:read"] },
      as,
    );
    expect([metrics.status, metrics.body.error.code]).toEqual([403, "GRANT_EXCEEDS_OWN"]);
    const userAll = await call(
      R.users,
      "POST",
      {},
      { email: "wide@acme.example", password: PASSWORD, role: "viewer", tenants: ["*"] },
      as,
    );
    expect([userAll.status, userAll.body.error.code]).toEqual([403, "GRANT_EXCEEDS_OWN"]);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM api_tokens WHERE name LIKE 'ada-%'`)).rows[0].n).toBe(0);
    expect(
      (await t.pool.query(`SELECT count(*)::int AS n FROM users WHERE email = 'wide@acme.example'`)).rows[0].n,
    ).toBe(0);
    // Within acme it works, and widening an acme user to globex does not.
    const ok = await call(R.tokens, "POST", {}, { name: "ada-acme", role: "maintainer", tenants: ["acme"] }, as);
    expect(ok.status).toBe(201);
    const erin = (await t.pool.query(`SELECT id FROM users WHERE email = 'erin@acme.example'`)).rows[0].id;
    const widen = await call(R.user, "PATCH", { id: erin }, { tenants: ["acme", "globex"] }, as);
    expect([widen.status, widen.body.error.code]).toEqual([403, "GRANT_EXCEEDS_OWN"]);
    // Accounts beyond acme are not hers to see or change.
    const gus = (
      await call(
        R.users,
        "POST",
        {},
        { email: "gus@globex.example", password: PASSWORD, role: "viewer", tenants: ["globex"] },
      )
    ).body.id;
    const listedUsers = (await call(R.users, "GET", {}, undefined, as)).body.items.map((u: any) => u.email);
    expect(listedUsers).toContain("erin@acme.example");
    expect(listedUsers).not.toContain("gus@globex.example");
    expect(listedUsers).not.toContain("root@example.com");
    expect((await call(R.user, "PATCH", { id: gus }, { disabled: true }, as)).status).toBe(404);
    const rootToken = await call(R.tokens, "POST", {}, { name: "fleet-ops", role: "operator", tenants: ["*"] });
    const rootTokenId = rootToken.body.id;
    const visible = (await call(R.tokens, "GET", {}, undefined, as)).body.items.map((x: any) => x.name);
    expect(visible).toContain("ada-acme");
    expect(visible).toContain("portal"); // acme-only, so within her grant
    expect(visible).not.toContain("fleet-ops");
    expect((await call(R.token, "DELETE", { id: rootTokenId }, undefined, as)).status).toBe(404);
    expect(
      (await t.pool.query(`SELECT revoked_at FROM api_tokens WHERE id = $1`, [rootTokenId])).rows[0].revoked_at,
    ).toBeNull();
  });
});

describe("fleet-wide figures are for all-tenant accounts", () => {
  it("a tenant-limited viewer gets its tenants' overview, no workers, no metrics", async () => {
    const viewer = await token({ name: "acme-viewer", role: "viewer", tenants: ["acme"] });
    const ov = await call(R.overview, "GET", {}, undefined, { bearer: viewer });
    expect(ov.status).toBe(200);
    expect(ov.body).toMatchObject({ scope: "tenants", workers: [], history: [], reconciler: null });
    const fleet = await call(R.overview, "GET", {});
    expect(fleet.body.scope).toBe("fleet");
    expect(fleet.body.workers.length).toBeGreaterThan(0);
    // Per-tenant figures: globex's one finished task is not in acme's sample.
    const acmeSamples = (
      await t.pool.query(`SELECT count(*)::int AS n FROM index_tasks WHERE tenant_id = 'acme' AND status = 'SUCCEEDED'`)
    ).rows[0].n;
    expect(ov.body.publishToSearchableSeconds.samples).toBe(acmeSamples);
    expect(fleet.body.publishToSearchableSeconds.samples).toBe(acmeSamples + 1);
    const w = await call(R.workers, "GET", {}, undefined, { bearer: viewer });
    expect([w.status, w.body.error.code]).toEqual([403, "FLEET_SCOPE_REQUIRED"]);
    const m = await call(R.metrics, "GET", {}, undefined, { bearer: viewer });
    expect([m.status, m.body.error.code]).toEqual([403, "FLEET_SCOPE_REQUIRED"]);
  });

  it("metrics: a scrape token with metrics:read (minted by an all-tenant admin), or an all-tenant operator", async () => {
    const scrape = await token({ name: "prometheus", role: "viewer", tenants: ["*"], capabilities: ["metrics:read"] });
    const m = await call(R.metrics, "GET", {}, undefined, { bearer: scrape });
    expect(m.status).toBe(200);
    expect(m.body).toContain("indexwright_tasks_due");
    const narrow = await call(
      R.tokens,
      "POST",
      {},
      { name: "narrow-scrape", role: "viewer", tenants: ["acme"], capabilities: ["metrics:read"] },
    );
    expect([narrow.status, narrow.body.error.code]).toEqual([400, "CAPABILITY_NOT_ALLOWED"]);
    const allViewer = await token({ name: "all-viewer", role: "viewer", tenants: ["*"] });
    expect((await call(R.metrics, "GET", {}, undefined, { bearer: allViewer })).status).toBe(403);
    expect((await call(R.metrics, "GET", {}, undefined, null)).status).toBe(401);
  });
});

describe("review: ways around the audit and the scope are closed", () => {
  it("a tenant-limited admin cannot mint search:principals (it would search as anyone unaudited) nor grant itself groups", async () => {
    const gil = await person("gil@globex.example", "admin", ["globex"]);
    const as = { cookie: gil.cookie };
    const cap = await call(
      R.tokens,
      "POST",
      {},
      { name: "gil-portal", role: "viewer", tenants: ["globex"], capabilities: ["search:principals"] },
      as,
    );
    expect([cap.status, cap.body.error.code]).toEqual([403, "GRANT_EXCEEDS_OWN"]);
    const self = await call(R.user, "PATCH", { id: gil.id }, { groups: ["exec"] }, as);
    expect([self.status, self.body.error.code]).toEqual([403, "SELF_GRANT"]);
    expect((await t.pool.query(`SELECT groups FROM users WHERE id = $1`, [gil.id])).rows[0].groups).toEqual([]);
    // Changing one's own password is not a grant.
    expect((await call(R.user, "PATCH", { id: gil.id }, { password: "another long password" }, as)).status).toBe(200);
  });

  it("nor through an application token of their own minting, or one that token minted", async () => {
    const gil = (await t.pool.query(`SELECT id FROM users WHERE email = 'gil@globex.example'`)).rows[0].id;
    const cookie = /iw_session=([^;]+)/.exec(
      (
        await R.signin.POST(
          new Request("http://dash.local/x", {
            method: "POST",
            headers: {
              "content-type": "application/json",
              host: "dash.local",
              origin: "http://dash.local",
              "x-forwarded-for": "10.77.0.4",
            },
            body: JSON.stringify({ email: "gil@globex.example", password: "another long password" }),
          }),
          ctx(),
        )
      ).headers.get("set-cookie")!,
    )![1];
    const minted = await call(
      R.tokens,
      "POST",
      {},
      { name: "gil-automation", role: "admin", tenants: ["globex"] },
      { cookie },
    );
    expect(minted.status).toBe(201);
    const first = { bearer: minted.body.token };
    const grant = await call(R.user, "PATCH", { id: gil }, { groups: ["exec"] }, first);
    expect([grant.status, grant.body.error?.code]).toEqual([403, "SELF_GRANT"]);
    // A token the first one minted answers for the same person.
    const second = await call(
      R.tokens,
      "POST",
      {},
      { name: "gil-automation-2", role: "admin", tenants: ["globex"] },
      first,
    );
    expect(second.status).toBe(201);
    const again = await call(
      R.user,
      "PATCH",
      { id: gil },
      { tenants: ["globex"], groups: ["exec"] },
      { bearer: second.body.token },
    );
    expect([again.status, again.body.error?.code]).toEqual([403, "SELF_GRANT"]);
    expect((await t.pool.query(`SELECT groups FROM users WHERE id = $1`, [gil])).rows[0].groups).toEqual([]);
    // The same token may still change someone else in its scope.
    const other = await person("otto@globex.example", "admin", ["globex"]);
    expect((await call(R.user, "PATCH", { id: other.id }, { groups: ["support"] }, first)).status).toBe(200);
    // A personal token Gil mints for another admin acts as that admin, and still answers for Gil.
    const ottos = await call(
      R.tokens,
      "POST",
      {},
      { name: "otto-by-gil", role: "admin", tenants: ["globex"], kind: "person", userId: other.id },
      { cookie },
    );
    expect(ottos.status).toBe(201);
    const viaOtto = await call(R.user, "PATCH", { id: gil }, { groups: ["exec"] }, { bearer: ottos.body.token });
    expect([viaOtto.status, viaOtto.body.error?.code]).toEqual([403, "SELF_GRANT"]);
    // And so does an application token that personal token mints.
    const third = await call(
      R.tokens,
      "POST",
      {},
      { name: "gil-automation-3", role: "admin", tenants: ["globex"] },
      { bearer: ottos.body.token },
    );
    expect(third.status).toBe(201);
    const viaThird = await call(R.user, "PATCH", { id: gil }, { groups: ["exec"] }, { bearer: third.body.token });
    expect([viaThird.status, viaThird.body.error?.code]).toEqual([403, "SELF_GRANT"]);
    expect((await t.pool.query(`SELECT groups FROM users WHERE id = $1`, [gil])).rows[0].groups).toEqual([]);
  });

  it("people with no tenants yet are only an all-tenant admin's to see and place", async () => {
    const loose = (
      await t.pool.query(
        `INSERT INTO users (id, email, role, tenants) VALUES (gen_random_uuid(), 'unplaced@example.com', 'viewer', '{}') RETURNING id`,
      )
    ).rows[0].id;
    const gilCookie = (
      await R.signin.POST(
        new Request("http://dash.local/x", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            host: "dash.local",
            origin: "http://dash.local",
            "x-forwarded-for": "10.77.0.1",
          },
          body: JSON.stringify({ email: "gil@globex.example", password: "another long password" }),
        }),
        ctx(),
      )
    ).headers.get("set-cookie")!;
    const as = { cookie: /iw_session=([^;]+)/.exec(gilCookie)![1] };
    expect((await call(R.users, "GET", {}, undefined, as)).body.items.map((u: any) => u.email)).not.toContain(
      "unplaced@example.com",
    );
    expect(
      (await call(R.user, "PATCH", { id: loose }, { tenants: ["globex"], password: "taken over password" }, as)).status,
    ).toBe(404);
    expect((await call(R.users, "GET", {})).body.items.map((u: any) => u.email)).toContain("unplaced@example.com");
    expect((await call(R.user, "PATCH", { id: loose }, { tenants: ["globex"] })).status).toBe(200);
  });

  it("a person's token of someone out of scope is hidden from a tenant-limited admin, even when the token's tenants are in scope", async () => {
    const wide = await person("wide@example.com", "viewer", ["acme", "globex"]);
    await token({ name: "wide-acme", role: "viewer", tenants: ["acme"], kind: "person", userId: wide.id });
    const ada = (await t.pool.query(`SELECT id FROM users WHERE email = 'ada@acme.example'`)).rows[0].id;
    expect(ada).toBeTruthy();
    const adaSession = await R.signin.POST(
      new Request("http://dash.local/x", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          host: "dash.local",
          origin: "http://dash.local",
          "x-forwarded-for": "10.77.0.2",
        },
        body: JSON.stringify({ email: "ada@acme.example", password: PASSWORD }),
      }),
      ctx(),
    );
    const as = { cookie: /iw_session=([^;]+)/.exec(adaSession.headers.get("set-cookie")!)![1] };
    const names = (await call(R.tokens, "GET", {}, undefined, as)).body.items.map((x: any) => x.name);
    expect(names).not.toContain("wide-acme");
    const id = (await call(R.tokens, "GET", {})).body.items.find((x: any) => x.name === "wide-acme").id;
    expect((await call(R.token, "DELETE", { id }, undefined, as)).status).toBe(404);
  });

  it("'sign out everywhere' also ends sessions opened with the person's own tokens", async () => {
    const pia = await person("pia@acme.example", "viewer", ["acme"]);
    const tok = await token({ name: "pia-laptop", role: "viewer", tenants: ["acme"], kind: "person", userId: pia.id });
    const s: Response = await R.signin.POST(
      new Request("http://dash.local/x", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          host: "dash.local",
          origin: "http://dash.local",
          "x-forwarded-for": "10.77.0.3",
        },
        body: JSON.stringify({ token: tok }),
      }),
      ctx(),
    );
    const viaToken = /iw_session=([^;]+)/.exec(s.headers.get("set-cookie")!)![1];
    expect((await search({ cookie: viaToken }, {})).status).toBe(200);
    const out = await call(R.user, "PATCH", { id: pia.id }, { signOut: true });
    expect(out.body.sessionsEnded).toBe(2);
    expect((await search({ cookie: viaToken }, {})).status).toBe(401);
    expect((await search({ cookie: pia.cookie }, {})).status).toBe(401);
  });

  it("no token may be named bootstrap (the audit log's name for the configured token)", async () => {
    for (const name of ["bootstrap", "Bootstrap", " bootstrap "]) {
      const r = await call(R.tokens, "POST", {}, { name, role: "viewer", tenants: ["acme"] });
      expect([r.status, r.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    }
  });

  it("bulk retry aimed at another tenant is refused, and a retry is audited under each tenant it touched", async () => {
    const bulk = await import("../../app/api/v1/tasks/retry/route");
    const op = await token({ name: "acme-op", role: "operator", tenants: ["acme"] });
    const before = (await t.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'task.bulk_retry'`))
      .rows[0].n;
    const refused = await call(
      bulk,
      "POST",
      {},
      { status: "DEAD", tenant: "globex", reason: "globex team: call me" },
      { bearer: op },
    );
    expect([refused.status, refused.body.error.code]).toEqual([403, "FORBIDDEN"]);
    expect(
      (await t.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'task.bulk_retry'`)).rows[0].n,
    ).toBe(before);
    // Two DEAD tasks, one per tenant; the all-tenant caller's one retry leaves a row in each tenant's log.
    await t.pool.query(
      `UPDATE index_tasks SET status = 'DEAD', error_code = 'PARSE_ERROR', finished_at = now() WHERE task_id IN (SELECT max(task_id) FROM index_tasks WHERE status = 'SUCCEEDED' GROUP BY tenant_id)`,
    );
    const all = await call(bulk, "POST", {}, { status: "DEAD", reason: "provider fixed" });
    expect(all.status).toBe(200);
    const rows = (
      await t.pool.query(
        `SELECT tenant_id, detail FROM audit_log WHERE action = 'task.bulk_retry' ORDER BY id DESC LIMIT 2`,
      )
    ).rows;
    expect(rows.map((r) => r.tenant_id).sort()).toEqual(["acme", "globex"]);
  });
});

describe("a re-publish that leaves out the ACL keeps it", () => {
  const aclOf = async (key: string, version: number) =>
    (
      await t.pool.query(
        `SELECT v.acl FROM document_versions v JOIN documents d ON d.id = v.document_id WHERE d.tenant_id = 'acme' AND d.key = $1 AND v.version_number = $2`,
        [key, version],
      )
    ).rows[0]?.acl;

  it("an edit sent without `acl` stays restricted; `acl: []` is what opens it; a re-publish after a delete keeps it too", async () => {
    const content = "# Bonus\n\nThe bonus pool for the quarter is set by the board.";
    expect(
      (
        await call(
          R.publish,
          "POST",
          { tenant: "acme", key: "bonus" },
          { title: "bonus", contentType: "text/markdown", content, acl: ["group:hr"] },
        )
      ).status,
    ).toBe(202);
    // The same content without the field is the same document: nothing new, still restricted.
    const same = await call(
      R.publish,
      "POST",
      { tenant: "acme", key: "bonus" },
      { title: "bonus", contentType: "text/markdown", content },
    );
    expect([same.status, same.body.versionNumber]).toEqual([200, 1]);
    const edited = await call(
      R.publish,
      "POST",
      { tenant: "acme", key: "bonus" },
      { title: "bonus", contentType: "text/markdown", content: `${content}\n\nPaid in April.` },
    );
    expect([edited.status, edited.body.versionNumber]).toEqual([202, 2]);
    expect(await aclOf("bonus", 2)).toEqual(["group:hr"]);
    // A multipart upload without the field keeps it as well.
    const form = new FormData();
    form.set("file", new File([`${content}\n\nPaid in May.`], "bonus.md", { type: "text/markdown" }));
    form.set("title", "bonus");
    const res: Response = await R.publish.POST(
      new Request("http://localhost/x", { method: "POST", headers: { authorization: `Bearer ${BOOT}` }, body: form }),
      ctx({ tenant: "acme", key: "bonus" }),
    );
    expect(res.status).toBe(202);
    expect(await aclOf("bonus", 3)).toEqual(["group:hr"]);
    await waitFor(async () =>
      (await call(R.doc, "GET", { tenant: "acme", key: "bonus" })).body.searchVersion === 3 ? true : null,
    );
    // A viewer outside group:hr does not find it.
    const viewer = await person("vic@acme.example", "viewer", ["acme"]);
    const hits = await call(
      R.search,
      "POST",
      { tenant: "acme" },
      { query: "bonus pool quarter board", mode: "text" },
      { cookie: viewer.cookie },
    );
    expect(hits.body.hits.map((h: any) => h.documentKey)).not.toContain("bonus");

    expect((await call(R.doc, "DELETE", { tenant: "acme", key: "bonus" })).status).toBe(202);
    expect(
      (
        await call(
          R.publish,
          "POST",
          { tenant: "acme", key: "bonus" },
          { title: "bonus", contentType: "text/markdown", content },
        )
      ).status,
    ).toBe(202);
    expect(await aclOf("bonus", 4)).toEqual(["group:hr"]);

    const opened = await call(
      R.publish,
      "POST",
      { tenant: "acme", key: "bonus" },
      { title: "bonus", contentType: "text/markdown", content, acl: [] },
    );
    expect([opened.status, opened.body.versionNumber]).toEqual([202, 5]);
    expect(await aclOf("bonus", 5)).toEqual([]);
  });
});
