-- indexwright:no-transaction
-- A prefix of index_tasks_document_key (document, version).
DROP INDEX CONCURRENTLY IF EXISTS "index_tasks_document_idx";
