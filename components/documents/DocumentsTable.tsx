"use client";

import Link from "next/link";
import { documentHref } from "@/lib/ui/api";
import { formatVersion, truncate } from "@/lib/ui/format";
import { isBusy, type DocumentSummary } from "@/lib/ui/schemas";
import { ProgressBar } from "../ProgressBar";
import { RelativeTime } from "../RelativeTime";
import { StateBadge } from "../StateBadge";
import { TableHead } from "../TableHead";

export function DocumentsTable({ items, dimmed = false }: { items: DocumentSummary[]; dimmed?: boolean }) {
  return (
    <div className={`table-wrap${dimmed ? " table-wrap--dimmed" : ""}`}>
      <table className="table table--docs">
        <caption className="visually-hidden">Documents, their indexing state and versions</caption>
        <TableHead
          columns={[
            "Tenant",
            "Key",
            "Title",
            "State",
            {
              label: (
                <abbr
                  title="Business version (latest published) / search version (currently searchable)"
                  className="abbr"
                >
                  Versions
                </abbr>
              ),
            },
            "Last error",
            { label: "Updated", className: "col-right" },
          ]}
        />
        <tbody>
          {items.map((d) => (
            <DocumentRow key={`${d.tenant}/${d.key}`} doc={d} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DocumentRow({ doc }: { doc: DocumentSummary }) {
  const href = documentHref(doc.tenant, doc.key);
  const behind = doc.searchVersion === null || doc.searchVersion < doc.businessVersion;
  return (
    <tr data-testid="doc-row" data-key={doc.key} data-tenant={doc.tenant} data-state={doc.state}>
      <td>
        <span className="tenant-chip">{doc.tenant}</span>
      </td>
      <td className="cell-key">
        <Link href={href} className="row-link mono" data-testid="doc-link">
          {doc.key}
        </Link>
      </td>
      <td className="cell-title">
        <span className="cell-title__text" title={doc.title}>
          {doc.title || <span className="muted">Untitled</span>}
        </span>
      </td>
      <td className="cell-state">
        <StateBadge state={doc.state} />
        {isBusy(doc.state) && doc.progress ? (
          doc.progress.total > 0 ? (
            <ProgressBar
              done={doc.progress.done}
              total={doc.progress.total}
              label={`Indexing progress of ${doc.key}`}
            />
          ) : (
            <span className="cell-state__waiting muted">Waiting for a worker…</span>
          )
        ) : null}
      </td>
      <td className="cell-versions mono">
        <span
          title={`Business ${formatVersion(doc.businessVersion)}; search ${doc.searchVersion === null ? "none yet" : formatVersion(doc.searchVersion)}`}
        >
          {formatVersion(doc.businessVersion)}
          <span className="muted"> / </span>
          <span className={behind ? "text-warn" : undefined}>{formatVersion(doc.searchVersion)}</span>
        </span>
      </td>
      <td className="cell-error">
        {doc.lastError ? (
          <span className="error-inline" title={`${doc.lastError.code}: ${doc.lastError.message}`}>
            <code className="code-chip code-chip--danger">{doc.lastError.code}</code>
            <span className="error-inline__msg">{truncate(doc.lastError.message, 80)}</span>
          </span>
        ) : (
          <span className="muted">
            <span aria-hidden="true">—</span>
            <span className="visually-hidden">No error</span>
          </span>
        )}
      </td>
      <td className="col-right nowrap">
        <RelativeTime iso={doc.updatedAt} />
      </td>
    </tr>
  );
}
