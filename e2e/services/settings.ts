// Ports and fake-provider settings shared by playwright.config.ts, the fake-services server and
// the specs. Every port can be moved by environment so two Playwright runs can coexist.

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a TCP port, got "${raw}"`);
  return n;
}

// Defaults sit below Linux's ephemeral range (32768–60999), so no outgoing connection holds them.
export const E2E_PORTS = {
  /** The dashboard and API (`PORT` of the app). */
  app: port("E2E_PORT", 3100),
  /** The embedded PostgreSQL (PGlite) of the app. */
  db: port("E2E_DB_PORT", 31433),
  /** The fake external services (e2e/services/server.ts). */
  services: port("E2E_SERVICES_PORT", 3199),
};

export const SERVICES_URL = `http://127.0.0.1:${E2E_PORTS.services}`;

/** What the app is configured with and the fake provider expects. */
export const FAKE_OPENAI = {
  apiKey: "sk-e2e-fake-0123456789abcdef",
  // A text-embedding-3 model name makes the client send `dimensions`, as against the real API.
  model: "text-embedding-3-small",
  dimensions: 384,
};

/** The fake OpenID provider mounted under /oidc, and the client the app is registered as. */
export const FAKE_OIDC = {
  issuer: `${SERVICES_URL}/oidc`,
  clientId: "indexwright-e2e",
  clientSecret: "e2e-oidc-client-secret",
  displayName: "Corp SSO",
};
