-- Full-text terms move to the stored content, like the vectors (20261130150000_chunk_vectors): one
-- text, search configuration and tsv per (document, content hash, embedding space), with the GIN
-- index, shared by every index version holding that content. A record no longer computes a
-- tsvector, runs the language trigger or enters the GIN index, which cost about two thirds of
-- writing a record a re-publish kept unchanged; and text search, like vector search, meets a
-- retained version's unchanged text only once.
--
-- The text stays on the records too: the integrity check recomputes each record's content hash
-- from its own text, and reading a record needs no join. A stored content's text is the text its
-- content hash was computed from, so it is the same for every record referencing it.
--
-- Changing a tenant's language now re-indexes its stored content:
--   UPDATE chunk_vectors SET search_language = <new> WHERE tenant_id = <tenant>   (regenerates tsv)
--
-- Rewrites chunks and chunk_vectors (ACCESS EXCLUSIVE for the migration's duration).

ALTER TABLE "chunk_vectors" ADD COLUMN "text" TEXT;
UPDATE "chunk_vectors" v SET "text" = c."text"
  FROM (SELECT DISTINCT ON ("vector_id") "vector_id", "text" FROM "chunks" ORDER BY "vector_id") c
 WHERE c."vector_id" = v."id";
-- A vector no record references (a dropped build's) has no text to take: it goes, and the next
-- index write of its content embeds it again.
DELETE FROM "chunk_vectors" WHERE "text" IS NULL;
ALTER TABLE "chunk_vectors" ALTER COLUMN "text" SET NOT NULL;

ALTER TABLE "chunk_vectors" ADD COLUMN "search_language" REGCONFIG NOT NULL DEFAULT 'english';
UPDATE "chunk_vectors" v SET "search_language" = c."search_language"
  FROM (SELECT DISTINCT ON ("vector_id") "vector_id", "search_language" FROM "chunks" ORDER BY "vector_id") c
 WHERE c."vector_id" = v."id";
ALTER TABLE "chunk_vectors" ADD COLUMN "tsv" TSVECTOR GENERATED ALWAYS AS (to_tsvector("search_language", "text")) STORED;

CREATE FUNCTION "chunk_vectors_search_language"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_language := coalesce((SELECT t.search_language FROM tenants t WHERE t.id = NEW.tenant_id), 'english');
  RETURN NEW;
END $$;
-- Generated columns are computed after BEFORE triggers, so tsv uses the tenant's configuration.
CREATE TRIGGER "chunk_vectors_search_language" BEFORE INSERT ON "chunk_vectors" FOR EACH ROW EXECUTE FUNCTION "chunk_vectors_search_language"();
CREATE INDEX "chunk_vectors_tsv_idx" ON "chunk_vectors" USING gin ("tsv");

DROP INDEX "chunks_tsv_idx";
DROP TRIGGER "chunks_search_language" ON "chunks";
DROP FUNCTION "chunks_search_language"();
ALTER TABLE "chunks" DROP COLUMN "tsv";
ALTER TABLE "chunks" DROP COLUMN "search_language";
