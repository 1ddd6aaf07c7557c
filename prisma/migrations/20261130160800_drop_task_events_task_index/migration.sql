-- indexwright:no-transaction
-- The primary key (task_id, id) serves the timeline now.
DROP INDEX CONCURRENTLY IF EXISTS "task_events_task_id_idx";
