-- indexwright:no-transaction
-- The tasks list filtered by type: INDEX is nearly every task, REINDEX and DELETE are few, and a
-- type with few or no tasks made the list walk the whole table (0.6 s at 1,000,000 tasks). Only
-- the rare types are indexed; a filter on INDEX keeps paging through the primary key.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "index_tasks_rare_type_idx" ON "index_tasks"("task_type", "task_id") WHERE "task_type" <> 'INDEX';
