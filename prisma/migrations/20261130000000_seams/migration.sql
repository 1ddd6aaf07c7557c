-- A lease attempt never exceeds the attempt budget. Release at shutdown used to let a task come
-- back with attempts = max_attempts and be claimed once more; it now refunds the attempt by
-- raising max_attempts, and the database holds the rule so no path can break it again.
-- Waiting tasks that the old release gave back with no attempt left get the refund now; any
-- other row past its budget is capped at what it used.
UPDATE "index_tasks" SET "max_attempts" = "attempts" + 1 WHERE "status" IN ('PENDING', 'RETRY_WAIT') AND "attempts" >= "max_attempts";
UPDATE "index_tasks" SET "max_attempts" = "attempts" WHERE "attempts" > "max_attempts";
ALTER TABLE "index_tasks" ADD CONSTRAINT "index_tasks_attempts_within_budget" CHECK ("attempts" <= "max_attempts");
