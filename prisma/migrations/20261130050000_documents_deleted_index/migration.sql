-- indexwright:no-transaction
-- The documents list filtered to DELETED pages newest first through this index instead of reading
-- every document for the few deleted ones.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "documents_deleted_idx" ON "documents"("updated_at" DESC, "id" DESC) WHERE "deleted_at" IS NOT NULL;
