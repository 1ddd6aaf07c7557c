import { z } from "zod";
import { TASK_STATUSES, TASK_TYPES, ERROR_CODE_LIST } from "../domain/constants";
import { TENANT_PATTERN, KEY_PATTERN } from "../domain/constants";
import { readableText, TEXT_CONTROL } from "../documents/schemas";

const BIGINT_MAX = BigInt("9223372036854775807");
/** A task id is a positive bigint; anything past the column's range is a 400, not a database error. */
export const taskIdParam = z
  .string()
  // abort: zod would otherwise still run the refine below, and BigInt("1e3") throws.
  .regex(/^\d{1,19}$/, { message: "task id must be a number", abort: true })
  .refine((v) => BigInt(v) <= BIGINT_MAX, "task id is out of range");
export const taskListQuery = z.object({
  status: z.enum(TASK_STATUSES as unknown as [string, ...string[]]).optional(),
  errorCode: z.enum(ERROR_CODE_LIST as unknown as [string, ...string[]]).optional(),
  type: z.enum(TASK_TYPES as unknown as [string, ...string[]]).optional(),
  tenant: z.string().regex(TENANT_PATTERN).optional(),
  cursor: taskIdParam.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
/** A reason goes into the audit log: readable text, no NUL (PostgreSQL refuses it) or other control characters. */
const reason = z.string().trim().max(1000).refine(readableText, TEXT_CONTROL);
export const reasonBody = z.object({ reason: reason.pipe(z.string().min(3)) }).strict();
export const optionalReasonBody = z.object({ reason: reason.optional() }).strict();
export const bulkRetryBody = z
  .object({
    status: z.literal("DEAD"),
    errorCode: z.enum(ERROR_CODE_LIST as unknown as [string, ...string[]]).optional(),
    tenant: z.string().regex(TENANT_PATTERN).optional(),
    type: z.enum(TASK_TYPES as unknown as [string, ...string[]]).optional(),
    reason: reason.optional(),
  })
  .strict();
export const rollbackBody = z
  .object({
    toVersion: z.number().int().min(1).max(2147483647, "toVersion is a version number (at most 2147483647)"),
    reason: reason.pipe(z.string().min(3)),
  })
  .strict();
export const renameBody = z
  .object({ newKey: z.string().regex(KEY_PATTERN, "newKey must match [a-z0-9][a-z0-9._-]{0,127}") })
  .strict();
/** Pause one tenant or one task type (exactly one of the two), with the reason people will read. */
export const pauseBody = z
  .object({
    tenant: z.string().regex(TENANT_PATTERN).optional(),
    taskType: z.enum(TASK_TYPES as unknown as [string, ...string[]]).optional(),
    reason: reason.pipe(z.string().min(3)),
  })
  .strict()
  .refine((b) => (b.tenant === undefined) !== (b.taskType === undefined), {
    message: "name either tenant or taskType, not both",
    path: ["tenant"],
  });
export const pauseIdParam = z.string().regex(/^\d{1,18}$/, "pause id must be a number");
