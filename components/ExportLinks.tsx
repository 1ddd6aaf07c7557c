"use client";

import type { DocumentFilters, TaskFilters } from "@/lib/ui/api";
import { exportHref } from "@/lib/ui/operator";

type Props =
  | { kind: "documents"; filters: DocumentFilters; filtered: boolean }
  | { kind: "tasks"; filters: TaskFilters; filtered: boolean };

const download = (
  <svg
    viewBox="0 0 20 20"
    width="16"
    height="16"
    fill="none"
    stroke="currentColor"
    strokeWidth="1.6"
    strokeLinecap="round"
    strokeLinejoin="round"
    aria-hidden="true"
    focusable="false"
  >
    <path d="M10 3v9M6 8.5l4 4 4-4M4 15.5h12" />
  </svg>
);

/**
 * Downloads of the list as shown: the same filters, every page, streamed by the server. Plain
 * links, so the browser saves the file itself and a large export never sits in the page's memory.
 */
export function ExportLinks(p: Props) {
  const what = p.filtered ? `the ${p.kind} matching the filters` : `all ${p.kind}`;
  const href = (format: "csv" | "json") =>
    p.kind === "documents" ? exportHref("documents", p.filters, format) : exportHref("tasks", p.filters, format);
  return (
    <div className="export-links" role="group" aria-label={`Export ${what}`}>
      <a
        className="btn btn--secondary btn--sm"
        href={href("csv")}
        download
        data-testid="export-csv"
        title={`Download ${what} as CSV`}
      >
        {download}
        <span>CSV</span>
      </a>
      <a
        className="btn btn--secondary btn--sm"
        href={href("json")}
        download
        data-testid="export-json"
        title={`Download ${what} as JSON`}
      >
        {download}
        <span>JSON</span>
      </a>
    </div>
  );
}
