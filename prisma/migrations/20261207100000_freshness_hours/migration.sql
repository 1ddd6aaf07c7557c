-- Hourly roll-ups of the freshness SLI (lib/slo/rollup.ts): per tenant and UTC hour, the publishes
-- decided good and bad in it, so the SLO's long windows are a sum of hours rather than a read of
-- every task of the window. A tenant's hours before freshness_rolled_until are counted here, under
-- freshness_rolled_target (the target in force when they were counted; a change drops them).
CREATE TABLE "freshness_hours" (
    "tenant_id" TEXT NOT NULL,
    "hour"      TIMESTAMPTZ(3) NOT NULL,
    "good"      INTEGER NOT NULL,
    "bad"       INTEGER NOT NULL,
    PRIMARY KEY ("tenant_id", "hour")
);

ALTER TABLE "tenants" ADD COLUMN "freshness_rolled_until" TIMESTAMPTZ(3),
                      ADD COLUMN "freshness_rolled_target" INTEGER;
