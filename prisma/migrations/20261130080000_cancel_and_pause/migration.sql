-- Operator cancel: a task that has not started (PENDING) or waits for its next attempt
-- (RETRY_WAIT) can be ended by an operator as CANCELLED, a terminal state that an operator retry
-- revives like DEAD. The status list is TASK_STATUS in lib/domain/constants.ts.
ALTER TABLE "index_tasks" DROP CONSTRAINT "index_tasks_status_check";
ALTER TABLE "index_tasks" ADD CONSTRAINT "index_tasks_status_check"
  CHECK ("status" IN ('PENDING','RUNNING','RETRY_WAIT','SUCCEEDED','DEAD','SUPERSEDED','RESOLVED','CANCELLED'));

-- Paused processing: one row per paused tenant or paused task type; the claim skips the tasks a
-- row names. Resuming deletes the row (the audit log keeps the history). The table holds a handful
-- of rows at most, and is usually empty: the claim tests its emptiness once per statement.
CREATE TABLE "task_pauses" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" TEXT,
    "task_type" TEXT,
    "paused_by" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "paused_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "task_pauses_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "task_pauses_one_target" CHECK (("tenant_id" IS NULL) <> ("task_type" IS NULL)),
    CONSTRAINT "task_pauses_type_check" CHECK ("task_type" IN ('INDEX','REINDEX','DELETE'))
);
CREATE UNIQUE INDEX "task_pauses_tenant_key" ON "task_pauses"("tenant_id");
CREATE UNIQUE INDEX "task_pauses_type_key" ON "task_pauses"("task_type");
