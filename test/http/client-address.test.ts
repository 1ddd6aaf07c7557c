import { describe, expect, it } from "vitest";
import { clientAddress, clientAddressOf, normalizeAddress } from "../../lib/http/client-address";
import { loadProxyConfig, proxyNetworks } from "../../lib/config";

// The client address is decided once, from the socket and the proxies we trust; X-Forwarded-For
// entries left of our outermost proxy are whatever the client wrote.
describe("normalizeAddress", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["  203.0.113.7 ", "203.0.113.7"],
    ["203.0.113.7:51234", "203.0.113.7"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8::1", "2001:db8::1"],
    ["[2001:db8::1]:443", "2001:db8::1"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["fe80::1%eth0", "fe80::1"],
    ["::1", "::1"],
    ["::ffff:198.51.100.4", "198.51.100.4"],
    ["::FFFF:c633:6404", "198.51.100.4"],
  ])("%s → %s", (raw, expected) => {
    expect(normalizeAddress(raw)).toBe(expected);
  });

  it.each([
    "",
    "unknown",
    "evil.example",
    "1.2.3",
    "256.1.1.1",
    "01.2.3.4",
    "1.2.3.4.5",
    "2001:db8:::1",
    "<script>",
    "1.2.3.4, 5.6.7.8",
    "_hidden",
  ])("%j is not an address", (raw) => {
    expect(normalizeAddress(raw)).toBeNull();
  });
});

describe("clientAddress", () => {
  const socket = "::ffff:10.0.0.5";

  it("with no trusted proxy the socket decides, whatever the header says", () => {
    expect(clientAddress(socket, "198.51.100.9", 0)).toBe("10.0.0.5");
    expect(clientAddress(socket, ["198.51.100.9", "203.0.113.1"], 0)).toBe("10.0.0.5");
    expect(clientAddress(socket, undefined, 0)).toBe("10.0.0.5");
    expect(clientAddress("2001:DB8::7", "198.51.100.9", 0)).toBe("2001:db8::7");
  });

  it("with one trusted proxy the rightmost entry (the one it appended) is the client", () => {
    expect(clientAddress(socket, "198.51.100.9", 1)).toBe("198.51.100.9");
    // The client prepended a spoofed entry; our proxy appended the real one.
    expect(clientAddress(socket, "203.0.113.66, 198.51.100.9", 1)).toBe("198.51.100.9");
    expect(clientAddress(socket, "203.0.113.66,198.51.100.9", 1)).toBe("198.51.100.9");
    expect(clientAddress(socket, "  203.0.113.66 ,   2001:DB8::9  ", 1)).toBe("2001:db8::9");
    expect(clientAddress(socket, "::ffff:198.51.100.9", 1)).toBe("198.51.100.9");
  });

  it("with two hops the second entry from the right; several headers are one list", () => {
    expect(clientAddress(socket, "203.0.113.66, 198.51.100.9, 10.0.0.2", 2)).toBe("198.51.100.9");
    expect(clientAddress(socket, ["203.0.113.66, 198.51.100.9", "10.0.0.2"], 2)).toBe("198.51.100.9");
  });

  it("too few entries, no header or garbage where the client should be: the socket address", () => {
    expect(clientAddress(socket, "198.51.100.9", 2)).toBe("10.0.0.5");
    expect(clientAddress(socket, undefined, 1)).toBe("10.0.0.5");
    expect(clientAddress(socket, "", 1)).toBe("10.0.0.5");
    expect(clientAddress(socket, "198.51.100.9, not-an-ip", 1)).toBe("10.0.0.5");
    expect(clientAddress(socket, "198.51.100.9,", 1)).toBe("10.0.0.5");
    expect(clientAddress(socket, "unknown", 1)).toBe("10.0.0.5");
  });

  it("a socket without an address (already closed) is 'unknown', never a header value", () => {
    expect(clientAddress(undefined, "198.51.100.9", 0)).toBe("unknown");
  });
});

describe("clientAddressOf (what a route reads)", () => {
  const req = (xff?: string) =>
    new Request("http://dash.local/x", { headers: xff === undefined ? {} : { "x-forwarded-for": xff } });
  it("reads the one address the web server left", () => {
    expect(clientAddressOf(req("198.51.100.9"))).toBe("198.51.100.9");
    expect(clientAddressOf(req("::ffff:198.51.100.9"))).toBe("198.51.100.9");
    expect(clientAddressOf(req("203.0.113.66, 198.51.100.9"))).toBe("198.51.100.9");
    expect(clientAddressOf(req())).toBe("unknown");
    expect(clientAddressOf(req("garbage"))).toBe("unknown");
  });
});

describe("TRUST_PROXY_HOPS", () => {
  it("defaults to 0 (unset or empty) and takes whole numbers", () => {
    expect(loadProxyConfig({}).TRUST_PROXY_HOPS).toBe(0);
    expect(loadProxyConfig({ TRUST_PROXY_HOPS: "" }).TRUST_PROXY_HOPS).toBe(0);
    expect(loadProxyConfig({ TRUST_PROXY_HOPS: "1" }).TRUST_PROXY_HOPS).toBe(1);
    expect(loadProxyConfig({ TRUST_PROXY_HOPS: "2" }).TRUST_PROXY_HOPS).toBe(2);
  });

  it.each(["-1", "1.5", "one", "true", "1e1", "0x1", " 1", "100"])("refuses %j, naming the variable", (v) => {
    expect(() => loadProxyConfig({ TRUST_PROXY_HOPS: v })).toThrow(
      /invalid configuration: TRUST_PROXY_HOPS: must be a whole number/,
    );
  });
});

describe("X-Forwarded-For is believed only from our proxies", () => {
  it("a peer outside the proxy networks (private and loopback by default) cannot name an address, whatever the hops", () => {
    expect(clientAddress("203.0.113.9", "198.51.100.20", 1)).toBe("203.0.113.9");
    expect(clientAddress("10.1.2.3", "198.51.100.20", 1)).toBe("198.51.100.20");
    expect(clientAddress("::ffff:127.0.0.1", "198.51.100.20", 1)).toBe("198.51.100.20");
    expect(clientAddress("fd00::7", "198.51.100.20", 1)).toBe("198.51.100.20");
  });

  it("TRUSTED_PROXY_ADDRESSES names them (CIDRs or single addresses) and refuses garbage naming the variable", () => {
    const only = loadProxyConfig({
      TRUST_PROXY_HOPS: "1",
      TRUSTED_PROXY_ADDRESSES: "203.0.113.0/24, 2001:db8::1",
    }).TRUSTED_PROXY_ADDRESSES;
    expect(clientAddress("203.0.113.9", "198.51.100.20", 1, only)).toBe("198.51.100.20");
    expect(clientAddress("2001:db8::1", "198.51.100.20", 1, only)).toBe("198.51.100.20");
    expect(clientAddress("10.1.2.3", "198.51.100.20", 1, only)).toBe("10.1.2.3");
    expect(() => loadProxyConfig({ TRUSTED_PROXY_ADDRESSES: "10.0.0.0/33" })).toThrow(/TRUSTED_PROXY_ADDRESSES/);
    expect(() => loadProxyConfig({ TRUSTED_PROXY_ADDRESSES: "proxy.internal" })).toThrow(/TRUSTED_PROXY_ADDRESSES/);
    expect(() => proxyNetworks("10.0.0.0/8,")).not.toThrow();
  });
});
