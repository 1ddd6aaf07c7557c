import { z } from "zod";
import { TENANT_PATTERN } from "../domain/constants";
import { WEBHOOK_EVENT_TYPES } from "./constants";

// Request bodies of the webhook admin routes, shared by the route handlers and the dashboard.

const eventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES as [string, ...string[]]))
  .min(1, "subscribe to at least one event type")
  .transform((a) => [...new Set(a)].sort());

export const newEndpointBody = z.strictObject({
  tenant: z.string().regex(TENANT_PATTERN, "tenant must match [a-z0-9][a-z0-9._-]{0,63}"),
  url: z.string().min(1).max(2048),
  eventTypes,
  description: z.string().max(500).default(""),
  enabled: z.boolean().default(true),
});
export type NewEndpointBody = z.infer<typeof newEndpointBody>;

export const patchEndpointBody = z
  .strictObject({
    url: z.string().min(1).max(2048).optional(),
    eventTypes: eventTypes.optional(),
    description: z.string().max(500).optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to change");
export type PatchEndpointBody = z.infer<typeof patchEndpointBody>;

export const redeliverBody = z.strictObject({ reason: z.string().max(500).optional() });

export const deliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().regex(/^\d{1,19}$/).optional(),
});
