"use client";

import Link from "next/link";
import { useId } from "react";
import { DOCUMENT_STATE } from "@/lib/domain/constants";
import { parseLimitOf } from "@/lib/pipeline/parsers/limits";
import { isApiError, taskHref } from "@/lib/ui/api";
import { formatBytes, formatDateTime, formatVersion } from "@/lib/ui/format";
import { DETAIL_BUSY_POLL_MS, DETAIL_IDLE_POLL_MS, useDocument, useTask } from "@/lib/ui/hooks";
import { builtIn } from "@/lib/ui/pin";
import { describeSpace, migrationsHref } from "@/lib/ui/spaces";
import {
  isBusy,
  type DocumentDetail,
  type DocumentTask,
  type DocumentVersion,
  type IndexVersion,
} from "@/lib/ui/schemas";
import { useViewer } from "../PrincipalContext";
import { ProgressBar } from "../ProgressBar";
import { RelativeTime } from "../RelativeTime";
import { StateBadge, TaskStatusBadge } from "../StateBadge";
import { BlockSkeleton, EmptyState, QueryErrorState, StaleDataBanner, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { icons } from "../shell/icons";
import { DeadTaskActions } from "../tasks/DeadTaskActions";
import { TaskTypeLabel } from "../tasks/TaskType";
import { ChunkBrowser } from "./ChunkBrowser";
import { DocumentActions } from "./DocumentActions";

type Props = { tenant: string; docKey: string };

export function DocumentDetailView({ tenant, docKey }: Props) {
  const query = useDocument(tenant, docKey);
  const notFound = query.isError && isApiError(query.error) && query.error.isNotFound;

  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link href="/documents">Documents</Link>
          </li>
          <li>
            <Link href={`/documents?tenant=${encodeURIComponent(tenant)}`}>{tenant}</Link>
          </li>
          <li aria-current="page" className="mono">
            {docKey}
          </li>
        </ol>
      </nav>

      {query.isPending ? (
        <DetailSkeleton />
      ) : notFound ? (
        <NotFound tenant={tenant} docKey={docKey} />
      ) : query.isError && !query.data ? (
        <>
          <h1 className="page__title">{docKey}</h1>
          <QueryErrorState title="Could not load this document" query={query} />
        </>
      ) : query.data ? (
        <>
          <StaleDataBanner query={query} />
          <DetailBody doc={query.data} fetching={query.isFetching} />
        </>
      ) : null}
    </div>
  );
}

function explain(doc: DocumentDetail): string {
  const b = formatVersion(doc.businessVersion);
  const s = doc.searchVersion === null ? null : formatVersion(doc.searchVersion);
  switch (doc.state) {
    case DOCUMENT_STATE.SEARCHABLE:
      if (s && doc.searchVersion !== null && doc.searchVersion < doc.businessVersion)
        return doc.pinned
          ? `Searchable at ${s}, pinned there by a rollback; the latest version ${b} is not the one search serves.`
          : `Searchable at ${s}; the latest version ${b} is not the one search serves.`;
      return s && doc.searchVersion === doc.businessVersion
        ? `Searchable: the latest version (${b}) is in the search index.`
        : `Searchable: ${s ?? "a version"} is in the search index.`;
    case DOCUMENT_STATE.INDEXING:
      return `Not searchable yet: ${b} is being indexed.`;
    case DOCUMENT_STATE.UPDATING:
      return `${s ?? "An older version"} is searchable; ${b} is being indexed and replaces it when done.`;
    case DOCUMENT_STATE.FAILED:
      if (!s) return `Not searchable: indexing ${b} failed.`;
      if (!doc.searchVersionServed)
        return `Indexing ${b} failed. ${s} was built with another embedding model, so search finds nothing of this document.`;
      // A rebuild (reindex) of the version that serves died: search is right, the rebuild is what failed.
      if (doc.searchVersion === doc.businessVersion)
        return `Rebuilding ${b} failed. Search still serves ${b}, as built before.`;
      return `Indexing ${b} failed. Search still serves ${s}.`;
    case DOCUMENT_STATE.NOT_INDEXED:
      return `Not searchable yet: ${b} is waiting to be indexed.`;
    case DOCUMENT_STATE.DELETED:
      return "Deleted: this document has been removed from search.";
  }
}

function DetailBody({ doc, fetching }: { doc: DocumentDetail; fetching: boolean }) {
  const busy = isBusy(doc.state);
  const errorId = useId();
  const versionsId = useId();
  const tasksId = useId();
  const indexId = useId();
  const newestDead = doc.tasks.find((t) => t.status === "DEAD") ?? null;
  const pollSeconds = (busy ? DETAIL_BUSY_POLL_MS : DETAIL_IDLE_POLL_MS) / 1000;

  return (
    <>
      <header className="doc-header">
        <div className="doc-header__main">
          <h1 className="page__title doc-header__title">{doc.title || doc.key}</h1>
          <p className="doc-header__meta">
            <span className="mono" data-testid="doc-key">
              {doc.key}
            </span>
            <span className="tenant-chip">{doc.tenant}</span>
          </p>
        </div>
        <StateBadge state={doc.state} size="lg" />
      </header>

      <p
        className={`explainer explainer--${doc.state.toLowerCase()}`}
        role="status"
        aria-live="polite"
        data-testid="state-explainer"
      >
        {explain(doc)}
      </p>

      <DriftNotes doc={doc} />

      <DocumentActions doc={doc} />

      <dl className="stats">
        <div className="stat">
          <dt>Business version</dt>
          <dd className="mono" data-testid="business-version">
            {formatVersion(doc.businessVersion)}
          </dd>
        </div>
        <div className="stat">
          <dt>Search version</dt>
          <dd className="mono" data-testid="search-version">
            {doc.searchVersion === null ? <span className="muted">none yet</span> : formatVersion(doc.searchVersion)}
          </dd>
        </div>
        <div className="stat">
          <dt>Index space</dt>
          <dd className="stat__text" data-testid="doc-space">
            <SpaceName doc={doc} />
          </dd>
        </div>
        <div className="stat">
          <dt>Last change</dt>
          <dd>
            <RelativeTime iso={doc.updatedAt ?? doc.versions[0]?.publishedAt ?? null} />
          </dd>
        </div>
        <div className="stat">
          <dt>Auto-refresh</dt>
          <dd>
            <span className={`live-dot${fetching ? " live-dot--busy" : ""}`} aria-hidden="true" /> every {pollSeconds} s
          </dd>
        </div>
      </dl>

      {busy ? (
        <section className="card card--padded" aria-label="Indexing progress">
          <h2 className="section-title">Indexing progress</h2>
          {doc.progress && doc.progress.total > 0 ? (
            <ProgressBar
              key={doc.tasks.find((t) => t.status === "RUNNING")?.taskId ?? "none"}
              done={doc.progress.done}
              total={doc.progress.total}
              size="lg"
              label="Chunks indexed"
            />
          ) : (
            <p className="muted">
              <span className="spinner" aria-hidden="true" /> Waiting for a worker to report progress…
            </p>
          )}
        </section>
      ) : null}

      {doc.lastError ? (
        <section className="error-panel" aria-labelledby={errorId} data-testid="last-error">
          <h2 id={errorId} className="section-title">
            {decidingTask(doc)?.status === "RESOLVED" ? "Last error (force-closed by an operator)" : "Last error"}
          </h2>
          <p>
            <code className="code-chip code-chip--danger">{doc.lastError.code}</code>
          </p>
          {doc.lastError.message ? <pre className="error-panel__message">{doc.lastError.message}</pre> : null}
          <ParseLimitHint code={doc.lastError.code} message={doc.lastError.message} />
          {newestDead ? (
            <div className="error-panel__actions">
              <Link
                href={taskHref(newestDead.taskId)}
                className="btn btn--secondary btn--sm"
                data-testid="last-error-task-link"
              >
                Open task #{newestDead.taskId}
              </Link>
              <DeadTaskActions
                size="sm"
                task={{
                  taskId: newestDead.taskId,
                  versionNumber: newestDead.versionNumber,
                  errorCode: newestDead.errorCode,
                  documentKey: doc.key,
                  taskType: newestDead.taskType,
                }}
              />
            </div>
          ) : null}
        </section>
      ) : null}

      <StaleModelNote doc={doc} />
      <PinNote doc={doc} />

      <section className="card" aria-labelledby={versionsId}>
        <h2 id={versionsId} className="section-title card__title">
          Versions <span className="count">{doc.versions.length}</span>
        </h2>
        {doc.versions.length === 0 ? (
          <p className="card__empty muted">No versions.</p>
        ) : (
          <VersionsTable
            versions={doc.versions}
            businessVersion={doc.businessVersion}
            searchVersion={doc.searchVersion}
          />
        )}
      </section>

      <section className="card" aria-labelledby={indexId}>
        <h2 id={indexId} className="section-title card__title">
          Index versions <span className="count">{doc.indexVersions.length}</span>
        </h2>
        {doc.indexVersions.length === 0 ? (
          <p className="card__empty muted">No index has been built for this document yet.</p>
        ) : (
          <IndexVersionsTable items={doc.indexVersions} searchVersion={doc.searchVersion} space={doc.embeddingSpace} />
        )}
      </section>

      <ChunkBrowser tenant={doc.tenant} docKey={doc.key} />

      <section className="card" aria-labelledby={tasksId}>
        <h2 id={tasksId} className="section-title card__title">
          Tasks <span className="count">{doc.tasks.length}</span>
        </h2>
        {doc.tasks.length === 0 ? (
          <p className="card__empty muted">No indexing tasks.</p>
        ) : (
          <TasksTable tasks={doc.tasks} />
        )}
      </section>
    </>
  );
}

function VersionsTable({
  versions,
  businessVersion,
  searchVersion,
}: {
  versions: DocumentVersion[];
  businessVersion: number;
  searchVersion: number | null;
}) {
  return (
    <div className="table-wrap">
      <table className="table">
        <TableHead
          columns={[
            "Version",
            "Title",
            "Type",
            { label: "Size", className: "col-right" },
            "Checksum",
            "ACL",
            "Published by",
            "Published",
          ]}
        />
        <tbody>
          {versions.map((v) => (
            <tr key={v.versionNumber} data-testid="version-row" data-version={v.versionNumber}>
              <td className="nowrap">
                <span className="mono">{formatVersion(v.versionNumber)}</span>
                {v.versionNumber === businessVersion ? (
                  <span className="pill pill--neutral pill--tag">latest</span>
                ) : null}
                {v.versionNumber === searchVersion ? <span className="pill pill--ok pill--tag">searchable</span> : null}
              </td>
              <td>{v.title || <span className="muted">—</span>}</td>
              <td className="mono nowrap">{v.contentType || "—"}</td>
              <td className="col-right nowrap">{formatBytes(v.contentBytes)}</td>
              <td className="mono" title={v.checksum ?? "Hidden: the ACL does not include you"}>
                {v.checksum ? v.checksum.replace(/^sha256:/, "").slice(0, 12) : "—"}
              </td>
              <td>
                {v.acl.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <span className="chips">
                    {v.acl.map((a) => (
                      <span key={a} className="chip mono">
                        {a}
                      </span>
                    ))}
                  </span>
                )}
              </td>
              <td className="mono">{v.publishedBy || "—"}</td>
              <td className="nowrap">
                <RelativeTime iso={v.publishedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TasksTable({ tasks }: { tasks: DocumentTask[] }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <TableHead
          columns={[
            "Task",
            "Version",
            "Type",
            "Status",
            { label: "Attempts", className: "col-right" },
            "Progress",
            "Error",
            "Created",
            "Finished",
          ]}
        />
        <tbody>
          {tasks.map((t) => (
            <tr key={t.taskId} data-testid="task-row" data-task-id={t.taskId} data-status={t.status}>
              <td className="mono nowrap" title={t.taskId}>
                <Link
                  href={taskHref(t.taskId)}
                  className="row-link"
                  data-testid="task-link"
                  aria-label={`Task ${t.taskId}`}
                >
                  #{t.taskId.length > 10 ? `${t.taskId.slice(0, 8)}…` : t.taskId}
                </Link>
              </td>
              <td className="mono">{formatVersion(t.versionNumber)}</td>
              <td>
                <TaskTypeLabel type={t.taskType} />
              </td>
              <td>
                <TaskStatusBadge status={t.status} />
              </td>
              <td className="col-right mono nowrap">
                {t.attempts} / {t.maxAttempts}
              </td>
              <td className="cell-progress">
                {t.progress && t.progress.total > 0 ? (
                  <ProgressBar done={t.progress.done} total={t.progress.total} label={`Progress of task ${t.taskId}`} />
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td className="cell-error">
                {t.errorCode || t.errorMessage ? (
                  <span className="error-inline" title={[t.errorCode, t.errorMessage].filter(Boolean).join(": ")}>
                    {t.errorCode ? <code className="code-chip code-chip--danger">{t.errorCode}</code> : null}
                    {t.errorMessage ? <span className="error-inline__msg">{t.errorMessage}</span> : null}
                  </span>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td className="nowrap" title={formatDateTime(t.createdAt)}>
                <RelativeTime iso={t.createdAt} />
              </td>
              <td className="nowrap">
                {t.finishedAt ? <RelativeTime iso={t.finishedAt} /> : <span className="muted">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The newest INDEX/REINDEX task of the business version: the one that decides the document's state. */
function decidingTask(doc: DocumentDetail): DocumentTask | null {
  return (
    doc.tasks.find(
      (t) => t.versionNumber === doc.businessVersion && (t.taskType === "INDEX" || t.taskType === "REINDEX"),
    ) ?? null
  );
}

/**
 * Why search may serve an older version than the latest one:
 *  - the newest task was force-closed (RESOLVED): acknowledged drift, amber;
 *  - a rollback pinned search to an older version;
 *  - otherwise search is behind while nothing is working on it (e.g. a build that finished while
 *    pinned was collected before the unpin).
 */
function DriftNotes({ doc }: { doc: DocumentDetail }) {
  const deciding = decidingTask(doc);
  const behind = doc.state !== DOCUMENT_STATE.DELETED && (doc.searchVersion ?? 0) < doc.businessVersion;
  const acknowledged = behind && deciding?.status === "RESOLVED";
  const task = useTask(acknowledged && deciding ? deciding.taskId : null);
  if (!behind) return null;

  const b = formatVersion(doc.businessVersion);
  const s = doc.searchVersion === null ? null : formatVersion(doc.searchVersion);

  if (acknowledged && deciding) {
    const fc = task.data ? [...task.data.events].reverse().find((e) => e.kind === "OPERATOR_FORCE_DONE") : undefined;
    const d = fc?.detail && typeof fc.detail === "object" ? (fc.detail as Record<string, unknown>) : null;
    const reason = d && typeof d.reason === "string" ? d.reason : null;
    return (
      <div className="note note--amber" role="note" data-testid="drift-acknowledged">
        <span className="note__icon" aria-hidden="true">
          !
        </span>
        <p>
          <strong>Drift acknowledged:</strong> {b} was force-closed
          {fc?.actor ? (
            <>
              {" "}
              by <span className="mono">{fc.actor}</span>
            </>
          ) : null}
          {reason ? <> (reason: “{reason}”)</> : task.isPending ? " (loading reason…)" : null};{" "}
          {s ? `${s} still serves.` : "no version is searchable."} This is not a success: {b} was never indexed.{" "}
          <Link href={taskHref(deciding.taskId)}>Task #{deciding.taskId}</Link>
        </p>
      </div>
    );
  }

  const working =
    deciding && (deciding.status === "PENDING" || deciding.status === "RUNNING" || deciding.status === "RETRY_WAIT");
  // A pin has its own note (who pinned it, why, how to undo it); saying it twice is noise.
  if (s && !working && deciding?.status !== "DEAD" && !doc.pinned) {
    return (
      <div className="note note--info" role="note" data-testid="search-behind">
        <span className="note__icon" aria-hidden="true">
          i
        </span>
        <p>
          Search serves <strong>{s}</strong>, not the latest {b}, and no task is building {b}: reindex it to bring
          search up to date.
        </p>
      </div>
    );
  }
  return null;
}

/**
 * The tenant's active index space (the one search reads), by name where the API gives it, else by
 * model and dimensions; it links to the tenant's migrations.
 */
function SpaceName({ doc }: { doc: DocumentDetail }) {
  const space = doc.embeddingSpace;
  if (!space) return <span className="muted">not known</span>;
  return (
    <Link
      href={migrationsHref(doc.tenant)}
      className="mono"
      title={`${space.model}, ${space.dimensions} dimensions: the space search reads in ${doc.tenant}. Open its migrations.`}
    >
      {space.name ?? describeSpace(space)}
    </Link>
  );
}

/** A search version built outside the tenant's active index space is invisible to search until it is rebuilt. */
function StaleModelNote({ doc }: { doc: DocumentDetail }) {
  if (doc.searchVersionServed || doc.searchVersion === null || doc.state === DOCUMENT_STATE.DELETED) return null;
  // A migration's shadow space keeps versions ACTIVE too: the one on record is the search
  // version's, outside the active space.
  const space = doc.embeddingSpace;
  const serving =
    doc.indexVersions.find(
      (iv) => iv.status === "ACTIVE" && iv.versionNumber === doc.searchVersion && (!space || !builtIn(iv, space)),
    ) ?? doc.indexVersions.find((iv) => iv.status === "ACTIVE");
  return (
    <div className="note note--amber" role="note" data-testid="stale-model-note">
      <span className="note__icon" aria-hidden="true">
        !
      </span>
      <p>
        <strong>Not in search:</strong> {formatVersion(doc.searchVersion)} was indexed with{" "}
        <span className="mono">{serving?.embeddingModel ?? "another model"}</span>, and search now embeds queries with a
        different model, so its chunks cannot be compared.{" "}
        {doc.state === DOCUMENT_STATE.INDEXING
          ? "It is being indexed again."
          : "Reindex it (the reconciler also queues this)."}
      </p>
    </div>
  );
}

/** Who pinned search where and why, next to the versions it concerns. */
function PinNote({ doc }: { doc: DocumentDetail }) {
  if (!doc.pinned || doc.searchVersion === null || doc.state === DOCUMENT_STATE.DELETED) return null;
  const s = formatVersion(doc.searchVersion);
  return (
    <div className="note note--amber" role="note" data-testid="pin-note">
      <span className="note__icon" aria-hidden="true">
        !
      </span>
      <p>
        <strong>
          Pinned to <span data-testid="pin-version">{s}</span>
        </strong>
        {doc.pinnedBy ? (
          <>
            {" "}
            by <span className="mono">{doc.pinnedBy}</span>
          </>
        ) : null}
        {doc.pinnedReason ? <>: “{doc.pinnedReason}”</> : null}.{" "}
        {doc.searchVersion === doc.businessVersion
          ? "New versions do not replace it in search until the pin is released."
          : `The latest version, ${formatVersion(doc.businessVersion)}, is not served until an unpin or the next publish.`}
      </p>
    </div>
  );
}

const INDEX_STATUS_TONE: Record<string, string> = {
  BUILDING: "info",
  READY: "neutral",
  ACTIVE: "ok",
  RETIRED: "muted",
};
const INDEX_STATUS_HINT: Record<string, string> = {
  BUILDING: "Being built by a task; not served yet.",
  READY: "Complete, not served; can be rolled back to.",
  ACTIVE: "Serving search now.",
  RETIRED: "Served before; kept for rollback until retention ends.",
};

function IndexVersionsTable({
  items,
  searchVersion,
  space,
}: {
  items: IndexVersion[];
  searchVersion: number | null;
  /** The tenant's active space: an ACTIVE version outside it is a migration's shadow, not what search reads. */
  space: DocumentDetail["embeddingSpace"];
}) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">Index versions built for this document, newest first</caption>
        <TableHead
          columns={[
            "Version",
            "Status",
            "Embedding model",
            { label: "Dims", className: "col-right" },
            { label: "Chunks", className: "col-right" },
            "Chunker",
            "Created",
            "Activated",
            "Retired",
          ]}
        />
        <tbody>
          {items.map((iv) => (
            <tr key={iv.id} data-testid="index-version-row" data-version={iv.versionNumber} data-status={iv.status}>
              <td className="nowrap">
                <span className="mono">{formatVersion(iv.versionNumber)}</span>
                {iv.status === "ACTIVE" && iv.versionNumber === searchVersion && (!space || builtIn(iv, space)) ? (
                  <span className="pill pill--ok pill--tag">serving</span>
                ) : iv.status === "ACTIVE" && space && !builtIn(iv, space) ? (
                  <span
                    className="pill pill--neutral pill--tag"
                    title="Built in another index space than the one search reads in this tenant (a migration's, kept in step for a switch or a switch back, or one left from before a change of space): search does not read it."
                    data-testid="index-version-other-space"
                  >
                    other space
                  </span>
                ) : null}
              </td>
              <td>
                <span
                  className={`pill pill--status pill--${INDEX_STATUS_TONE[iv.status] ?? "neutral"}`}
                  title={INDEX_STATUS_HINT[iv.status]}
                >
                  {iv.status.toLowerCase()}
                </span>
              </td>
              <td className="mono nowrap">{iv.embeddingModel ?? "—"}</td>
              <td className="col-right mono">{iv.embeddingDimensions ?? "—"}</td>
              <td className="col-right mono">{iv.chunkCount ?? "—"}</td>
              <td className="mono nowrap">{iv.chunkerVersion ?? "—"}</td>
              <td className="nowrap" title={formatDateTime(iv.createdAt)}>
                <RelativeTime iso={iv.createdAt} />
              </td>
              <td className="nowrap">
                {iv.activatedAt ? <RelativeTime iso={iv.activatedAt} /> : <span className="muted">—</span>}
              </td>
              <td className="nowrap">
                {iv.retiredAt ? <RelativeTime iso={iv.retiredAt} /> : <span className="muted">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DetailSkeleton() {
  return (
    <div className="stack" aria-busy="true">
      <span className="visually-hidden" role="status">
        Loading document…
      </span>
      <div className="doc-header">
        <div className="doc-header__main" style={{ flex: 1 }}>
          <BlockSkeleton lines={2} />
        </div>
      </div>
      <section className="card">
        <TableSkeleton rows={3} columns={6} label="Loading versions" />
      </section>
    </div>
  );
}

function NotFound({ tenant, docKey }: { tenant: string; docKey: string }) {
  const viewer = useViewer();
  return (
    <section className="card" data-testid="not-found">
      <EmptyState
        icon={icons.documents}
        title="Document not found"
        action={
          <Link href="/documents" className="btn btn--secondary">
            Back to documents
          </Link>
        }
      >
        <p>
          There is no document <code className="mono">{docKey}</code> in tenant <code className="mono">{tenant}</code>.
        </p>
        <p className="muted">
          It may not have been published yet, the key may be misspelled, or you may not have access to this tenant.
          {viewer.canPublish ? " Publishing it from the Documents page creates it." : ""} This page checks again every{" "}
          {DETAIL_IDLE_POLL_MS / 1000} s.
        </p>
      </EmptyState>
    </section>
  );
}

/** For a file over a parse limit: which one, and that a retry of the same file fails again. */
function ParseLimitHint({ code, message }: { code: string; message: string | null | undefined }) {
  const limit = code === "PARSE_LIMIT_EXCEEDED" ? parseLimitOf(message) : null;
  if (!limit) return null;
  return (
    <p data-testid="parse-limit-hint">
      This file is over the <strong>{limit.kind}</strong> parse limit, so retrying it fails again: {limit.hint}. Publish
      the fixed file as a new version.
    </p>
  );
}
