-- indexwright:no-transaction
-- Priorities and fair share in the claim (docs/decisions/040-fair-claim.md). Every task has a
-- priority class: 0 interactive (a publish, a delete, an operator's action), 1 bulk (a sync, a
-- reconciler repair, a bulk reindex), 2 migration (MIGRATE, claimed into its own slots). Within a
-- class, the claim takes PENDING tasks in fair_at order: a virtual finish time given when the task
-- joins the queue, after the tenant's own queued tasks and never before the queue's head
-- (self-clocked fair queuing), so tenants are served in turn whatever their backlogs.
ALTER TABLE "index_tasks" ADD COLUMN IF NOT EXISTS "priority" SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE "index_tasks" ADD COLUMN IF NOT EXISTS "fair_at" TIMESTAMPTZ NOT NULL DEFAULT now();
UPDATE "index_tasks" SET "priority" = 2 WHERE "task_type" = 'MIGRATE' AND "priority" <> 2;
-- Tasks queued before this migration keep their first-in first-out order.
UPDATE "index_tasks" SET "fair_at" = "next_attempt_at" WHERE "status" IN ('PENDING', 'RETRY_WAIT');
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'index_tasks_priority_check') THEN
    ALTER TABLE "index_tasks" ADD CONSTRAINT "index_tasks_priority_check"
      CHECK ("priority" IN (0, 1, 2) AND ("priority" = 2) = ("task_type" = 'MIGRATE')) NOT VALID;
  END IF;
END $$;
ALTER TABLE "index_tasks" VALIDATE CONSTRAINT "index_tasks_priority_check";

-- A task's place when it joins the queue (inserted, revived, or back from RUNNING to wait for a
-- retry): after the queue's head in its class (the task the next claim takes; a paused tenant's
-- work is not the head while anything else is queued) and one millisecond after the tenant's newest queued task of that class. Volatile, so
-- each call sees the rows its statement wrote before: a tenant's bulk insert or bulk retry lines
-- up one after another. indexwright.fair_queue = off (a database or session setting) is first-in
-- first-out, the comparison bench:fairness measures against. The statements that move a task
-- back into the queue call it in their SET (lib/queue/sql.ts, lib/queue/actions-sql.ts): a
-- BEFORE UPDATE trigger would lock the row of every update on the hot path, a completion's too.
CREATE OR REPLACE FUNCTION "indexwright_fair_at"(p_tenant TEXT, p_priority SMALLINT) RETURNS TIMESTAMPTZ
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  head TIMESTAMPTZ;
  last TIMESTAMPTZ;
  slot INTEGER;
  key BIGINT;
BEGIN
  IF current_setting('indexwright.fair_queue', true) = 'off' THEN
    RETURN clock_timestamp();
  END IF;
  -- Concurrent enqueues of one tenant and class cannot see each other's rows, so each would read
  -- the same newest task and take the same place: a client publishing N at a time would be served
  -- N per turn. Each enqueue therefore takes the first free of 32 slot locks of its tenant and
  -- class (try-locks: nobody waits) and adds its slot number to its place, so concurrent ones line
  -- up one after another. Held to the transaction's end and never waited for, they close no cycle
  -- (docs/architecture.md#lock-order); a statement that queues many rows holds its slot for all.
  slot := 0;
  key := (26993::bigint << 48) | ((hashtext(p_tenant || '/' || p_priority)::bigint & 4294967295) << 5);
  WHILE slot < 32 AND NOT pg_try_advisory_xact_lock(key | slot) LOOP
    slot := slot + 1;
  END LOOP;
  SELECT t."fair_at" INTO head FROM "index_tasks" t
   WHERE t."status" = 'PENDING' AND t."priority" = p_priority
     AND (NOT EXISTS (SELECT 1 FROM "task_pauses")
          OR NOT (t."tenant_id" = ANY (ARRAY(SELECT "tenant_id" FROM "task_pauses" WHERE "tenant_id" IS NOT NULL))
                  OR t."task_type" = ANY (ARRAY(SELECT "task_type" FROM "task_pauses" WHERE "task_type" IS NOT NULL))))
   ORDER BY t."priority", t."fair_at", t."task_id"
   LIMIT 1;
  -- Everything paused (a task-type pause, or a fleet paused to queue a backfill first): the head
  -- is then the first queued task all the same, so what queues meanwhile still takes turns.
  IF head IS NULL THEN
    SELECT t."fair_at" INTO head FROM "index_tasks" t
     WHERE t."status" = 'PENDING' AND t."priority" = p_priority
     ORDER BY t."priority", t."fair_at", t."task_id"
     LIMIT 1;
  END IF;
  SELECT t."fair_at" INTO last FROM "index_tasks" t
   WHERE t."status" = 'PENDING' AND t."tenant_id" = p_tenant AND t."priority" = p_priority
   ORDER BY t."tenant_id" DESC, t."priority" DESC, t."fair_at" DESC
   LIMIT 1;
  RETURN greatest(coalesce(head, clock_timestamp()), last + interval '1 millisecond') + slot * interval '1 millisecond';
END $$;

-- An inserted task's class and place. A BEFORE INSERT trigger locks nothing; an upsert that
-- revives a task takes EXCLUDED.fair_at, computed here for the row it proposed.
CREATE OR REPLACE FUNCTION "indexwright_task_fair_at"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Migration work is its own class whoever queues it (indexwright_queue_migrate names none).
  IF NEW."task_type" = 'MIGRATE' THEN
    NEW."priority" := 2;
  END IF;
  IF NEW."status" IN ('PENDING', 'RETRY_WAIT') THEN
    NEW."fair_at" := "indexwright_fair_at"(NEW."tenant_id", NEW."priority");
  END IF;
  RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS "index_tasks_fair_at_insert" ON "index_tasks";
CREATE TRIGGER "index_tasks_fair_at_insert" BEFORE INSERT ON "index_tasks"
FOR EACH ROW EXECUTE FUNCTION "indexwright_task_fair_at"();

-- The trigger's revive of a MIGRATE task takes its new place too.
CREATE OR REPLACE FUNCTION "indexwright_queue_migrate"(p_tenant TEXT, p_document UUID, p_version INTEGER, p_space INTEGER, p_migration BIGINT, p_max_attempts INTEGER) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  t RECORD;
BEGIN
  INSERT INTO "index_tasks" ("tenant_id", "document_id", "version_number", "task_type", "space_id", "max_attempts", "priority")
  VALUES (p_tenant, p_document, p_version, 'MIGRATE', p_space, p_max_attempts, 2)
  ON CONFLICT ("document_id", "version_number", "tenant_id", "task_type") DO UPDATE
     SET "status" = 'PENDING', "max_attempts" = "index_tasks"."attempts" + EXCLUDED."max_attempts", "space_id" = EXCLUDED."space_id",
         "next_attempt_at" = now(), "fair_at" = EXCLUDED."fair_at", "error_code" = NULL, "error_message" = NULL, "lease_owner" = NULL, "lease_until" = NULL,
         "progress_done" = 0, "progress_total" = 0, "chunks_total" = NULL, "chunks_reused" = NULL, "batches_sent" = NULL,
         "created_at" = now(), "updated_at" = now(), "started_at" = NULL, "finished_at" = NULL
   WHERE "index_tasks"."status" NOT IN ('PENDING', 'RUNNING', 'RETRY_WAIT')
  RETURNING "task_id" INTO t;
  IF t."task_id" IS NOT NULL THEN
    INSERT INTO "task_events" ("task_id", "tenant_id", "kind", "actor", "detail")
    VALUES (t."task_id", p_tenant, 'CREATED', 'system', jsonb_build_object('migration', p_migration, 'spaceId', p_space));
    PERFORM pg_notify('indexwright_tasks', '');
  END IF;
END $$;

-- The claim's two scans: PENDING work in (priority, fair_at) order, one range across the classes
-- it takes, and RETRY_WAIT work by the time it comes due (so a retry that is not due is never
-- read), merged by (priority, fair_at).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "index_tasks_fair_idx" ON "index_tasks"("priority", "fair_at", "task_id")
  WHERE "status" = 'PENDING';
CREATE INDEX CONCURRENTLY IF NOT EXISTS "index_tasks_retry_idx" ON "index_tasks"("next_attempt_at", "task_id")
  WHERE "status" = 'RETRY_WAIT';
-- A tenant's newest queued task of a class (the trigger), and each tenant's next task in line (the
-- overview's and metrics' wait per tenant).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "index_tasks_tenant_fair_idx" ON "index_tasks"("tenant_id", "priority", "fair_at")
  WHERE "status" = 'PENDING';
-- Migration work is claimed from the two indexes above (class 2).
DROP INDEX CONCURRENTLY IF EXISTS "index_tasks_migrate_due_idx";
