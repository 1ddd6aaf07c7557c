import { BlockList, isIP } from "node:net";
import { PRIVATE_NETWORKS, proxyNetworks } from "../config";

// Who is on the other end of a request. X-Forwarded-For is written by whoever sent the request,
// so only the entries appended by proxies we run can be believed: with TRUST_PROXY_HOPS = n, the
// n-th entry from the right was written by our outermost proxy and names the client it saw. The
// web server (cli/web.ts) works that out from the socket and the header and replaces the header
// with that one address, so everything behind it (Next, the routes) reads a value we chose.

const DEFAULT_PROXIES = proxyNetworks(PRIVATE_NETWORKS);

const MAPPED_V4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * One address in a canonical text form, or null when it is not an address: IPv4 dotted quad,
 * IPv6 lower-case and compressed (so one host cannot appear under several spellings), an
 * IPv4-mapped IPv6 address as the IPv4 address it maps. Ports and brackets some proxies add
 * ("1.2.3.4:5678", "[2001:db8::1]:443") and IPv6 zone ids are dropped.
 */
export function normalizeAddress(raw: string): string | null {
  let a = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(":"));
  a = a.replace(/%.*$/, "");
  const kind = isIP(a);
  if (kind === 4) return a;
  if (kind !== 6) return null;
  const canonical = new URL(`http://[${a}]`).hostname.slice(1, -1);
  const mapped = MAPPED_V4.exec(canonical);
  if (mapped) {
    const hi = parseInt(mapped[1], 16);
    const lo = parseInt(mapped[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return canonical;
}

/**
 * The client's address: the socket's peer when no proxy is trusted; otherwise the entry `hops`
 * places from the right of X-Forwarded-For (several headers count as one list, in order). The
 * header is believed only when the socket's peer is one of our proxies (`proxies`, private and
 * loopback networks by default): a client that reaches the web port directly cannot name an
 * address. When the list is shorter than `hops`, or the entry is not an address, the socket's
 * peer is used: a caller can lose their own address that way, never choose someone else's.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  hops: number,
  proxies: BlockList = DEFAULT_PROXIES,
): string {
  const direct = normalizeAddress(socketAddress ?? "") ?? "unknown";
  if (hops <= 0 || forwardedFor === undefined) return direct;
  if (!fromProxy(direct, proxies)) return direct;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor).split(",");
  if (entries.length < hops) return direct;
  return normalizeAddress(entries[entries.length - hops]) ?? direct;
}

/**
 * The client address a route handler sees. The web server leaves exactly one trusted address in
 * X-Forwarded-For; the last entry is read in case something else (`next dev`) passed a list on.
 */
export function clientAddressOf(req: Request): string {
  const header = req.headers.get("x-forwarded-for");
  if (!header) return "unknown";
  return normalizeAddress(header.slice(header.lastIndexOf(",") + 1)) ?? "unknown";
}

/** Whether a (normalised) peer address is one of our proxies. */
export function fromProxy(address: string, proxies: BlockList): boolean {
  const kind = isIP(address);
  return kind !== 0 && proxies.check(address, kind === 4 ? "ipv4" : "ipv6");
}
