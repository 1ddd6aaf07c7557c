import { z } from "zod";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/schemas";
import { ROLES, TENANT_PATTERN, type Role } from "../domain/constants";
import { ALL_TENANTS, CAPABILITIES, hasRole, tenantsOf, tenantsWithin, type Principal } from "../auth/principal";
import { DomainError } from "../domain/errors";
import { noControl, NO_CONTROL } from "../documents/schemas";

// The rules of account administration: request bodies and what an admin may grant. Reading and
// writing accounts is lib/admin/repository.ts.

/** Group names as they appear after `group:` in document ACLs. */
export const GROUP_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

/**
 * A tenant grant is explicit: `["*"]` for every tenant, or tenant names. An empty list is refused
 * here (it used to mean "all"); shutting someone out is `disabled`, not an empty grant.
 */
export const tenantGrant = z
  .array(
    z.string().refine((t) => t === ALL_TENANTS || TENANT_PATTERN.test(t), {
      message: `a tenant name (${TENANT_PATTERN.source}) or "*" for all tenants`,
    }),
  )
  .min(1, { message: 'name the tenants, or ["*"] for all tenants' })
  .max(100)
  .refine((ts) => !ts.includes(ALL_TENANTS) || ts.length === 1, { message: '"*" (all tenants) must stand alone' })
  .transform((ts) => [...new Set(ts)]);
const groups = z
  .array(z.string().regex(GROUP_PATTERN, { message: `a group name (${GROUP_PATTERN.source})` }))
  .max(100)
  .transform((gs) => [...new Set(gs)].sort());

export const newTokenBody = z
  .object({
    // "bootstrap" is the configured admin token's name in the audit log (token:bootstrap); another
    // token must not be able to pass for it there.
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .refine(noControl, NO_CONTROL)
      .refine((n) => n.toLowerCase() !== "bootstrap", {
        message: '"bootstrap" is reserved for the configured bootstrap token',
      }),
    role: z.enum(ROLES),
    tenants: tenantGrant,
    kind: z.enum(["application", "person"]).default("application"),
    userId: z.string().uuid().optional(),
    capabilities: z.array(z.enum(CAPABILITIES)).max(CAPABILITIES.length).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.kind === "person" && !b.userId)
      ctx.addIssue({ code: "custom", path: ["userId"], message: "a person's token names the user it acts as" });
    if (b.kind === "application" && b.userId)
      ctx.addIssue({ code: "custom", path: ["userId"], message: "an application token belongs to no user" });
  });
export const newUserBody = z
  .object({
    email: z.string().trim().email().max(320),
    password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH).optional(),
    role: z.enum(ROLES),
    tenants: tenantGrant,
    groups: groups.optional(),
  })
  .strict();
export const patchUserBody = z
  .object({
    role: z.enum(ROLES).optional(),
    tenants: tenantGrant.optional(),
    groups: groups.optional(),
    disabled: z.boolean().optional(),
    password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH).optional(),
    signOut: z.literal(true).optional(),
  })
  .strict();

const RANKS: Role[] = ["viewer", "maintainer", "operator", "admin"];
export const atMost = (role: Role, max: Role) => RANKS.indexOf(role) <= RANKS.indexOf(max);

/** Nobody grants more than they hold: a role above their own, or a tenant (or "*") they lack. */
export function assertGrantable(actor: Principal, role: Role, tenants: string[]) {
  if (!hasRole(actor, role))
    throw new DomainError("GRANT_EXCEEDS_OWN", `you cannot grant role ${role}, above your own (${actor.role})`);
  const grant = tenantsOf(tenants);
  if (!tenantsWithin(grant, actor.tenants)) {
    const missing = grant === null ? "all tenants" : grant.filter((t) => !actor.tenants!.includes(t)).join(", ");
    throw new DomainError(
      "GRANT_EXCEEDS_OWN",
      `you cannot grant ${missing}: you do not hold ${grant === null ? "them" : "it"}`,
    );
  }
}
