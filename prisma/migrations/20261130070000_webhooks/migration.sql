-- Webhooks from a transactional outbox (lib/webhooks/, worker/webhooks.ts).
--
-- Events are written by triggers on the tables whose change they report, so they commit or roll
-- back with that change and no code path (worker switch, publish, operator action, reconciler,
-- claim) can change the state without writing them. Each event is fanned out here, in the same
-- transaction, to one delivery row per enabled endpoint of the tenant subscribed to its type;
-- with no such endpoint nothing is written at all. The worker fleet's delivery loop sends them.
-- The event types below are WEBHOOK_EVENT_TYPES in lib/webhooks/constants.ts, the delivery states
-- DELIVERY_STATUSES (test/webhooks/triggers.test.ts checks both lists against these CHECKs).

CREATE TABLE "webhook_endpoints" (
    "id"                    UUID PRIMARY KEY,
    "tenant_id"             TEXT NOT NULL,
    "url"                   TEXT NOT NULL,
    "description"           TEXT NOT NULL DEFAULT '',
    "event_types"           TEXT[] NOT NULL,
    "enabled"               BOOLEAN NOT NULL DEFAULT true,
    -- HMAC keys must be readable to sign with, so the secret is stored as issued (whsec_…); the
    -- API shows it once, at creation or rotation, and never lists it.
    "secret"                TEXT NOT NULL,
    -- After a rotation the old secret signs too until previous_secret_until, so a receiver can
    -- switch keys without rejecting deliveries in between.
    "previous_secret"       TEXT,
    "previous_secret_until" TIMESTAMPTZ(3),
    "created_by"            TEXT NOT NULL,
    "created_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "updated_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "webhook_endpoints_event_types_known" CHECK (
      cardinality("event_types") > 0
      AND "event_types" <@ ARRAY['document.searchable', 'document.failed', 'document.deleted', 'task.dead']::text[])
);
-- The fan-out's look-up, run inside the changing transaction: enabled endpoints of one tenant.
CREATE INDEX "webhook_endpoints_tenant_idx" ON "webhook_endpoints"("tenant_id") WHERE "enabled";

CREATE TABLE "webhook_events" (
    "id"         BIGSERIAL PRIMARY KEY,
    -- The Standard Webhooks message id (header webhook-id): the same on every attempt and
    -- redelivery, so receivers can drop duplicates.
    "message_id" TEXT NOT NULL UNIQUE,
    "tenant_id"  TEXT NOT NULL,
    "type"       TEXT NOT NULL CONSTRAINT "webhook_events_type_known"
                   CHECK ("type" IN ('document.searchable', 'document.failed', 'document.deleted', 'task.dead')),
    "payload"    JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "webhook_events_created_at_idx" ON "webhook_events"("created_at");

CREATE TABLE "webhook_deliveries" (
    "id"               BIGSERIAL PRIMARY KEY,
    "event_id"         BIGINT NOT NULL REFERENCES "webhook_events"("id") ON DELETE CASCADE,
    "endpoint_id"      UUID NOT NULL REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE,
    "tenant_id"        TEXT NOT NULL,
    "status"           TEXT NOT NULL DEFAULT 'PENDING' CONSTRAINT "webhook_deliveries_status_known"
                         CHECK ("status" IN ('PENDING', 'SENDING', 'RETRY_WAIT', 'DELIVERED', 'DEAD')),
    -- Raised by every claim: the fencing token of a send, as index_tasks.attempts is of a task.
    "attempts"         INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "lease_owner"      TEXT,
    "lease_until"      TIMESTAMPTZ(3),
    "last_attempt_at"  TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_latency_ms"  INTEGER,
    "last_error"       TEXT,
    "delivered_at"     TIMESTAMPTZ(3),
    "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "updated_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "webhook_deliveries_event_endpoint_key" UNIQUE ("event_id", "endpoint_id")
);
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "status" IN ('PENDING', 'RETRY_WAIT');
CREATE INDEX "webhook_deliveries_lease_idx" ON "webhook_deliveries"("lease_until") WHERE "status" = 'SENDING';
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries"("endpoint_id", "id" DESC);

-- One event: written only when some enabled endpoint of the tenant subscribes to its type, with
-- one delivery per such endpoint. The endpoints are read in the changing transaction's snapshot:
-- who receives an event is decided by who was subscribed when it happened.
CREATE FUNCTION "indexwright_webhook_emit"(p_tenant TEXT, p_type TEXT, p_data JSONB) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  ev BIGINT;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE tenant_id = p_tenant AND enabled AND p_type = ANY(event_types)) THEN
    RETURN;
  END IF;
  INSERT INTO webhook_events (message_id, tenant_id, type, payload)
  VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), p_tenant, p_type,
          jsonb_build_object('type', p_type,
                             'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                             'data', p_data))
  RETURNING id INTO ev;
  INSERT INTO webhook_deliveries (event_id, endpoint_id, tenant_id)
  SELECT ev, id, tenant_id FROM webhook_endpoints WHERE tenant_id = p_tenant AND enabled AND p_type = ANY(event_types);
END $$;

-- document.searchable: the pointer starts serving the document's business version, or serves it
-- from another embedding space than before (after a model change the old version was invisible to
-- search). A rollback to an older version, a rebuild of the same version in the same space, or a
-- pin change is not a new fact for a receiver. Every pointer write holds the document row lock, so
-- the document read here is the one the writer decided on.
CREATE FUNCTION "indexwright_webhook_pointer"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d RECORD;
  now_iv RECORD;
  was_iv RECORD;
BEGIN
  SELECT id, tenant_id, key, business_version, deleted_at INTO d FROM documents WHERE id = NEW.document_id;
  IF NOT FOUND OR d.deleted_at IS NOT NULL OR NEW.version_number <> d.business_version THEN
    RETURN NULL;
  END IF;
  SELECT embedding_model, embedding_dimensions INTO now_iv FROM index_versions WHERE id = NEW.index_version_id;
  IF TG_OP = 'UPDATE' AND OLD.version_number = NEW.version_number THEN
    SELECT embedding_model, embedding_dimensions INTO was_iv FROM index_versions WHERE id = OLD.index_version_id;
    IF FOUND AND was_iv.embedding_model IS NOT DISTINCT FROM now_iv.embedding_model
             AND was_iv.embedding_dimensions IS NOT DISTINCT FROM now_iv.embedding_dimensions THEN
      RETURN NULL;
    END IF;
  END IF;
  PERFORM indexwright_webhook_emit(d.tenant_id, 'document.searchable', jsonb_build_object(
    'tenant', d.tenant_id, 'key', d.key, 'documentId', d.id, 'version', NEW.version_number,
    'indexVersionId', NEW.index_version_id,
    'embeddingModel', now_iv.embedding_model, 'embeddingDimensions', now_iv.embedding_dimensions));
  RETURN NULL;
END $$;
CREATE TRIGGER "search_pointers_webhook"
AFTER INSERT OR UPDATE OF "index_version_id", "version_number" ON "search_pointers"
FOR EACH ROW EXECUTE FUNCTION "indexwright_webhook_pointer"();

-- document.deleted: the moment search stops showing it (the read path hides deleted_at at once),
-- not when the DELETE task later retires its index versions: that task can be superseded by a
-- re-publish or go DEAD, and the document is gone from search either way.
CREATE FUNCTION "indexwright_webhook_document"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    PERFORM indexwright_webhook_emit(NEW.tenant_id, 'document.deleted', jsonb_build_object(
      'tenant', NEW.tenant_id, 'key', NEW.key, 'documentId', NEW.id, 'version', NEW.business_version));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "documents_webhook"
AFTER UPDATE OF "deleted_at" ON "documents"
FOR EACH ROW EXECUTE FUNCTION "indexwright_webhook_document"();

-- task.dead for every task that becomes DEAD (worker failure past its budget, a lease expired on
-- its last attempt in the claim or the reconciler); document.failed as well when that task is the
-- one the document state rule reads (lib/documents/state.ts LATEST_TASK_JOIN: the newest INDEX or
-- REINDEX task of the live document's business version), i.e. exactly when the document turns
-- FAILED. A task made DEAD again after an operator retry is a new occurrence and reported again.
CREATE FUNCTION "indexwright_webhook_task"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d RECORD;
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'DEAD' THEN
    RETURN NULL;
  END IF;
  SELECT id, key, business_version, deleted_at INTO d FROM documents WHERE id = NEW.document_id;
  PERFORM indexwright_webhook_emit(NEW.tenant_id, 'task.dead', jsonb_build_object(
    'tenant', NEW.tenant_id, 'taskId', NEW.task_id::text, 'taskType', NEW.task_type,
    'documentId', NEW.document_id, 'key', d.key, 'version', NEW.version_number,
    'attempts', NEW.attempts, 'errorCode', NEW.error_code, 'errorMessage', NEW.error_message));
  IF NEW.task_type IN ('INDEX', 'REINDEX') AND d.id IS NOT NULL AND d.deleted_at IS NULL
     AND NEW.version_number = d.business_version
     AND NOT EXISTS (SELECT 1 FROM index_tasks t
                      WHERE t.document_id = NEW.document_id AND t.version_number = NEW.version_number
                        AND t.task_type IN ('INDEX', 'REINDEX') AND t.task_id > NEW.task_id) THEN
    PERFORM indexwright_webhook_emit(NEW.tenant_id, 'document.failed', jsonb_build_object(
      'tenant', NEW.tenant_id, 'key', d.key, 'documentId', NEW.document_id, 'version', NEW.version_number,
      'taskId', NEW.task_id::text, 'errorCode', NEW.error_code, 'errorMessage', NEW.error_message));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "index_tasks_webhook"
AFTER INSERT OR UPDATE OF "status" ON "index_tasks"
FOR EACH ROW WHEN (NEW."status" = 'DEAD') EXECUTE FUNCTION "indexwright_webhook_task"();
