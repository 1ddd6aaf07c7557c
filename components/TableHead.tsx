import type { ReactNode } from "react";

/** A column heading: plain text, or content with a class (e.g. "col-right" for numbers). */
export type Column = string | { label: ReactNode; className?: string };

/** The <thead> of a data table: one row of column headers. */
export function TableHead({ columns }: { columns: readonly Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) =>
          typeof c === "string" ? (
            <th key={i} scope="col">
              {c}
            </th>
          ) : (
            <th key={i} scope="col" className={c.className}>
              {c.label}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
