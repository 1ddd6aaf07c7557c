-- indexwright:no-transaction
-- The freshness SLO per tenant (docs/operations.md#freshness-slo). A tenant's own objective and
-- target, set by an admin; NULL follows the fleet's default (SLO_FRESHNESS_OBJECTIVE,
-- SLO_FRESHNESS_TARGET_SECONDS), so changing the default moves every tenant that never chose.
-- The bounds are lib/slo/limits.ts's: an objective of 1 would leave no error budget to divide by.
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "freshness_objective" double precision
  CONSTRAINT "tenants_freshness_objective_range" CHECK ("freshness_objective" >= 0.5 AND "freshness_objective" <= 0.9999);
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "freshness_target_seconds" integer
  CONSTRAINT "tenants_freshness_target_range" CHECK ("freshness_target_seconds" BETWEEN 10 AND 86400);
-- The SLI reads one tenant's INDEX tasks created in the window (lib/slo/sql.ts) at every overview,
-- tenant page and /api/metrics scrape; without this it read every task the tenant ever had. Ended
-- tasks only: a claim's new row version (RUNNING) is not in it, so the claim writes no entry here
-- and a task costs one entry, at its end (test/queue/cost-per-task.test.ts); the unfinished ones
-- the SLI reads through the status and lease indexes, which hold them anyway.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "index_tasks_freshness_idx" ON "index_tasks"("tenant_id", "created_at")
  WHERE "task_type" = 'INDEX' AND "status" IN ('SUCCEEDED','DEAD','SUPERSEDED','RESOLVED','CANCELLED');
