-- indexwright:no-transaction
-- Index versions by embedding space, whatever their status: the other way a document can be
-- NOT_INDEXED is a search pointer at a version built in another space (after a model change), and
-- the documents list finds those as ranges of this index around the current space.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "index_versions_space_idx" ON "index_versions"("embedding_model", "embedding_dimensions");
