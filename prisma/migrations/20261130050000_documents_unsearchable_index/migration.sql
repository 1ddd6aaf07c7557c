-- indexwright:no-transaction
-- Documents no search version serves (never indexed, or deleted): one of the two ways a document
-- can be NOT_INDEXED, found without reading every document.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "documents_unsearchable_idx" ON "documents"("id") WHERE "search_version" IS NULL;
