import { describe, expect, it } from "vitest";
import { csvRows, exportFileName, jsonHead, jsonItem, jsonTail, type Column } from "../../lib/exports/format";

type Row = { a: string | null; n: number | null; b: boolean };
const COLUMNS: Column<Row>[] = [
  { header: "a", value: (r) => r.a },
  { header: "n", value: (r) => r.n },
  { header: "b", value: (r) => r.b },
];

describe("export encodings", () => {
  it("CSV: header only on the first page, CRLF records, quoting of commas, quotes and newlines", () => {
    expect(csvRows(COLUMNS, [{ a: "plain", n: 1, b: true }], true)).toBe("a,n,b\r\nplain,1,true\r\n");
    expect(csvRows(COLUMNS, [{ a: 'x, "y"\nz', n: null, b: false }], false)).toBe('"x, ""y""\nz",,false\r\n');
    expect(csvRows(COLUMNS, [], true)).toBe("a,n,b\r\n");
  });

  it("CSV: a cell a spreadsheet would run as a formula gets a leading apostrophe; a negative number stays a number", () => {
    const cells = ["=1+1", "+1", "-1", "@A1", "\tTAB", "\rCR", "＝1+1", "safe = fine"].map((a) =>
      csvRows(COLUMNS, [{ a, n: -3, b: false }], false),
    );
    expect(cells).toEqual([
      "'=1+1,-3,false\r\n",
      "'+1,-3,false\r\n",
      "'-1,-3,false\r\n",
      "'@A1,-3,false\r\n",
      "'\tTAB,-3,false\r\n",
      '"\'\rCR",-3,false\r\n',
      "'＝1+1,-3,false\r\n",
      "safe = fine,-3,false\r\n",
    ]);
  });

  it("JSON pieces join into one valid document", () => {
    const text =
      jsonHead({ kind: "tasks", filters: { status: "DEAD" } }) +
      jsonItem({ id: 1 }, true) +
      jsonItem({ id: 2 }, false) +
      jsonTail(2);
    expect(JSON.parse(text)).toEqual({
      kind: "tasks",
      filters: { status: "DEAD" },
      items: [{ id: 1 }, { id: 2 }],
      count: 2,
    });
    expect(JSON.parse(jsonHead({}) + jsonTail(0))).toEqual({ items: [], count: 0 });
  });

  it("file names sort by time and carry no characters a file system refuses", () => {
    expect(exportFileName("documents", "csv", new Date("2026-11-30T12:05:09.123Z"))).toBe(
      "documents-20261130T120509Z.csv",
    );
  });
});
