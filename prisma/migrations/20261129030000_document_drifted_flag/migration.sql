-- The planner cannot estimate "business_version IS DISTINCT FROM search_version" (a comparison of
-- two columns) and assumes nearly every document drifts, so it scans them all. A stored boolean
-- has ordinary column statistics, so queries on the few drifted documents use the index below.
ALTER TABLE "documents" ADD COLUMN "drifted" BOOLEAN
  GENERATED ALWAYS AS ("deleted_at" IS NULL AND "business_version" > 0 AND "business_version" IS DISTINCT FROM "search_version") STORED;

DROP INDEX "documents_drift_idx";
CREATE INDEX "documents_drifted_idx" ON "documents"("id") WHERE "drifted";
