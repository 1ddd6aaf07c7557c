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
    const body = JSON.stringify({ xff: req.headers["x-forwarded-for"], realIp: req.headers["x-real-ip"] ?? null, forwarded: req.headers["forwarded"] ?? null });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  }, hops);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return (server.address() as AddressInfo).port;
}

/** A request written by hand on a socket, so a header can be sent twice and nothing is added. */
function get(port: number, headers: [string, string][]): Promise<{ xff: string; realIp: string | null; forwarded: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      const lines = ["GET /api/health HTTP/1.1", "Host: 127.0.0.1", "Connection: close", ...headers.map(([k, v]) => `${k}: ${v}`)];
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
    expect((await get(port, [["X-Forwarded-For", "198.51.100.77"], ["X-Forwarded-For", "203.0.113.5"]])).xff).toBe("127.0.0.1");
    expect((await get(port, [])).xff).toBe("127.0.0.1");
  });

  it("with TRUST_PROXY_HOPS=1 the entry our proxy appended is kept, alone", async () => {
    const port = await serve(1);
    expect((await get(port, [["X-Forwarded-For", "203.0.113.66, 198.51.100.77"]])).xff).toBe("198.51.100.77");
    // Two headers (the client's and the proxy's) are one list; the last entry wins.
    expect((await get(port, [["X-Forwarded-For", "203.0.113.66"], ["X-Forwarded-For", "198.51.100.77"]])).xff).toBe("198.51.100.77");
    // Not through the proxy (no header) or garbage where its entry should be: the connection's address.
    expect((await get(port, [])).xff).toBe("127.0.0.1");
    expect((await get(port, [["X-Forwarded-For", "198.51.100.77, nonsense"]])).xff).toBe("127.0.0.1");
  });

  it("other headers that claim to name the client do not reach the app", async () => {
    const port = await serve(0);
    const seen = await get(port, [["X-Real-IP", "198.51.100.78"], ["Forwarded", "for=198.51.100.79"]]);
    expect(seen).toEqual({ xff: "127.0.0.1", realIp: null, forwarded: null });
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
});
