// The publish route handler (app/api/.../versions/route.ts) behind a bare node:http server, as its
// own OS process: FAULT_AFTER_PUBLISH_COMMIT makes the route call process.exit after its commit,
// which must not take the test runner down with it. Run with
//   node --conditions=react-server --import tsx test/faults/publish-server.ts
// (DATABASE_URL and INDEXWRIGHT_BOOTSTRAP_TOKEN from the environment); prints `listening <port>`.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { POST } from "../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route";

const ROUTE = /^\/api\/v1\/tenants\/([^/]+)\/documents\/([^/]+)\/versions$/;

const server = http.createServer((req, res) => {
  const m = ROUTE.exec((req.url ?? "").split("?")[0]);
  if (req.method !== "POST" || !m) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) });
    const response = await POST(request, {
      params: Promise.resolve({ tenant: decodeURIComponent(m[1]), key: decodeURIComponent(m[2]) }),
    });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
});

server.listen(0, "127.0.0.1", () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
