import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { migrate } from "../../lib/db/migrate";
import { databaseBefore } from "../helpers/migrations";

// Before the trust model an empty tenant list meant "all tenants". Accounts written then keep that
// meaning through the explicit grant; the same empty list written afterwards means none.
const TRUST = "20261130030000_trust_model";
const db = databaseBefore(TRUST);

describe("trust-model migration", () => {
  it("turns the old empty 'all tenants' lists into ['*'] and leaves named lists alone", async () => {
    await migrate(db.t.url, { dir: db.before });
    const [all, named, tokAll, tokNamed] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await db.t.pool.query(
      `INSERT INTO users (id, email, role, tenants) VALUES ($1, 'old-all@x.example', 'admin', '{}'), ($2, 'old-named@x.example', 'viewer', '{acme}')`,
      [all, named],
    );
    await db.t.pool.query(
      `INSERT INTO api_tokens (id, name, token_hash, role, tenants) VALUES ($1, 'old-all', 'h1', 'viewer', '{}'), ($2, 'old-named', 'h2', 'viewer', '{acme,globex}')`,
      [tokAll, tokNamed],
    );
    // A person created at first SSO sign-in got the empty list by default: nobody granted "all".
    const [sso, ssoEdited] = [randomUUID(), randomUUID()];
    await db.t.pool.query(
      `INSERT INTO users (id, email, role, tenants, oidc_issuer, oidc_subject) VALUES ($1, 'sso-new@x.example', 'viewer', '{}', 'https://idp', 's1'), ($2, 'sso-kept@x.example', 'viewer', '{}', 'https://idp', 's2')`,
      [sso, ssoEdited],
    );
    await db.t.pool.query(
      `INSERT INTO audit_log (actor, action, target_type, target_id, detail) VALUES
         ('sso', 'user.create', 'user', $1, '{"role":"viewer","via":"oidc"}'), ('sso', 'user.create', 'user', $2, '{"role":"viewer","via":"oidc"}'),
         ('user:root@x.example', 'user.update', 'user', $2, '{"tenants":[]}')`,
      [sso, ssoEdited],
    );
    const r = await migrate(db.t.url);
    expect(r.applied).toContain(TRUST);
    const users = (await db.t.pool.query(`SELECT id, tenants, groups, sso_groups FROM users ORDER BY email`)).rows;
    expect(users).toEqual([
      { id: all, tenants: ["*"], groups: [], sso_groups: [] },
      { id: named, tenants: ["acme"], groups: [], sso_groups: [] },
      // An admin set this one's tenants (to the old "all"), so that grant stands.
      { id: ssoEdited, tenants: ["*"], groups: [], sso_groups: [] },
      { id: sso, tenants: [], groups: [], sso_groups: [] },
    ]);
    const tokens = (await db.t.pool.query(`SELECT name, tenants, user_id, capabilities FROM api_tokens ORDER BY name`))
      .rows;
    expect(tokens).toEqual([
      { name: "old-all", tenants: ["*"], user_id: null, capabilities: [] },
      { name: "old-named", tenants: ["acme", "globex"], user_id: null, capabilities: [] },
    ]);
    // From now on the database holds the rules: "*" alone, known capabilities, none on a person's token.
    await expect(db.t.pool.query(`UPDATE users SET tenants = '{*,acme}' WHERE id = $1`, [all])).rejects.toThrow(
      /users_tenants_all_alone/,
    );
    await expect(
      db.t.pool.query(`UPDATE api_tokens SET capabilities = '{root}' WHERE id = $1`, [tokAll]),
    ).rejects.toThrow(/api_tokens_capabilities_known/);
    await expect(
      db.t.pool.query(`UPDATE api_tokens SET user_id = $2, capabilities = '{search:principals}' WHERE id = $1`, [
        tokAll,
        all,
      ]),
    ).rejects.toThrow(/api_tokens_person_has_no_capabilities/);
  });
});
