-- Task events are written by the statement that changes their task, with the id of the row it
-- updated or inserted, or for a task read just before (an operator action on the row it locked, a
-- worker's lost renewal); tasks are never deleted. The foreign key could never fail, and it cost
-- every event a FOR KEY SHARE look-up of the task row (a trigger run, and for the claim's event a
-- row lock in the WAL). The statements that write events are in lib/queue/sql.ts,
-- lib/operations/repository.ts, lib/documents/*, lib/reconcile/reconcile.ts and worker/loop.ts.
ALTER TABLE "task_events" DROP CONSTRAINT IF EXISTS "task_events_task_id_fkey";
