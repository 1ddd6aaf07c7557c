import "server-only";
import type pg from "pg";
import { DomainError } from "../domain/errors";
import { auditDetailJson } from "../audit/repository";
import { hasCapability, hasRole, type Principal } from "./principal";

export type SearchAs = { principals: string[]; audited: boolean };

/**
 * Whose ACL view a search takes. Nothing in the request widens it by itself:
 * - no `principals` in the body: the caller's own (an application has none, so it sees only
 *   documents without an ACL);
 * - an application token with `search:principals` names its end user's principals (its job);
 * - a person may narrow to a subset of their own principals;
 * - a person of role operator or above may name anyone's, to see what they see, and that is
 *   recorded in the audit log;
 * - anyone else is refused, rather than silently searched as themselves, so a misconfigured
 *   integration finds out.
 */
export function searchPrincipals(p: Principal, requested: string[] | undefined): SearchAs {
  if (requested === undefined) return { principals: p.principals, audited: false };
  const named = [...new Set(requested)];
  // Narrowing never widens: a subset of one's own principals (for an application, the empty list).
  if (named.every((n) => p.principals.includes(n))) return { principals: named, audited: false };
  if (p.kind === "application") {
    if (hasCapability(p, "search:principals")) return { principals: named, audited: false };
    throw new DomainError(
      "PRINCIPALS_NOT_ALLOWED",
      "this token may not name principals: mint an application token with the search:principals capability",
    );
  }
  if (hasRole(p, "operator")) return { principals: named, audited: true };
  throw new DomainError(
    "PRINCIPALS_NOT_ALLOWED",
    "you search as yourself; naming other principals needs role operator or above",
  );
}

export async function auditSearchAs(
  db: pg.Pool,
  p: Principal,
  tenant: string,
  as: SearchAs,
  topK: number,
): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (actor, action, tenant_id, target_type, target_id, detail) VALUES ($1, 'search.as_principals', $2, 'tenant', $2, $3)`,
    [p.subject, tenant, auditDetailJson({ principals: as.principals, topK })],
  );
}
