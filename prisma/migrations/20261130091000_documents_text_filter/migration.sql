-- indexwright:no-transaction
-- The documents list's text filter (`q`: a substring of the key or the title, ILIKE '%…%') read
-- every document: 50 ms of database time per request at 100,000 documents, the one dashboard read
-- over its p95 target in bench:dashboard. Trigram GIN indexes answer a substring match from the
-- index. pg_trgm ships with PostgreSQL's contrib modules (and with managed services); the embedded
-- database loads it at start (lib/db/embedded.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX CONCURRENTLY IF NOT EXISTS "documents_key_trgm_idx" ON "documents" USING gin ("key" gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS "documents_title_trgm_idx" ON "documents" USING gin ("title" gin_trgm_ops);
