// Golden files: realistic documents of each format (test/fixtures/) parsed and chunked with the
// defaults the worker uses; test/fixtures/golden/<name>.json holds the sections and chunk texts.
// A change in what gets indexed shows up as a reviewable diff of those files:
//   UPDATE_GOLDEN=1 npx vitest run test/pipeline/golden.test.ts
import { describe, it, expect } from "vitest";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { parseDocumentAsync, type Section } from "../../lib/pipeline/parse";
import { chunkSections, CHUNKER_VERSION } from "../../lib/pipeline/chunker";
import { makePdf } from "../helpers/make-pdf";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");
const ids = { tenantId: "golden", documentId: "doc", versionNumber: 1 };
const update = process.env.UPDATE_GOLDEN === "1";

type Golden = {
  contentType: string;
  chunkerVersion: string;
  sections: Section[];
  chunks: { sectionPath: string; text: string }[];
};

/** A PDF with an outline (bookmarks), two levels deep, a cover page before the first entry. */
function outlinePdf(): Uint8Array {
  const H = (text: string) => ({ text, size: 18 });
  return makePdf(
    [
      [H("Harbour Operations Manual"), "Issue 4, March 2024. For internal use by harbour staff."],
      [
        H("1 Berthing"),
        "Vessels over 12 m must request a berth at least 24 hours ahead.",
        "The harbour master confirms by radio on channel 14.",
        H("1.1 Night arrivals"),
        "Night arrivals use the inner pontoon only; the outer wall is unlit.",
      ],
      [
        H("2 Fees"),
        "Visitor berths cost 3.20 per metre per night, payable at the office.",
        "Winter rates apply from November to March.",
      ],
    ],
    {
      outline: [
        {
          title: "1 Berthing",
          page: 2,
          children: [{ title: "1.1 Night arrivals", page: 2, y: 675 }], // its line is at 667.5, the one above at 682.5
        },
        { title: "2 Fees", page: 3, named: true },
      ],
    },
  );
}

const cases: { name: string; contentType: string; bytes: () => Uint8Array }[] = [
  { name: "readme", contentType: "text/markdown", bytes: () => readFileSync(path.join(FIXTURES, "readme.md")) },
  { name: "saved-page", contentType: "text/html", bytes: () => readFileSync(path.join(FIXTURES, "saved-page.html")) },
  {
    name: "latin1-page",
    contentType: "text/html; charset=iso-8859-1",
    bytes: () => readFileSync(path.join(FIXTURES, "latin1-page.html")),
  },
  { name: "cjk", contentType: "text/markdown", bytes: () => readFileSync(path.join(FIXTURES, "cjk.md")) },
  { name: "outline-pdf", contentType: "application/pdf", bytes: outlinePdf },
];

describe("golden files", () => {
  it.each(cases)("$name", async ({ name, contentType, bytes }) => {
    const sections = await parseDocumentAsync(contentType, new Uint8Array(bytes()));
    const chunks = chunkSections(sections, ids).map((c) => ({ sectionPath: c.sectionPath, text: c.text }));
    const actual: Golden = { contentType, chunkerVersion: CHUNKER_VERSION, sections, chunks };
    const file = path.join(FIXTURES, "golden", `${name}.json`);
    if (update || !existsSync(file)) {
      writeFileSync(file, JSON.stringify(actual, null, 2) + "\n");
      if (!update) throw new Error(`${file} did not exist and was written; review it and run again`);
    }
    const golden = JSON.parse(readFileSync(file, "utf8")) as Golden;
    expect(actual).toEqual(golden);
    // Whatever the golden says, markup never reaches a chunk.
    for (const c of chunks) {
      expect(c.text).not.toMatch(/\|\s*:?-{3,}|<\/?[a-z][a-z0-9]*[\s>]|&[a-z]+;|\]\(|^\s*#{1,6}\s/im);
    }
  });
});

describe("edit locality through the parsers", () => {
  it("an edit inside one section of the README leaves every other section's chunks byte-identical", async () => {
    const src = readFileSync(path.join(FIXTURES, "readme.md"), "utf8");
    const edited = src.replace("Print the schedule", "Print and e-mail the weekly schedule");
    expect(edited).not.toBe(src);
    const chunk = async (s: string) =>
      chunkSections(await parseDocumentAsync("text/markdown", new TextEncoder().encode(s)), ids);
    const before = await chunk(src);
    const after = await chunk(edited);
    const others = (cs: typeof before) => cs.filter((c) => !c.sectionPath.endsWith("Usage")).map((c) => c.contentHash);
    expect(others(after)).toEqual(others(before));
    expect(after.filter((c) => c.sectionPath.endsWith("Usage")).map((c) => c.contentHash)).not.toEqual(
      before.filter((c) => c.sectionPath.endsWith("Usage")).map((c) => c.contentHash),
    );
  });
});
