"use client";

import { useId, useState, type ReactNode } from "react";
import { DOCUMENT_STATE } from "@/lib/domain/constants";
import { taskHref } from "@/lib/ui/api";
import { formatDateTime, formatVersion } from "@/lib/ui/format";
import { useDeleteDocument, useReindex, useRollback, useUnpin } from "@/lib/ui/hooks";
import { REQUIRED_ROLE } from "@/lib/ui/roles";
import { UNFINISHED_TASK, builtIn, unpinForecast } from "@/lib/ui/pin";
import type { DocumentDetail, IndexVersion } from "@/lib/ui/schemas";
import { ActionForm, ReasonField, useDialogClose, useReason } from "../ActionForm";
import { Dialog } from "../Dialog";
import { useCan, useViewer } from "../PrincipalContext";
import { useToast } from "../Toast";

type Which = "reindex" | "delete" | "rollback" | "unpin" | null;

/**
 * Index versions search could be pointed back at: complete (READY/RETIRED), not the one serving
 * now, and built in the tenant's active index space (the server refuses any other with
 * ROLLBACK_INCOMPATIBLE: it would serve nothing).
 */
export function rollbackCandidates(doc: DocumentDetail): { versionNumber: number; iv: IndexVersion }[] {
  const seen = new Map<number, IndexVersion>();
  const space = doc.embeddingSpace;
  for (const iv of doc.indexVersions) {
    if (iv.status !== "READY" && iv.status !== "RETIRED") continue;
    if (iv.versionNumber === doc.searchVersion) continue;
    if (space && !builtIn(iv, space)) continue;
    if (!seen.has(iv.versionNumber)) seen.set(iv.versionNumber, iv); // newest first from the API
  }
  return [...seen.entries()].sort((a, b) => b[0] - a[0]).map(([versionNumber, iv]) => ({ versionNumber, iv }));
}

/**
 * Reindex / Delete / Rollback (and Unpin, while pinned) for one document. Buttons a role may not
 * use are shown disabled with the role they need; a viewer gets a one-line read-only note and no
 * buttons at all.
 */
export function DocumentActions({ doc }: { doc: DocumentDetail }) {
  const viewer = useViewer();
  const canReindex = useCan("reindex");
  const canDelete = useCan("deleteDocument");
  const canRollback = useCan("rollback");
  const canUnpin = useCan("unpin");
  const [open, setOpen] = useState<Which>(null);
  const hintId = useId();

  if (!canReindex && !canDelete && !canRollback && !canUnpin) {
    return (
      <p className="muted actions-note" data-testid="actions-readonly">
        Read-only: your role ({viewer.role}) can look but not change indexing.
      </p>
    );
  }

  const deleted = doc.state === DOCUMENT_STATE.DELETED;
  const candidates = rollbackCandidates(doc);
  const needs = (role: string) => `Needs the ${role} role`;

  return (
    <div className="actions-bar" role="group" aria-label="Document actions" data-testid="document-actions">
      <button
        type="button"
        className="btn btn--secondary"
        disabled={!canReindex || deleted}
        title={
          !canReindex
            ? needs(REQUIRED_ROLE.reindex)
            : deleted
              ? "The document is deleted"
              : "Index the latest version again"
        }
        onClick={() => setOpen("reindex")}
        data-testid="action-reindex"
      >
        Reindex…
      </button>
      <button
        type="button"
        className="btn btn--secondary"
        disabled={!canRollback || deleted || candidates.length === 0}
        title={
          !canRollback
            ? needs(REQUIRED_ROLE.rollback)
            : deleted
              ? "The document is deleted"
              : candidates.length === 0
                ? "No earlier complete index version to roll back to"
                : "Serve an earlier index version"
        }
        aria-describedby={canRollback && !deleted && candidates.length === 0 ? hintId : undefined}
        onClick={() => setOpen("rollback")}
        data-testid="action-rollback"
      >
        Roll back…
      </button>
      {doc.pinned ? (
        <button
          type="button"
          className="btn btn--secondary"
          disabled={!canUnpin || deleted}
          title={
            !canUnpin
              ? needs(REQUIRED_ROLE.unpin)
              : deleted
                ? "The document is deleted"
                : `Release the pin and serve the latest version, ${formatVersion(doc.businessVersion)}`
          }
          onClick={() => setOpen("unpin")}
          data-testid="action-unpin"
        >
          Unpin…
        </button>
      ) : null}
      <button
        type="button"
        className="btn btn--danger-outline"
        disabled={!canDelete || deleted}
        title={!canDelete ? needs(REQUIRED_ROLE.deleteDocument) : deleted ? "Already deleted" : "Remove from search"}
        onClick={() => setOpen("delete")}
        data-testid="action-delete"
      >
        Delete from search…
      </button>
      {!canRollback ? (
        <span className="field__hint">Rollback needs the {REQUIRED_ROLE.rollback} role.</span>
      ) : !deleted && candidates.length === 0 ? (
        <span id={hintId} className="field__hint">
          No earlier index version to roll back to.
        </span>
      ) : null}

      {canReindex ? <ReindexDialog doc={doc} open={open === "reindex"} onClose={() => setOpen(null)} /> : null}
      {canDelete ? <DeleteDialog doc={doc} open={open === "delete"} onClose={() => setOpen(null)} /> : null}
      {canRollback ? (
        <RollbackDialog doc={doc} candidates={candidates} open={open === "rollback"} onClose={() => setOpen(null)} />
      ) : null}
      {canUnpin ? <UnpinDialog doc={doc} open={open === "unpin"} onClose={() => setOpen(null)} /> : null}
    </div>
  );
}

type DialogProps = { doc: DocumentDetail; open: boolean; onClose: () => void };

function ReindexDialog({ doc, open, onClose }: DialogProps) {
  const reindex = useReindex();
  const toast = useToast();
  const close = useDialogClose(reindex, onClose);
  const b = formatVersion(doc.businessVersion);
  return (
    <Dialog open={open} onClose={close} busy={reindex.isPending} title={`Reindex ${doc.key}`} testId="reindex-dialog">
      <ActionForm
        effect={
          <p>
            Queues a <strong>REINDEX</strong> task for {b} (the latest version): it is chunked and embedded again,
            reusing embeddings whose text did not change.{" "}
            {doc.searchVersion !== null
              ? `Search keeps serving ${formatVersion(doc.searchVersion)} until the new index is complete.`
              : "The document becomes searchable when it completes."}
          </p>
        }
        onSubmit={() =>
          reindex.mutate(
            { tenant: doc.tenant, key: doc.key },
            {
              onSuccess: (res) => {
                close();
                toast.push({
                  tone: "success",
                  title: `Reindex of ${doc.key} ${b} queued`,
                  body: `Task #${res.taskId} will rebuild the index.`,
                  link: { href: taskHref(res.taskId), label: "Open task" },
                });
              },
            },
          )
        }
        onCancel={close}
        busy={reindex.isPending}
        error={reindex.error}
        confirmLabel="Queue reindex"
        busyLabel="Queuing…"
        confirmTestId="reindex-confirm"
      />
    </Dialog>
  );
}

function DeleteDialog({ doc, open, onClose }: DialogProps) {
  const del = useDeleteDocument();
  const close = useDialogClose(del, onClose);
  return (
    <Dialog
      open={open}
      onClose={close}
      busy={del.isPending}
      title={`Delete ${doc.key} from search`}
      testId="delete-dialog"
    >
      <DeleteForm doc={doc} mutation={del} onClose={close} />
    </Dialog>
  );
}

function DeleteForm({
  doc,
  mutation,
  onClose,
}: {
  doc: DocumentDetail;
  mutation: ReturnType<typeof useDeleteDocument>;
  onClose: () => void;
}) {
  const toast = useToast();
  const id = useId();
  const [typed, setTyped] = useState("");
  const matches = typed.trim() === doc.key;
  return (
    <ActionForm
      effect={
        <p>
          Marks <span className="mono">{doc.key}</span> in <span className="tenant-chip">{doc.tenant}</span> as deleted
          and queues a <strong>DELETE</strong> task that removes its chunks: search stops returning it. Publishing the
          key again brings it back as a new version.
        </p>
      }
      onSubmit={() =>
        mutation.mutate(
          { tenant: doc.tenant, key: doc.key },
          {
            onSuccess: (res) => {
              onClose();
              toast.push({
                tone: "success",
                title: `Deleting ${doc.key} from search`,
                body: `Task #${res.taskId} removes its chunks.`,
                link: { href: taskHref(res.taskId), label: "Open task" },
              });
            },
          },
        )
      }
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Delete from search"
      busyLabel="Deleting…"
      tone="danger"
      canSubmit={matches}
      confirmTestId="delete-confirm"
    >
      <div className="field">
        <label htmlFor={`${id}-confirm`} className="field__label">
          Type the key <span className="mono">{doc.key}</span> to confirm
        </label>
        <input
          id={`${id}-confirm`}
          className="input mono"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          aria-describedby={`${id}-confirm-hint`}
          data-testid="delete-confirm-key"
        />
        <p id={`${id}-confirm-hint`} className="field__hint" aria-live="polite">
          {matches ? "Key matches." : "The button unlocks when the key matches exactly."}
        </p>
      </div>
    </ActionForm>
  );
}

function RollbackDialog({
  doc,
  candidates,
  open,
  onClose,
}: DialogProps & { candidates: ReturnType<typeof rollbackCandidates> }) {
  const rollback = useRollback();
  const close = useDialogClose(rollback, onClose);
  return (
    <Dialog
      open={open}
      onClose={close}
      busy={rollback.isPending}
      title={`Roll back ${doc.key}`}
      testId="rollback-dialog"
    >
      <RollbackForm doc={doc} candidates={candidates} mutation={rollback} onClose={close} />
    </Dialog>
  );
}

function RollbackForm({
  doc,
  candidates,
  mutation,
  onClose,
}: {
  doc: DocumentDetail;
  candidates: ReturnType<typeof rollbackCandidates>;
  mutation: ReturnType<typeof useRollback>;
  onClose: () => void;
}) {
  const toast = useToast();
  const id = useId();
  const [version, setVersion] = useState<string>(() => (candidates[0] ? String(candidates[0].versionNumber) : ""));
  const { reason, check, field } = useReason(`${id}-reason`, true);
  const v = Number(version);
  const chosen = candidates.find((c) => c.versionNumber === v);

  return (
    <ActionForm
      effect={
        <p data-testid="rollback-effect">
          Search will serve <strong>{chosen ? formatVersion(chosen.versionNumber) : "the chosen version"}</strong>
          {doc.searchVersion !== null ? ` instead of ${formatVersion(doc.searchVersion)}` : ""} and stay{" "}
          <strong>pinned</strong> there until the next publish or an unpin. Nothing is re-embedded: the earlier index is
          switched back on.
        </p>
      }
      onSubmit={() => {
        if (!check()) return;
        if (!chosen) return;
        mutation.mutate(
          { doc: { tenant: doc.tenant, key: doc.key }, toVersion: chosen.versionNumber, reason },
          {
            onSuccess: (res) => {
              onClose();
              toast.push({
                tone: "success",
                title: `Search now serves ${doc.key} ${formatVersion(res.searchVersion)}`,
                body: res.pinned ? "Pinned until the next publish or unpin." : undefined,
              });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel={chosen ? `Roll back to ${formatVersion(chosen.versionNumber)}` : "Roll back"}
      busyLabel="Rolling back…"
      canSubmit={Boolean(chosen)}
      confirmTestId="rollback-confirm"
    >
      <div className="field">
        <label htmlFor={`${id}-version`} className="field__label">
          Version to serve
        </label>
        <select
          id={`${id}-version`}
          className="select"
          value={version}
          onChange={(e) => setVersion(e.target.value)}
          data-testid="rollback-version"
        >
          {candidates.map((c) => (
            <option key={c.versionNumber} value={String(c.versionNumber)}>
              {formatVersion(c.versionNumber)} — {c.iv.status.toLowerCase()}, {c.iv.chunkCount ?? "?"} chunks,{" "}
              {c.iv.embeddingModel ?? "unknown model"}, built {formatDateTime(c.iv.createdAt)}
            </option>
          ))}
        </select>
      </div>
      <ReasonField {...field} hint="Required (at least 3 characters). Recorded in the audit log." />
    </ActionForm>
  );
}

function UnpinDialog({ doc, open, onClose }: DialogProps) {
  const unpin = useUnpin();
  const close = useDialogClose(unpin, onClose);
  return (
    <Dialog open={open} onClose={close} busy={unpin.isPending} title={`Unpin ${doc.key}`} testId="unpin-dialog">
      <UnpinForm doc={doc} mutation={unpin} onClose={close} />
    </Dialog>
  );
}

function UnpinForm({
  doc,
  mutation,
  onClose,
}: {
  doc: DocumentDetail;
  mutation: ReturnType<typeof useUnpin>;
  onClose: () => void;
}) {
  const toast = useToast();
  // Taken once when the dialog opens: the page keeps polling behind it, and the explanation the
  // person confirms should not change under their cursor.
  const [forecast] = useState(() => unpinForecast(doc));
  const b = formatVersion(forecast.version);
  const s = doc.searchVersion === null ? null : formatVersion(doc.searchVersion);
  const who = doc.pinnedBy ? (
    <>
      {" "}
      by <span className="mono">{doc.pinnedBy}</span>
    </>
  ) : null;

  let effect: ReactNode;
  if (forecast.kind === "returns") {
    effect = (
      <p data-testid="unpin-effect">
        Releases the pin{who}
        {s ? ` on ${s}` : ""}. Search returns to <strong>{b}, the latest version</strong>, at once: its complete index
        is switched back on and nothing is re-embedded.
      </p>
    );
  } else {
    const t = forecast.task;
    const serving = forecast.serving === null ? "No version" : formatVersion(forecast.serving);
    const taskNote =
      t && UNFINISHED_TASK.includes(t.status)
        ? ` Task #${t.taskId} is building it.`
        : t && t.status === "DEAD"
          ? ` Its last task (#${t.taskId}) failed: retry it for search to move.`
          : " A REINDEX task is queued to build it.";
    // A pinned version of another embedding model serves nothing now: say so, not that it serves.
    const meanwhile =
      forecast.serving === null
        ? `search finds nothing of it until ${b} is indexed`
        : `${serving} keeps serving until ${b} is indexed`;
    effect = (
      <p data-testid="unpin-effect">
        Releases the pin{who}. {b} has no complete index, so <strong>{meanwhile}</strong>.{taskNote}
      </p>
    );
  }

  return (
    <ActionForm
      effect={
        <>
          {effect}
          {doc.pinnedReason ? (
            <p className="muted" data-testid="unpin-pin-reason">
              Pinned because: “{doc.pinnedReason}”
            </p>
          ) : null}
        </>
      }
      onSubmit={() =>
        mutation.mutate(
          { tenant: doc.tenant, key: doc.key },
          {
            onSuccess: (res) => {
              onClose();
              const now = res.searchVersion === null ? null : formatVersion(res.searchVersion);
              toast.push({
                tone: "success",
                title:
                  res.searchVersion === doc.businessVersion
                    ? `Search now serves ${doc.key} ${now}`
                    : `${doc.key} unpinned; ${now ?? "no version"} keeps serving`,
                body: res.taskId
                  ? `Task #${res.taskId} builds ${formatVersion(doc.businessVersion)}; search moves to it when it completes.`
                  : "The pin is released.",
                link: res.taskId ? { href: taskHref(res.taskId), label: "Open task" } : undefined,
              });
            },
          },
        )
      }
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Unpin"
      busyLabel="Unpinning…"
      confirmTestId="unpin-confirm"
    />
  );
}
