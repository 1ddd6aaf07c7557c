import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/**
 * A signing secret in the Standard Webhooks form: `whsec_` and the base64 of 32 random bytes
 * (the key HMAC-SHA256 uses; the spec asks for 24 to 64).
 */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export type SignedHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

/**
 * Headers for one attempt. The timestamp is the attempt's, not the event's: receivers refuse
 * timestamps too far from their clock (replay protection), so a retry an hour later must not
 * carry the first attempt's time. Several secrets give several space-separated signatures, which
 * is how a receiver rolls over to a rotated secret without refusing anything meanwhile. An entry
 * may hold several secrets separated by spaces (the claim's `previous_secret` column carries every
 * rotated-out secret still inside its window that way); each signs once.
 */
export function signedHeaders(
  messageId: string,
  body: string,
  secrets: readonly string[],
  at: Date = new Date(),
): SignedHeaders {
  const keys = [...new Set(secrets.flatMap((s) => s.split(/\s+/)).filter(Boolean))];
  const signature = keys.map((s) => new Webhook(s).sign(messageId, at, body)).join(" ");
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  };
}
