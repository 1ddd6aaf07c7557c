import { afterAll, expect, it } from "vitest";

// The health route answers anyone. When the database is down it says so, without the driver's
// message: that names the host, the port, the user and why a login failed.
const url = "postgresql://health_user:s3cret-pw@127.0.0.1:1/health_db";
const saved = process.env.DATABASE_URL;
process.env.DATABASE_URL = url;
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  if (saved === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = saved;
});

it("a database that does not answer is a 503 with a fixed message, nothing of the connection in it", async () => {
  const route = await import("../../app/api/health/route");
  const res = await route.GET();
  expect(res.status).toBe(503);
  const body = await res.json();
  expect(body).toEqual({
    ok: false,
    database: "unreachable",
    error: { code: "DATABASE_UNAVAILABLE", message: "the database did not answer; the server log has the reason" },
  });
  expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|health_user|health_db|ECONNREFUSED|:1\b/);
});
