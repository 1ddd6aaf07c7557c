-- A lease attempt never exceeds the attempt budget. Release at shutdown used to let a task come
-- back with attempts = max_attempts and be claimed once more; it now refunds the attempt by
-- raising max_attempts, and the database holds the rule so no path can break it again.
UPDATE "index_tasks" SET "max_attempts" = "attempts" WHERE "attempts" > "max_attempts";
ALTER TABLE "index_tasks" ADD CONSTRAINT "index_tasks_attempts_within_budget" CHECK ("attempts" <= "max_attempts");
