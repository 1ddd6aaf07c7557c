import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { documentState, DOCUMENT_STATE_SQL } from "../../lib/documents/state";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb({ migrate: false });
});
afterAll(async () => t?.close());

describe("document state", () => {
  it("TypeScript and SQL agree on every combination", async () => {
    const cases: {
      deleted: boolean;
      businessVersion: number;
      searchVersion: number | null;
      latestTaskStatus: string | null;
      servedInSpace: boolean | null;
    }[] = [];
    for (const deleted of [false, true])
      for (const businessVersion of [0, 1, 2])
        for (const searchVersion of [null, 1, 2])
          for (const latestTaskStatus of [
            null,
            "PENDING",
            "RUNNING",
            "RETRY_WAIT",
            "SUCCEEDED",
            "DEAD",
            "SUPERSEDED",
            "RESOLVED",
            "CANCELLED",
          ])
            for (const servedInSpace of [null, true, false])
              cases.push({ deleted, businessVersion, searchVersion, latestTaskStatus, servedInSpace });
    const { rows } = await t.pool.query(
      `SELECT ${DOCUMENT_STATE_SQL} AS state
         FROM jsonb_to_recordset($1::jsonb) AS x(i int, deleted boolean, business_version int, search_version int, status text, in_space boolean)
         CROSS JOIN LATERAL (SELECT CASE WHEN x.deleted THEN now() END AS deleted_at, x.business_version) d
         CROSS JOIN LATERAL (SELECT x.search_version AS version_number, x.in_space) sp
         CROSS JOIN LATERAL (SELECT x.status) lt
        ORDER BY x.i`,
      [
        JSON.stringify(
          cases.map((c, i) => ({
            i,
            deleted: c.deleted,
            business_version: c.businessVersion,
            search_version: c.searchVersion,
            status: c.latestTaskStatus,
            in_space: c.servedInSpace,
          })),
        ),
      ],
    );
    expect(rows.map((r) => r.state)).toEqual(cases.map((c) => documentState(c)));
  });

  it("names the states people look for", () => {
    expect(
      documentState({ deleted: false, businessVersion: 1, searchVersion: null, latestTaskStatus: "RUNNING" }),
    ).toBe("INDEXING");
    expect(documentState({ deleted: false, businessVersion: 2, searchVersion: 1, latestTaskStatus: "RUNNING" })).toBe(
      "UPDATING",
    );
    expect(documentState({ deleted: false, businessVersion: 2, searchVersion: 1, latestTaskStatus: "DEAD" })).toBe(
      "FAILED",
    );
    expect(documentState({ deleted: false, businessVersion: 2, searchVersion: 2, latestTaskStatus: "SUCCEEDED" })).toBe(
      "SEARCHABLE",
    );
    // A cancelled build of the business version: version 1 still serves, but not the version published.
    expect(documentState({ deleted: false, businessVersion: 2, searchVersion: 1, latestTaskStatus: "CANCELLED" })).toBe(
      "FAILED",
    );
    expect(
      documentState({ deleted: false, businessVersion: 1, searchVersion: null, latestTaskStatus: "CANCELLED" }),
    ).toBe("FAILED");
    expect(documentState({ deleted: true, businessVersion: 2, searchVersion: 2, latestTaskStatus: "SUCCEEDED" })).toBe(
      "DELETED",
    );
    // After a model change the old-model version is invisible to search: not SEARCHABLE.
    expect(
      documentState({
        deleted: false,
        businessVersion: 2,
        searchVersion: 2,
        latestTaskStatus: "SUCCEEDED",
        servedInSpace: false,
      }),
    ).toBe("NOT_INDEXED");
    expect(
      documentState({
        deleted: false,
        businessVersion: 2,
        searchVersion: 2,
        latestTaskStatus: "RUNNING",
        servedInSpace: false,
      }),
    ).toBe("INDEXING");
  });
});
