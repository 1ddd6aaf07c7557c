-- A cancelled build turns its document FAILED (lib/documents/state.ts) just as a dead one does, so
-- it sends document.failed as well, with "cancelled": true. It sends no task.dead: the task did not
-- die, an operator stopped it. The rest is unchanged: task.dead for every task that becomes DEAD,
-- document.failed when the task is the one the document state rule reads (the newest INDEX or
-- REINDEX task of the live document's business version).
CREATE OR REPLACE FUNCTION "indexwright_webhook_task"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d RECORD;
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = NEW.status THEN
    RETURN NULL;
  END IF;
  SELECT id, key, business_version, deleted_at INTO d FROM documents WHERE id = NEW.document_id;
  IF NEW.status = 'DEAD' THEN
    PERFORM indexwright_webhook_emit(NEW.tenant_id, 'task.dead', jsonb_build_object(
      'tenant', NEW.tenant_id, 'taskId', NEW.task_id::text, 'taskType', NEW.task_type,
      'documentId', NEW.document_id, 'key', d.key, 'version', NEW.version_number,
      'attempts', NEW.attempts, 'errorCode', NEW.error_code, 'errorMessage', NEW.error_message));
  END IF;
  IF NEW.task_type IN ('INDEX', 'REINDEX') AND d.id IS NOT NULL AND d.deleted_at IS NULL
     AND NEW.version_number = d.business_version
     AND NOT EXISTS (SELECT 1 FROM index_tasks t
                      WHERE t.document_id = NEW.document_id AND t.version_number = NEW.version_number
                        AND t.task_type IN ('INDEX', 'REINDEX') AND t.task_id > NEW.task_id) THEN
    PERFORM indexwright_webhook_emit(NEW.tenant_id, 'document.failed', jsonb_build_object(
      'tenant', NEW.tenant_id, 'key', d.key, 'documentId', NEW.document_id, 'version', NEW.version_number,
      'taskId', NEW.task_id::text, 'errorCode', NEW.error_code, 'errorMessage', NEW.error_message,
      'cancelled', NEW.status = 'CANCELLED'));
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER "index_tasks_webhook" ON "index_tasks";
CREATE TRIGGER "index_tasks_webhook"
AFTER INSERT OR UPDATE OF "status" ON "index_tasks"
FOR EACH ROW WHEN (NEW."status" IN ('DEAD', 'CANCELLED')) EXECUTE FUNCTION "indexwright_webhook_task"();
