-- Drift (business version ≠ search version) is read on every overview refresh and snapshot.
-- Comparing against search_pointers row by row costs a scan of every document; instead each
-- document carries a copy of its pointer's version, kept exact by a trigger on search_pointers
-- (whoever moves the pointer), and a partial index holds only the drifted documents, which are
-- normally few.
ALTER TABLE "documents" ADD COLUMN "search_version" INTEGER;

UPDATE "documents" d SET "search_version" = sp."version_number" FROM "search_pointers" sp WHERE sp."document_id" = d."id";

CREATE FUNCTION "indexwright_sync_search_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "documents" SET "search_version" = NULL WHERE "id" = OLD."document_id";
    RETURN OLD;
  END IF;
  UPDATE "documents" SET "search_version" = NEW."version_number" WHERE "id" = NEW."document_id" AND "search_version" IS DISTINCT FROM NEW."version_number";
  RETURN NEW;
END $$;

CREATE TRIGGER "search_pointers_sync_search_version"
AFTER INSERT OR UPDATE OF "version_number" OR DELETE ON "search_pointers"
FOR EACH ROW EXECUTE FUNCTION "indexwright_sync_search_version"();

CREATE INDEX "documents_drift_idx" ON "documents"("tenant_id")
  WHERE "deleted_at" IS NULL AND "business_version" > 0 AND "business_version" IS DISTINCT FROM "search_version";

-- The documents list pages newest first by keyset (updated_at, id).
CREATE INDEX "documents_updated_idx" ON "documents"("updated_at" DESC, "id" DESC);
