-- A force-done of a DEAD DELETE now does the delete's work (lib/operations/repository.ts
-- forceDone). One closed before that kept its deleted document's search pointer and ACTIVE index
-- version for good: garbage collection takes only RETIRED/READY versions no pointer names, and the
-- reconciler's orphan check skips referenced ones. This finishes those deletes as the worker's
-- DELETE would (removeFromSearch: the pointer dropped, every version retired, so the chunks go
-- after retention). A DEAD DELETE is left to the operator; a document published again since is
-- not deleted and not touched.
WITH finished AS (
  SELECT d.id
    FROM documents d
   WHERE d.deleted_at IS NOT NULL
     AND EXISTS (SELECT 1 FROM search_pointers p WHERE p.document_id = d.id)
     AND EXISTS (SELECT 1 FROM index_tasks t
                  WHERE t.document_id = d.id AND t.version_number = d.business_version
                    AND t.task_type = 'DELETE' AND t.status = 'RESOLVED')
     FOR UPDATE OF d
),
dropped AS (
  DELETE FROM search_pointers p USING finished f WHERE p.document_id = f.id RETURNING p.document_id
)
UPDATE index_versions iv SET status = 'RETIRED', retired_at = now()
  FROM finished f
 WHERE iv.document_id = f.id AND iv.status IN ('ACTIVE', 'READY', 'BUILDING');
