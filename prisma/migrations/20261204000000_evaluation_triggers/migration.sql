-- Evaluation runs no one asked for by hand (docs/evaluation.md#scheduled-runs-and-runs-after-a-switch):
-- `scheduled` (the worker's maintenance, every EVALUATION_SCHEDULE_MINUTES) and `switch` (queued by
-- an index-space switch or switch-back, in its own transaction, against the newly active space).
-- `api` stays the manual run's name: it is what the API has answered since runs exist.
ALTER TABLE "evaluation_runs" DROP CONSTRAINT "evaluation_runs_trigger_check";
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_trigger_check"
    CHECK ("trigger" IN ('api', 'gate', 'scheduled', 'switch'));

-- At most one scheduled run of a tenant waiting or running: every worker's maintenance offers one
-- (INSERT … ON CONFLICT DO NOTHING), two passes at once find each other here, and a run that waits
-- longer than the interval (workers busy or stopped) is not joined by another.
CREATE UNIQUE INDEX "evaluation_runs_one_open_scheduled" ON "evaluation_runs"("tenant_id")
    WHERE "trigger" = 'scheduled' AND "state" IN ('PENDING', 'RUNNING');

-- When each tenant's newest scheduled run was asked for: what the schedule compares with its interval.
CREATE INDEX "evaluation_runs_scheduled_idx" ON "evaluation_runs"("tenant_id", "created_at" DESC)
    WHERE "trigger" = 'scheduled';

-- The metrics' latest figures per tenant, space and mode (lib/metrics.ts): finished runs, newest first.
CREATE INDEX "evaluation_runs_latest_done_idx" ON "evaluation_runs"("tenant_id", "space_id", "mode", "finished_at" DESC)
    WHERE "state" = 'DONE';
