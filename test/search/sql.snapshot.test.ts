import { describe, expect, it } from "vitest";
import * as sql from "../../lib/search/sql";

// Every search statement rendered with fixed arguments: any SQL change is a snapshot diff. The
// active space's statements (the ones every search runs) were recorded before the statements
// learned to read a shadow space's pointers (docs/evaluation.md), and must stay byte-identical.
const ACTIVE = { id: 3, dims: 384 };

describe("search SQL", () => {
  it("renders the active space's statements", () => {
    const rendered = {
      vectorCandidatesExact: sql.vectorCandidatesSql(ACTIVE, true, 10),
      vectorCandidatesHnsw: sql.vectorCandidatesSql(ACTIVE, false, 10),
      vectorSearchExact: sql.vectorSearchSql(ACTIVE, true, 20),
      vectorSearchHnsw: sql.vectorSearchSql(ACTIVE, false, 20),
      textSearch: sql.textSearchSql(ACTIVE, 50),
      tenantSpace: sql.TENANT_SPACE_SQL,
      tenantLanguage: sql.TENANT_LANGUAGE_SQL,
      tenantSize: sql.tenantSizeSql(384),
    };
    expect(rendered).toMatchSnapshot();
  });

  it("renders a shadow space's statements: its space_pointers rows, every join kept in the space", () => {
    const SHADOW = { id: 7, dims: 256, shadow: true };
    const rendered = {
      vectorSearchExact: sql.vectorSearchSql(SHADOW, true, 20),
      vectorSearchHnsw: sql.vectorSearchSql(SHADOW, false, 20),
      textSearch: sql.textSearchSql(SHADOW, 50),
    };
    for (const text of Object.values(rendered)) {
      expect(text).not.toContain("search_pointers");
      // Every pointer relation named is filtered to the space.
      const joins = text.match(/space_pointers sp/g)?.length ?? 0;
      expect(text.match(/sp\.space_id = 7/g)?.length ?? 0).toBe(joins);
    }
    expect(rendered).toMatchSnapshot();
  });
});
