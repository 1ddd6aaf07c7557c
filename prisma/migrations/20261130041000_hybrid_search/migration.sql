-- Full-text search beside vector search (hybrid search).
--
-- Each tenant names the text search configuration its chunks are indexed and queried with
-- (`english` by default; `simple` for text without word stemming, such as CJK, where it indexes
-- whole runs between spaces and punctuation, so a word inside a longer run is not found).
-- A generated column cannot read another table, so each chunk carries its own configuration,
-- copied from its tenant when the chunk is inserted (trigger below), and `tsv` is generated from
-- it: the write path needs no change, and a chunk keeps the configuration it was indexed with.
-- Changing a tenant's language applies to chunks written afterwards; to re-index existing ones,
-- `UPDATE chunks SET search_language = <new> WHERE tenant_id = <tenant>` (regenerates tsv).
--
-- Adding a stored generated column rewrites the chunks table (an ACCESS EXCLUSIVE lock for the
-- length of the rewrite): plan it on a large deployment.

ALTER TABLE "tenants" ADD COLUMN "search_language" REGCONFIG NOT NULL DEFAULT 'english';

ALTER TABLE "chunks" ADD COLUMN "search_language" REGCONFIG NOT NULL DEFAULT 'english';
ALTER TABLE "chunks" ADD COLUMN "tsv" TSVECTOR GENERATED ALWAYS AS (to_tsvector("search_language", "text")) STORED;

CREATE FUNCTION "chunks_search_language"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_language := coalesce((SELECT t.search_language FROM tenants t WHERE t.id = NEW.tenant_id), 'english');
  RETURN NEW;
END $$;
-- Generated columns are computed after BEFORE triggers, so tsv uses the tenant's configuration.
CREATE TRIGGER "chunks_search_language" BEFORE INSERT ON "chunks" FOR EACH ROW EXECUTE FUNCTION "chunks_search_language"();

CREATE INDEX "chunks_tsv_idx" ON "chunks" USING gin ("tsv");
