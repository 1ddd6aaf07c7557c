-- indexwright:no-transaction
-- Replaced by index_tasks_document_key (the same columns, led by the document).
DROP INDEX CONCURRENTLY IF EXISTS "index_tasks_business_key";
