import { z } from "zod";
import { TENANT_PATTERN } from "../domain/constants";
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from "./constants";

// Request bodies of the webhook admin routes, shared by the route handlers and the dashboard.

// The task routes' guards, restated here rather than imported: this module is in the dashboard's
// client bundle (lib/webhooks/client.ts), and lib/operations/schemas.ts and lib/documents/schemas.ts
// pull in the document parsers. test/webhooks/admin.test.ts holds these to the originals.

const BIGINT_MAX = BigInt("9223372036854775807");
/** Like taskIdParam: a delivery id is a positive bigint; past the column's range is a 400, not a database error. */
export const deliveryIdParam = z
  .string()
  // abort: zod would otherwise still run the refine below, and BigInt("1e3") throws.
  .regex(/^\d{1,19}$/, { message: "delivery id must be a number", abort: true })
  .refine((v) => BigInt(v) <= BIGINT_MAX, "delivery id is out of range");
/** Like readableText: PostgreSQL refuses NUL in text (a 500), and other control characters have no place in what people read. */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;
export const readableText = (s: string) => !CONTROL_IN_TEXT.test(s);
export const TEXT_CONTROL =
  "must not contain control characters (tab, newline, carriage return and form feed are allowed)";
const description = z.string().max(500).refine(readableText, TEXT_CONTROL);

const eventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES as [string, ...string[]]))
  .min(1, "subscribe to at least one event type")
  .transform((a) => [...new Set(a)].sort());

export const newEndpointBody = z.strictObject({
  tenant: z.string().regex(TENANT_PATTERN, "tenant must match [a-z0-9][a-z0-9._-]{0,63}"),
  url: z.string().min(1).max(2048),
  eventTypes,
  description: description.default(""),
  enabled: z.boolean().default(true),
});
export type NewEndpointBody = z.infer<typeof newEndpointBody>;

export const patchEndpointBody = z
  .strictObject({
    url: z.string().min(1).max(2048).optional(),
    eventTypes: eventTypes.optional(),
    description: description.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to change");
export type PatchEndpointBody = z.infer<typeof patchEndpointBody>;

/** The reason goes into the audit log, as a task action's does. */
export const redeliverBody = z.strictObject({
  reason: z.string().max(500).refine(readableText, TEXT_CONTROL).optional(),
});

export const deliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: deliveryIdParam.optional(),
});

// What the webhook routes answer (lib/webhooks/repository.ts builds them), for the OpenAPI
// document: strict, so a field added to an answer without a line here fails its contract test.

const instant = z.iso.datetime({ offset: false });
const count = z.int().min(0);
const eventType = z.enum(WEBHOOK_EVENT_TYPES as [string, ...string[]]).meta({ id: "WebhookEventType" });

export const webhookEndpoint = z
  .strictObject({
    id: z.uuid(),
    tenant: z.string(),
    url: z.string(),
    description: z.string(),
    eventTypes: z.array(eventType),
    enabled: z.boolean(),
    createdBy: z.string(),
    createdAt: instant,
    updatedAt: instant,
    previousSecretUntil: instant.nullable().meta({
      description:
        "Until when secrets replaced by rotations still sign beside the current one: each for 24 hours after the rotation that replaced it; this is the last of those windows to end.",
    }),
    deliveries: z.strictObject({
      pending: count,
      failing: count,
      dead: count,
      delivered: count,
      lastAttemptAt: instant.nullable(),
    }),
  })
  .meta({ id: "WebhookEndpoint" });
export const webhookEndpointList = z
  .strictObject({ items: z.array(webhookEndpoint) })
  .meta({ id: "WebhookEndpointList" });
export const webhookEndpointWithSecret = webhookEndpoint
  .extend({
    secret: z
      .string()
      .regex(/^whsec_/)
      .meta({ description: "The signing secret (Standard Webhooks, whsec_…). Shown in this answer only." }),
  })
  .meta({ id: "WebhookEndpointWithSecret" });
export const webhookEndpointDeleted = z
  .strictObject({ id: z.uuid(), deleted: z.literal(true) })
  .meta({ id: "WebhookEndpointDeleted" });

export const webhookDelivery = z
  .strictObject({
    id: z.string().regex(/^\d+$/),
    status: z.enum(DELIVERY_STATUSES as [string, ...string[]]),
    attempts: count,
    nextAttemptAt: instant.nullable(),
    lastAttemptAt: instant.nullable(),
    responseStatus: z.int().nullable(),
    latencyMs: count.nullable(),
    error: z.string().nullable(),
    deliveredAt: instant.nullable(),
    createdAt: instant,
    messageId: z.string().meta({ description: "The webhook-id header: the same on every attempt and redelivery." }),
    eventType,
    payload: z.strictObject({ type: eventType, timestamp: z.string(), data: z.record(z.string(), z.unknown()) }),
  })
  .meta({ id: "WebhookDelivery" });
export const webhookDeliveryList = z
  .strictObject({ items: z.array(webhookDelivery), nextCursor: z.string().nullable() })
  .meta({ id: "WebhookDeliveryList" });
