import { expect, test } from "./fixtures";

// The app as `npm start` runs it (TRUST_PROXY_HOPS unset: no trusted proxy) takes the client
// address from the connection. An X-Forwarded-For the client writes itself must not give it a
// fresh sign-in counter per request.

test("a spoofed X-Forwarded-For does not dodge sign-in throttling", async ({ request }) => {
  const email = `spoofer-${Date.now().toString(36)}@example.test`;
  const attempt = (password: string, forwardedFor: string) =>
    request.post("/api/auth/signin", {
      data: { email, password },
      headers: { "x-forwarded-for": forwardedFor, "x-real-ip": forwardedFor },
    });

  for (let i = 1; i <= 5; i++) expect((await attempt(`wrong-${i}`, `198.51.100.${i}`)).status()).toBe(401);
  const blocked = await attempt("wrong-6", "203.0.113.200");
  expect(blocked.status()).toBe(429);
  expect(blocked.headers()["retry-after"]).toMatch(/^[1-9]\d*$/);
  expect((await blocked.json()).error.code).toBe("TOO_MANY_ATTEMPTS");
});
