-- One statement, so the table is never without a key; the index already exists, so this only
-- takes the table's lock for a moment (both columns are NOT NULL: nothing is scanned).
ALTER TABLE "task_events" DROP CONSTRAINT "task_events_pkey", ADD CONSTRAINT "task_events_pkey" PRIMARY KEY USING INDEX "task_events_task_key";
