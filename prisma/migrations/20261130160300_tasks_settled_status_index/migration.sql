-- indexwright:no-transaction
-- The status index without RUNNING rows, so a claim adds no entry to it. Running tasks are few (the
-- fleet's slots) and index_tasks_lease_idx (predicate status = 'RUNNING') serves every read of
-- them; the other statuses keep their (status, task_id) order for lists, counts and the newest
-- finished tasks. The full index is dropped by the next migration.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "index_tasks_settled_status_idx" ON "index_tasks"("status", "task_id") WHERE "status" <> 'RUNNING';
