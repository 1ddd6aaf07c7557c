import { describe, expect, it } from "vitest";
import * as sql from "../../lib/pipeline/sql";

// Every statement of the index write path rendered with fixed arguments: any SQL change is a
// snapshot diff.
describe("index write path SQL", () => {
  const space = { id: 1, model: "indexwright-local-hash-v1", dimensions: 384, chunkerVersion: "md-heading-v2" };

  it("renders every statement", () => {
    const rendered = {
      loadVersions: sql.loadVersions([
        { documentId: "doc-a", versionNumber: 2 },
        { documentId: "doc-b", versionNumber: 1 },
      ]),
      findReusableHashes: sql.findReusableHashes(
        [
          { documentId: "doc-a", contentHash: "h1" },
          { documentId: "doc-b", contentHash: "h2" },
        ],
        space,
      ),
      insertIndexVersions: sql.insertIndexVersions(
        [
          { id: "iv-a", tenantId: "acme", documentId: "doc-a", versionNumber: 2, taskId: "42", expectedChunkCount: 1 },
          { id: "iv-b", tenantId: "acme", documentId: "doc-b", versionNumber: 1, taskId: "43", expectedChunkCount: 1 },
        ],
        space,
        [
          {
            indexVersionId: "iv-a",
            documentId: "doc-a",
            tenantId: "acme",
            ordinal: 0,
            chunkId: "c0",
            level: 2,
            sectionPath: "Intro",
            text: "unchanged text",
            contentHash: "h1",
            embedding: null,
          },
          {
            indexVersionId: "iv-b",
            documentId: "doc-b",
            tenantId: "acme",
            ordinal: 0,
            chunkId: "c1",
            level: 2,
            sectionPath: "Intro",
            text: "new text",
            contentHash: "h2",
            embedding: "[0.1,0.2]",
          },
        ],
      ),
      dropBuildingVersions: sql.dropBuildingVersions(["iv-a"]),
      markReadyAndLockPointers: sql.markReadyAndLockPointers([{ indexVersionId: "iv-a", storedCount: 1 }], ["doc-a"]),
    };
    const exported = Object.entries(sql)
      .filter(([, v]) => typeof v === "function")
      .map(([k]) => k)
      .sort();
    expect(Object.keys(rendered).sort()).toEqual(exported);
    expect(rendered).toMatchSnapshot();
  });

  it("reuses only vectors stored for the same document in the same space", () => {
    const reuse = sql.findReusableHashes([{ documentId: "doc-id", contentHash: "h1" }], space);
    expect(reuse.text).toContain(
      "v.document_id = u.document_id AND v.content_hash = u.content_hash AND v.space_id = $3",
    );
    expect(reuse.values[2]).toBe(space.id);
    const write = sql.insertIndexVersions([], space, []);
    expect(write.text).toContain("v.content_hash = u.content_hash AND v.space_id = $20");
    expect(write.text).toContain("ON CONFLICT (document_id, content_hash, space_id) DO NOTHING");
    expect(write.values[19]).toBe(space.id);
  });
});
