import ipaddr from "ipaddr.js";
import { DomainError } from "../domain/errors";

// Where a webhook may be sent. Checked when an endpoint is saved (a clear 400 for the admin) and
// again on every connection by the delivery agent (lib/webhooks/send.ts), which sees the address a
// name resolves to at that moment: a name that resolves to a private address later (DNS rebinding)
// is stopped there, not here.

/** Addresses a webhook must not reach unless private networks are allowed: anything but global unicast. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let a = ipaddr.parse(address);
  // ::ffff:10.0.0.1 reaches 10.0.0.1: judge the IPv4 address it carries.
  if (a.kind() === "ipv6" && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  return a.range() === "unicast";
}

const LOCAL_NAMES = /(^|\.)(localhost|localdomain|internal|local)$/i;

/**
 * The URL to store, or 400 WEBHOOK_URL_INVALID (not an absolute http(s) URL, credentials in it, a
 * fragment) or 400 WEBHOOK_URL_PRIVATE (a loopback, private, link-local or otherwise non-public
 * address, or a name that only means this machine or its network), unless `allowPrivate`.
 */
export function validateWebhookUrl(raw: string, allowPrivate: boolean): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new DomainError("WEBHOOK_URL_INVALID", "url must be an absolute http:// or https:// URL");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:")
    throw new DomainError("WEBHOOK_URL_INVALID", `url must use http or https, not ${u.protocol.replace(/:$/, "")}`);
  if (u.username || u.password)
    throw new DomainError(
      "WEBHOOK_URL_INVALID",
      "url must not carry credentials: the signature authenticates deliveries",
    );
  if (u.hash) throw new DomainError("WEBHOOK_URL_INVALID", "url must not have a fragment");
  if (!u.hostname) throw new DomainError("WEBHOOK_URL_INVALID", "url has no host");
  if (!allowPrivate) {
    const host = u.hostname.replace(/^\[|\]$/g, "");
    if (
      ipaddr.isValid(host) ? !isPublicAddress(host) : LOCAL_NAMES.test(host.replace(/\.$/, "")) || !host.includes(".")
    ) {
      throw new DomainError(
        "WEBHOOK_URL_PRIVATE",
        `${host} is a private, loopback or local address; webhooks go to public addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows others)`,
      );
    }
  }
  return u.toString();
}
