// Fake external services for the Playwright journeys, on one port (E2E_SERVICES_PORT, default
// 3199), started by playwright.config.ts as a second webServer:
//
//   node --import tsx e2e/services/server.ts
//
//   GET /health           {ok:true}
//   /v1/embeddings, /control/rules…   see embeddings.ts
//   /oidc/…                           an OpenID Connect provider, see test/helpers/fake-oidc.ts
//
// More route groups mount the same way: a `mountX(router, options)` in its own file, called below.

import http from "node:http";
import { sendJson } from "../../test/helpers/openai-embeddings";
import { mountEmbeddings } from "./embeddings";
import { Router } from "./router";
import { createFakeOidc } from "../../test/helpers/fake-oidc";
import { E2E_PORTS, FAKE_OIDC, FAKE_OPENAI } from "./settings";

const router = new Router();
router.get("/health", (_req, res) => sendJson(res, 200, { ok: true }));
mountEmbeddings(router, { apiKey: FAKE_OPENAI.apiKey, dimensions: FAKE_OPENAI.dimensions });
// Its signing key is generated at start, so routes mount once it exists (before listen, below).
const oidcReady = createFakeOidc({ clientId: FAKE_OIDC.clientId, clientSecret: FAKE_OIDC.clientSecret }).then(
  (oidc) => {
    for (const r of oidc.routes)
      router.on(r.method, `/oidc${r.path}`, (req, res) => r.handle(req, res, FAKE_OIDC.issuer));
  },
);

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://services.invalid");
  const found = router.match(req.method ?? "GET", url.pathname);
  if ("status" in found) {
    sendJson(res, found.status, {
      error: {
        code: found.status === 404 ? "NOT_FOUND" : "METHOD_NOT_ALLOWED",
        message: `${req.method} ${url.pathname}`,
      },
    });
    return;
  }
  Promise.resolve(found.handler(req, res, found.params)).catch((err: unknown) => {
    console.error(`[e2e-services] ${req.method} ${url.pathname} failed:`, err);
    if (!res.headersSent) sendJson(res, 500, { error: { code: "INTERNAL", message: String(err) } });
    else res.destroy();
  });
});

const port = E2E_PORTS.services;
void oidcReady.then(() =>
  server.listen(port, "127.0.0.1", () => console.log(`[e2e-services] listening on http://127.0.0.1:${port}`)),
);
server.on("error", (err) => {
  console.error("[e2e-services]", err);
  process.exit(1);
});
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
