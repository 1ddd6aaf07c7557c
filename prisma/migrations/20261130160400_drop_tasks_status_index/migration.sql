-- indexwright:no-transaction
-- Replaced by index_tasks_settled_status_idx and, for RUNNING rows, index_tasks_lease_idx.
DROP INDEX CONCURRENTLY IF EXISTS "index_tasks_status_idx";
