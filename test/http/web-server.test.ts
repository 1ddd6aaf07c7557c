import { afterEach, describe, expect, it } from "vitest";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { createWebServer } from "../../cli/web";

// The web process's own HTTP server (cli/web.ts) decides the client address and rewrites
// X-Forwarded-For before Next sees the request. Here it hands requests to a handler that answers
// with the headers it received, over real HTTP on a local port.

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(hops: number): Promise<number> {
  const server = createWebServer((req, res) => {
    // Content-Length rather than chunked, so the hand-written client can read the body as it is.
    const body = JSON.stringify({
      xff: req.headers["x-forwarded-for"],
      realIp: req.headers["x-real-ip"] ?? null,
      forwarded: req.headers["forwarded"] ?? null,
      xfh: req.headers["x-forwarded-host"] ?? null,
    });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  }, hops);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return (server.address() as AddressInfo).port;
}

/** A raw request; answers status, headers and body text. */
function raw(
  port: number,
  requestLine: string,
  headers: [string, string][],
): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(
        [requestLine, "Host: 127.0.0.1", "Connection: close", ...headers.map(([k, v]) => `${k}: ${v}`)].join("\r\n") +
          "\r\n\r\n",
      );
    });
    let text = "";
    socket.on("data", (c) => (text += c));
    socket.on("end", () => {
      const i = text.indexOf("\r\n\r\n");
      resolve({ status: Number(text.split(" ")[1]), head: text.slice(0, i).toLowerCase(), body: text.slice(i + 4) });
    });
    socket.on("error", reject);
  });
}

/** A request written by hand on a socket, so a header can be sent twice and nothing is added. */
function get(
  port: number,
  headers: [string, string][],
): Promise<{ xff: string; realIp: string | null; forwarded: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      const lines = [
        "GET /api/health HTTP/1.1",
        "Host: 127.0.0.1",
        "Connection: close",
        ...headers.map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(lines.join("\r\n") + "\r\n\r\n");
    });
    let raw = "";
    socket.on("data", (c) => (raw += c));
    socket.on("end", () => resolve(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))));
    socket.on("error", reject);
  });
}

describe("web server: X-Forwarded-For is the trusted client address", () => {
  it("with TRUST_PROXY_HOPS=0 a spoofed header is replaced by the connection's address", async () => {
    const port = await serve(0);
    expect((await get(port, [["X-Forwarded-For", "198.51.100.77"]])).xff).toBe("127.0.0.1");
    expect(
      (
        await get(port, [
          ["X-Forwarded-For", "198.51.100.77"],
          ["X-Forwarded-For", "203.0.113.5"],
        ])
      ).xff,
    ).toBe("127.0.0.1");
    expect((await get(port, [])).xff).toBe("127.0.0.1");
  });

  it("with TRUST_PROXY_HOPS=1 the entry our proxy appended is kept, alone", async () => {
    const port = await serve(1);
    expect((await get(port, [["X-Forwarded-For", "203.0.113.66, 198.51.100.77"]])).xff).toBe("198.51.100.77");
    // Two headers (the client's and the proxy's) are one list; the last entry wins.
    expect(
      (
        await get(port, [
          ["X-Forwarded-For", "203.0.113.66"],
          ["X-Forwarded-For", "198.51.100.77"],
        ])
      ).xff,
    ).toBe("198.51.100.77");
    // Not through the proxy (no header) or garbage where its entry should be: the connection's address.
    expect((await get(port, [])).xff).toBe("127.0.0.1");
    expect((await get(port, [["X-Forwarded-For", "198.51.100.77, nonsense"]])).xff).toBe("127.0.0.1");
  });

  it("other headers that claim to name the client do not reach the app", async () => {
    const port = await serve(0);
    const seen = await get(port, [
      ["X-Real-IP", "198.51.100.78"],
      ["Forwarded", "for=198.51.100.79"],
    ]);
    expect(seen).toEqual({ xff: "127.0.0.1", realIp: null, forwarded: null, xfh: null });
  });

  it("a handler that throws answers 500 in the API's error shape, and the server keeps serving", async () => {
    const server = createWebServer(() => {
      throw new Error("boom");
    }, 0);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as AddressInfo).port;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/x`);
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: { code: "INTERNAL_ERROR", message: "internal error" } });
    }
  });

  it("with no trusted proxy, X-Forwarded-Host/Proto/Port from the client are dropped (Next fills them from the connection); with one they are kept", async () => {
    const zero = await serve(0);
    const spoofed: [string, string][] = [
      ["X-Forwarded-Host", "evil.example"],
      ["X-Forwarded-Proto", "https"],
      ["X-Forwarded-Port", "443"],
    ];
    const echoed = JSON.parse((await raw(zero, "GET /api/health HTTP/1.1", spoofed)).body);
    expect(echoed.xfh ?? null).toBeNull();
    const one = await serve(1);
    expect(JSON.parse((await raw(one, "GET /api/health HTTP/1.1", spoofed)).body).xfh).toBe("evil.example");
  });
});

describe("web server: requests answered before Next", () => {
  it("methods Next cannot route (TRACE, PROPFIND) get a JSON 405 with Allow on a known route, a JSON 404 on an unknown API path", async () => {
    const port = await serve(0);
    const trace = await raw(port, "TRACE /api/health HTTP/1.1", []);
    expect(trace.status).toBe(405);
    expect(trace.head).toContain("allow: get, head, options");
    expect(JSON.parse(trace.body).error.code).toBe("METHOD_NOT_ALLOWED");
    const propfind = await raw(port, "PROPFIND /api/v1/tenants/a/documents/k HTTP/1.1", []);
    expect(propfind.status).toBe(405);
    expect(propfind.head).toContain("allow: delete, get, head, options");
    const unknown = await raw(port, "TRACE /api/nope HTTP/1.1", []);
    expect([unknown.status, JSON.parse(unknown.body).error.code]).toEqual([404, "NOT_FOUND"]);
    const page = await raw(port, "TRACE /overview HTTP/1.1", []);
    expect([page.status, JSON.parse(page.body).error.code]).toEqual([405, "METHOD_NOT_ALLOWED"]);
  });

  it("two Authorization headers are refused (401), whichever comes first", async () => {
    const port = await serve(0);
    for (const pair of [
      ["Bearer a", "Bearer b"],
      ["Bearer b", "Bearer a"],
    ]) {
      const r = await raw(
        port,
        "GET /api/v1/tasks HTTP/1.1",
        pair.map((v) => ["Authorization", v] as [string, string]),
      );
      expect([r.status, JSON.parse(r.body).error.code]).toEqual([401, "UNAUTHORIZED"]);
    }
    // One header goes through to the app.
    expect((await raw(port, "GET /api/v1/tasks HTTP/1.1", [["Authorization", "Bearer a"]])).status).toBe(200);
  });
});
