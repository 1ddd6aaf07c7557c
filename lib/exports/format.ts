import { stringify } from "csv-stringify/sync";

// Export encodings, pure so they are tested without a server. CSV through csv-stringify (RFC 4180
// quoting) with escape_formulas: a cell that starts with = + - @ (or a tab or carriage return)
// gets a leading apostrophe, so a spreadsheet opening the file shows a document title such as
// "=HYPERLINK(...)" as text instead of running it. Numbers stay numbers (a negative one is not a
// formula).

export type ExportFormat = "csv" | "json";
export type Cell = string | number | boolean | null;
export type Column<T> = { header: string; value: (row: T) => Cell };

/** A page of rows as CSV lines; the header line only with the first page. */
export function csvRows<T>(columns: readonly Column<T>[], rows: readonly T[], withHeader: boolean): string {
  const records = rows.map((r) => columns.map((c) => c.value(r)));
  return stringify(records, {
    header: withHeader,
    columns: columns.map((c) => c.header),
    escape_formulas: true,
    // Excel and LibreOffice both read CRLF; the RFC asks for it.
    record_delimiter: "windows",
    // With CRLF records csv-stringify leaves a lone carriage return unquoted, which a reader
    // takes for the end of the record: quote every value that holds one.
    quoted_match: /\r/,
    cast: { boolean: (v) => (v ? "true" : "false") },
  });
}

/**
 * JSON is one object written in pieces: the head (what was exported, with which filters), the
 * items one by one, and the tail, so a large export streams without being held in memory.
 */
export function jsonHead(meta: Record<string, unknown>): string {
  const head = JSON.stringify(meta);
  return `${head.slice(0, -1)}${head.length > 2 ? "," : ""}"items":[`;
}
export const jsonItem = (item: unknown, first: boolean) => `${first ? "" : ","}\n${JSON.stringify(item)}`;
export const jsonTail = (count: number) => `\n],"count":${count}}\n`;

export const CONTENT_TYPE: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json; charset=utf-8",
};

/** "documents-20261130T121500Z.csv": a name that sorts by time and is safe on every file system. */
export function exportFileName(kind: string, format: ExportFormat, at: Date): string {
  return `${kind}-${at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}.${format}`;
}
