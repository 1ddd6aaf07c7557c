-- Filtered search: a tenant with few chunks is searched exactly through this index (perfect recall,
-- a few milliseconds); only large tenants go through the HNSW index with iterative scans.
CREATE INDEX "chunks_tenant_dims_idx" ON "chunks"("tenant_id", "dims", "level");
