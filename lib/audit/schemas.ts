import { z } from "zod";
import { NO_CONTROL, noControl, tenantParam } from "../documents/schemas";

/**
 * The audit log's filters, shared by the route and the page. `action` is one action
 * ("task.retry") or every action on one kind of target ("task.*"). `actor` matches part of the
 * actor, in any case ("alice" finds user:alice@example.com). The time range is on the entry's
 * database time, `from` inclusive and `to` exclusive.
 */
export const auditListQuery = z
  .object({
    cursor: z
      .string()
      .regex(/^\d{1,19}$/)
      .optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    actor: z.string().trim().min(1).max(200).refine(noControl, NO_CONTROL).optional(),
    action: z
      .string()
      .regex(
        /^[a-z][a-z_]*(\.([a-z][a-z_]*|\*))?$/,
        'action must be an action such as "task.retry", or "task.*" for every action on tasks',
      )
      .optional(),
    tenant: tenantParam.optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), {
    message: "from must be before to",
    path: ["from"],
  });
export type AuditListQuery = z.infer<typeof auditListQuery>;
export type AuditFilters = Pick<AuditListQuery, "actor" | "action" | "tenant" | "from" | "to">;

/** Actions the log records, for the filter's choices (the API takes any well-formed action). */
export const KNOWN_AUDIT_ACTIONS = [
  "document.delete",
  "document.reindex",
  "document.rename",
  "document.rollback",
  "document.unpin",
  "task.retry",
  "task.bulk_retry",
  "task.force_done",
  "task.cancel",
  "queue.pause",
  "queue.resume",
  "search.as_principals",
  "token.create",
  "token.revoke",
  "bootstrap_token.rotate",
  "bootstrap_token.revoke",
  "user.create",
  "user.update",
  "user.sso_link",
  "webhook.create",
  "webhook.update",
  "webhook.delete",
  "webhook.rotate_secret",
  "webhook.redeliver",
  "space.create",
  "space.update",
  "space.retire",
  "migration.start",
  "migration.switch",
  "migration.switch_back",
  "migration.abort",
  "migration.finish",
  "migration.force_switch",
  "evaluation_set.update",
  "evaluation.run",
] as const;
