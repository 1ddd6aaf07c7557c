import { describe, expect, it } from "vitest";
import { grantErrorField } from "../../lib/ui/admin";
import { ApiError } from "../../lib/ui/api";
import {
  describeTenants,
  draftFromGrant,
  emptyGrant,
  intersectTenants,
  mayNamePrincipals,
  parseGroups,
  principalProblem,
  resolveGrant,
  scopedOverviewSchema,
  searchIsAudited,
  type Caller,
} from "../../lib/ui/trust";

const person = (role: Caller["role"], principals = ["user:ada@example.com", "group:hr"]): Caller => ({
  kind: "person",
  role,
  tenants: ["acme"],
  principals,
  capabilities: [],
});
const app = (capabilities: string[] = []): Caller => ({
  kind: "application",
  role: "admin",
  tenants: null,
  principals: [],
  capabilities,
});

describe("tenant grants in the admin dialogs", () => {
  it('an all-tenant granter sends ["*"] only when the box is ticked, and must otherwise name a tenant', () => {
    expect(resolveGrant({ ...emptyGrant(), all: true }, null)).toEqual({ tenants: ["*"], problem: null });
    expect(resolveGrant(emptyGrant(), null).problem).toMatch(/All tenants/);
    expect(resolveGrant({ ...emptyGrant(), text: "acme, globex acme" }, null)).toEqual({
      tenants: ["acme", "globex"],
      problem: null,
    });
    expect(resolveGrant({ ...emptyGrant(), text: "*" }, null).problem).toMatch(/All tenants/);
    expect(resolveGrant({ ...emptyGrant(), text: "Acme" }, null).problem).toMatch(/not a tenant id/);
  });

  it("a tenant-limited granter picks from its own tenants; a picked tenant outside them is not sent", () => {
    expect(resolveGrant({ all: true, text: "", picked: [] }, ["acme"]).problem).toMatch(/at least one/);
    expect(resolveGrant({ all: false, text: "zeta", picked: ["acme", "zeta"] }, ["acme", "globex"])).toEqual({
      tenants: ["acme"],
      problem: null,
    });
    expect(resolveGrant(emptyGrant(), []).problem).toMatch(/no tenant/);
  });

  it("an existing grant pre-fills the picker in the shape of the granter's ceiling", () => {
    expect(draftFromGrant(["*"], null)).toEqual({ all: true, text: "", picked: [] });
    expect(draftFromGrant(["acme", "globex"], null)).toEqual({ all: false, text: "acme, globex", picked: [] });
    expect(draftFromGrant(["acme", "zeta"], ["acme", "globex"])).toEqual({ all: false, text: "", picked: ["acme"] });
  });

  it("reads all / none / a list in words, and intersects grants with null as all", () => {
    expect(describeTenants(null)).toBe("all tenants");
    expect(describeTenants([])).toBe("no tenants");
    expect(describeTenants(["acme"])).toBe("tenant acme");
    expect(describeTenants(["acme", "globex"])).toBe("tenants acme, globex");
    expect(intersectTenants(null, null)).toBeNull();
    expect(intersectTenants(null, ["a"])).toEqual(["a"]);
    expect(intersectTenants(["a", "b"], ["b", "c"])).toEqual(["b"]);
  });
});

describe("groups", () => {
  it("accepts names as in ACLs (a typed group: prefix is dropped) and names the first bad one", () => {
    expect(parseGroups("hr, group:finance,  eng/platform , hr")).toEqual({
      groups: ["hr", "finance", "eng/platform"],
      problem: null,
    });
    expect(parseGroups("")).toEqual({ groups: [], problem: null });
    expect(parseGroups("hr, two words").problem).toMatch(/“two words” is not a group name/);
    expect(parseGroups("-leading").problem).toMatch(/“-leading”/);
  });
});

describe("search principals", () => {
  it("offers naming principals to person operators and to applications with search:principals only", () => {
    expect(mayNamePrincipals(person("viewer"))).toBe(false);
    expect(mayNamePrincipals(person("maintainer"))).toBe(false);
    expect(mayNamePrincipals(person("operator"))).toBe(true);
    expect(mayNamePrincipals(person("admin"))).toBe(true);
    expect(mayNamePrincipals(app())).toBe(false);
    expect(mayNamePrincipals(app(["search:principals"]))).toBe(true);
    expect(mayNamePrincipals(app(["metrics:read"]))).toBe(false);
  });

  it("warns of the audit log when a person names anyone outside their own principals", () => {
    expect(searchIsAudited(person("operator"), [])).toBe(false);
    expect(searchIsAudited(person("operator"), ["group:hr"])).toBe(false);
    expect(searchIsAudited(person("operator"), ["group:finance"])).toBe(true);
    expect(searchIsAudited(app(["search:principals"]), ["group:finance"])).toBe(false);
  });

  it("flags principal strings that are neither user: nor group:", () => {
    expect(principalProblem(["user:ada@example.com", "group:hr"])).toBeNull();
    expect(principalProblem(["hr"])).toMatch(/“hr”/);
  });
});

describe("API refusals of a grant land on the field to fix", () => {
  it("maps GRANT_EXCEEDS_OWN by what it names, and CAPABILITY_NOT_ALLOWED / USER_DISABLED by code", () => {
    const e = (status: number, code: string, message: string) => new ApiError(status, code, message);
    expect(
      grantErrorField(e(403, "GRANT_EXCEEDS_OWN", "you cannot grant role admin, above your own (operator)"))?.field,
    ).toBe("role");
    expect(
      grantErrorField(e(403, "GRANT_EXCEEDS_OWN", "ada@example.com is viewer; their token cannot be operator"))?.field,
    ).toBe("role");
    expect(grantErrorField(e(403, "GRANT_EXCEEDS_OWN", "you cannot grant globex: you do not hold it"))?.field).toBe(
      "tenants",
    );
    expect(
      grantErrorField(e(403, "GRANT_EXCEEDS_OWN", "ada@example.com does not hold every tenant named"))?.field,
    ).toBe("tenants");
    expect(
      grantErrorField(
        e(403, "GRANT_EXCEEDS_OWN", "metrics:read shows fleet-wide figures; only an all-tenant admin grants it"),
      )?.field,
    ).toBe("capabilities");
    expect(grantErrorField(e(400, "CAPABILITY_NOT_ALLOWED", "capabilities are for application tokens"))?.field).toBe(
      "capabilities",
    );
    expect(grantErrorField(e(409, "USER_DISABLED", "ada@example.com is disabled"))?.field).toBe("user");
    expect(grantErrorField(e(409, "EMAIL_TAKEN", "a user with that email exists"))).toBeNull();
    expect(grantErrorField(new Error("boom"))).toBeNull();
  });
});

describe("overview scope", () => {
  const base = {
    generatedAt: "2026-11-30T10:00:00.000Z",
    queue: {
      due: 0,
      oldestDueAgeSeconds: null,
      waitingForRetry: 0,
      running: 0,
      leasesExpiringSoon: 0,
      leasesExpired: 0,
      dead: 0,
    },
    errors: [],
    drift: { count: 0, acknowledged: 0, oldestAgeSeconds: null },
    publishToSearchableSeconds: { p50: null, p95: null, p99: null, samples: 0 },
    embeddingReuseRate: null,
  };
  it("keeps a tenant-limited answer's scope, and reads an answer without one as fleet-wide", () => {
    expect(
      scopedOverviewSchema.parse({ ...base, scope: "tenants", workers: [], history: [], reconciler: null }).scope,
    ).toBe("tenants");
    expect(scopedOverviewSchema.parse(base).scope).toBe("fleet");
  });
});
