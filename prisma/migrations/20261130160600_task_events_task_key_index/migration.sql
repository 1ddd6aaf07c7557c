-- indexwright:no-transaction
-- One index on task events instead of two: the timeline reads a task's events in id order, which
-- (task_id, id) serves, and nothing looks an event up by id alone. The next migration makes it the
-- primary key in place of (id); the one after drops task_events_task_id_idx.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "task_events_task_key" ON "task_events"("task_id", "id");
