-- Sign-in throttling counters (lib/auth/throttle.ts), shared by every web process. The layout is
-- the one rate-limiter-flexible's RateLimiterPostgres reads and writes (its upsert inserts
-- positionally: key, points, expire); it is created here so no DDL runs while answering requests.
-- "key" is the limiter's prefix and a hashed account + address (or an address); "expire" is epoch
-- milliseconds. Rows expired for an hour are deleted by the limiter every five minutes.
CREATE TABLE "sign_in_limits" (
    "key"    TEXT PRIMARY KEY,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT
);
CREATE INDEX "sign_in_limits_expire_idx" ON "sign_in_limits"("expire");
