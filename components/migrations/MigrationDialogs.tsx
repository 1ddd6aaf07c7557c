"use client";

import Link from "next/link";
import { useId, useState, type ReactNode } from "react";
import { isApiError } from "@/lib/ui/api";
import {
  notReadyCounts,
  useMigrationAction,
  useStartMigration,
  type MigrationAction,
  type MigrationView,
  type SpaceView,
} from "@/lib/ui/spaces";
import { ActionForm, ReasonField, useDialogClose, useReason } from "../ActionForm";
import { Dialog } from "../Dialog";
import { useToast } from "../Toast";

const n = (v: number) => v.toLocaleString("en");
const plural = (v: number, one: string, many = `${one}s`) => `${n(v)} ${v === 1 ? one : many}`;

function Space({ children }: { children: ReactNode }) {
  return <strong className="mono">{children}</strong>;
}

/** What each action does, in the words the confirmation shows (the server does exactly this or refuses). */
function effectOf(action: MigrationAction, m: MigrationView, refused: boolean): ReactNode {
  const from = <Space>{m.from.name}</Space>;
  const to = <Space>{m.to.name}</Space>;
  const tenant = <span className="tenant-chip">{m.tenant}</span>;
  const d = m.documents;
  switch (action) {
    case "switch":
      return (
        <>
          <p>
            From the next query on, search in tenant {tenant} reads {to}. The previous space {from} keeps following
            every publish so you can switch back at once with nothing re-embedded, until you Finish.
          </p>
          <p>Until then every publish in the tenant is embedded in both spaces.</p>
          {(d.built < d.total || !m.indexBuilt) && !refused ? (
            <p className="effect__warn" data-testid="switch-not-ready-warning">
              {d.built < d.total
                ? `Only ${n(d.built)} of ${plural(d.total, "document")} are built in ${m.to.name} so far. `
                : `Every document is built, but ${m.to.name}'s HNSW index is not built yet. `}
              The server refuses the switch until every document is built and verified and the index exists.
            </p>
          ) : null}
        </>
      );
    case "switch-back":
      return (
        <p>
          From the next query on, search in tenant {tenant} reads {from} again. Nothing is re-embedded: {from} has
          followed every publish since the switch. {to} stops following publishes and its pointers are dropped; to try
          it again, start a new migration (it reuses the vectors still stored in {to}).
        </p>
      );
    case "abort":
      return (
        <>
          <p>
            Search never read {to}; its {plural(d.built, "built document")} are dropped and its{" "}
            {plural(d.pending + d.running, "queued build")} are superseded. Search in tenant {tenant} keeps reading{" "}
            {from}, unchanged.
          </p>
          <p>
            What was embedded so far ({plural(m.textsEmbedded, "text")}, {plural(m.tokensEmbedded, "token")}
            {m.estimatedCostUsd !== null ? `, about ${formatUsd(m.estimatedCostUsd)}` : ""}) is not kept for this
            migration; a later migration to {to} reuses the vectors still stored there.
          </p>
        </>
      );
    case "finish":
      return (
        <>
          <p>
            {from} stops following publishes in tenant {tenant}: no more second embedding per publish. Search keeps
            reading {to}.
          </p>
          <p className="effect__warn">
            After this there is no switch back from this migration: {from}&rsquo;s pointers are dropped and its index
            versions age out under retention. Going back later is a new migration that builds every document again.
          </p>
        </>
      );
  }
}

const TITLE: Record<MigrationAction, (m: MigrationView) => string> = {
  switch: (m) => `Switch ${m.tenant} to ${m.to.name}`,
  "switch-back": (m) => `Switch ${m.tenant} back to ${m.from.name}`,
  abort: (m) => `Abort migration #${m.id}`,
  finish: (m) => `Finish migration #${m.id}`,
};

const CONFIRM: Record<MigrationAction, { label: (m: MigrationView) => string; busy: string }> = {
  switch: { label: (m) => `Switch to ${m.to.name}`, busy: "Switching…" },
  "switch-back": { label: (m) => `Switch back to ${m.from.name}`, busy: "Switching back…" },
  abort: { label: () => "Abort migration", busy: "Aborting…" },
  finish: { label: () => "Finish migration", busy: "Finishing…" },
};

const DONE: Record<MigrationAction, (m: MigrationView) => { title: string; body: string }> = {
  switch: (m) => ({
    title: `Search in ${m.tenant} reads ${m.to.name}`,
    body: `${m.from.name} keeps following publishes: Switch back returns to it at once.`,
  }),
  "switch-back": (m) => ({
    title: `Search in ${m.tenant} reads ${m.from.name} again`,
    body: `Nothing was re-embedded. Migration #${m.id} ended.`,
  }),
  abort: (m) => ({ title: `Migration #${m.id} aborted`, body: `Search in ${m.tenant} still reads ${m.from.name}.` }),
  finish: (m) => ({
    title: `Migration #${m.id} finished`,
    body: `${m.from.name} no longer follows publishes in ${m.tenant}.`,
  }),
};

type ActionProps = { migration: MigrationView; action: MigrationAction | null; onClose: () => void };

/** The confirmation of one migration action: what will happen, an optional reason, and the server's refusal. */
export function MigrationActionDialog({ migration, action, onClose }: ActionProps) {
  const mutation = useMigrationAction(migration.tenant);
  const close = useDialogClose(mutation, onClose);
  return (
    <Dialog
      open={action !== null}
      onClose={close}
      busy={mutation.isPending}
      title={action ? TITLE[action](migration) : ""}
      testId="migration-action-dialog"
    >
      {action ? <ActionBody migration={migration} action={action} mutation={mutation} onClose={close} /> : null}
    </Dialog>
  );
}

function ActionBody({
  migration: m,
  action,
  mutation,
  onClose,
}: {
  migration: MigrationView;
  action: MigrationAction;
  mutation: ReturnType<typeof useMigrationAction>;
  onClose: () => void;
}) {
  const toast = useToast();
  const { reason, check, field } = useReason(`${useId()}-reason`, false);
  // The refusal's own counts when it carries them (coverage); a refusal for the missing index does
  // not, and then the migration's counts (polled while the dialog is open) say how far it is.
  const refused = isApiError(mutation.error) && mutation.error.code === "MIGRATION_NOT_READY";
  const counts = refused
    ? (notReadyCounts(mutation.error) ?? { total: m.documents.total, built: m.documents.built, unverified: 0 })
    : null;
  return (
    <ActionForm
      effect={
        <div className="effect__stack" data-testid="migration-effect">
          {effectOf(action, m, refused)}
        </div>
      }
      onSubmit={() => {
        if (!check()) return;
        mutation.mutate(
          { id: m.id, action, reason },
          {
            onSuccess: (next) => {
              onClose();
              toast.push({ tone: "success", ...DONE[action](next) });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel={CONFIRM[action].label(m)}
      busyLabel={CONFIRM[action].busy}
      tone={action === "abort" ? "danger" : "primary"}
      confirmTestId={`migration-${action}-confirm`}
    >
      {counts ? <NotReady counts={counts} to={m.to.name} indexBuilt={m.indexBuilt} /> : null}
      <ReasonField {...field} />
    </ActionForm>
  );
}

/** A switch refused with MIGRATION_NOT_READY: how far the candidate is, in the server's counts. */
function NotReady({
  counts,
  to,
  indexBuilt,
}: {
  counts: { total: number; built: number; unverified: number };
  to: string;
  indexBuilt: boolean;
}) {
  const missing = Math.max(0, counts.total - counts.built);
  return (
    <div className="not-ready" role="status" data-testid="migration-not-ready">
      <p>
        <strong>Not switched.</strong> {to} cannot serve every document yet; the page keeps following the build, try
        again when it is ready.
      </p>
      <ul className="not-ready__counts">
        <li data-testid="not-ready-built">
          {n(counts.built)} of {plural(counts.total, "document")} built
        </li>
        <li>{n(missing)} still building</li>
        {counts.unverified > 0 ? <li>{n(counts.unverified)} not verified</li> : null}
        <li data-testid="not-ready-index">
          HNSW index {indexBuilt ? "built" : "not built yet (built once every document is in)"}
        </li>
      </ul>
    </div>
  );
}

export function formatUsd(v: number): string {
  if (v === 0) return "$0";
  if (v < 0.01) return "< $0.01";
  return `$${v.toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

// ---------- start ----------

type StartProps = {
  tenant: string;
  open: boolean;
  onClose: () => void;
  /** The space search reads in the tenant now (not offered as a target). */
  active: string | null;
  spaces: SpaceView[] | undefined;
  /** The spaces list failed or is still loading. */
  spacesProblem: ReactNode;
  canManageSpaces: boolean;
  onStarted: (m: MigrationView) => void;
};

export function StartMigrationDialog(props: StartProps) {
  const start = useStartMigration(props.tenant);
  const close = useDialogClose(start, props.onClose);
  return (
    <Dialog
      open={props.open}
      onClose={close}
      busy={start.isPending}
      title={`Start a migration of ${props.tenant}`}
      testId="migration-start-dialog"
      size="lg"
    >
      <StartForm {...props} mutation={start} onClose={close} />
    </Dialog>
  );
}

function StartForm({
  tenant,
  active,
  spaces,
  spacesProblem,
  canManageSpaces,
  onStarted,
  mutation,
  onClose,
}: StartProps & { mutation: ReturnType<typeof useStartMigration> }) {
  const ids = { space: useId(), auto: useId(), autoHint: useId(), spaceHint: useId() };
  const toast = useToast();
  const targets = (spaces ?? []).filter((s) => s.retiredAt === null && s.name !== active);
  const [picked, setPicked] = useState<string | null>(null);
  const [autoSwitch, setAutoSwitch] = useState(false);
  const { reason, check, field } = useReason(`${useId()}-reason`, false);
  // The first target until one is picked (the list may arrive after the dialog opened).
  const chosen = targets.find((s) => s.name === picked) ?? targets[0] ?? null;

  const activeName = <Space>{active ?? "its current space"}</Space>;
  return (
    <ActionForm
      effect={
        chosen ? (
          <>
            <p>
              Queues one <span className="mono">MIGRATE</span> task per live document of{" "}
              <span className="tenant-chip">{tenant}</span>. Workers build them into <Space>{chosen.name}</Space> in the
              slots publishes leave free
              {chosen.textsPerMinute ? `, at most ${n(chosen.textsPerMinute)} texts a minute across the fleet` : ""}.
            </p>
            <p>
              Search keeps reading {activeName} until{" "}
              {autoSwitch
                ? "the worker switches by itself, once every document is built and verified and the index is built"
                : "you switch on this page"}
              ; nothing changes for searchers before that. Abort drops the build at any time.
            </p>
          </>
        ) : (
          <p>Choose the index space to build the tenant&rsquo;s documents into.</p>
        )
      }
      onSubmit={() => {
        if (!chosen || !check()) return;
        mutation.mutate(
          { space: chosen.name, autoSwitch, ...(reason.trim() ? { reason: reason.trim() } : {}) },
          {
            onSuccess: (m) => {
              onClose();
              onStarted(m);
              toast.push({
                tone: "success",
                title: `Migration #${m.id} started`,
                body: `Building ${plural(m.documents.total, "document")} of ${tenant} into ${m.to.name}.`,
              });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Start migration"
      busyLabel="Starting…"
      canSubmit={chosen !== null}
      confirmTestId="migration-start-confirm"
    >
      {spacesProblem ? (
        spacesProblem
      ) : targets.length === 0 ? (
        <div className="note note--info" role="note" data-testid="migration-no-targets">
          <span className="note__icon" aria-hidden="true">
            i
          </span>
          <p>
            No other index space is registered{active ? ` besides ${active}` : ""}.{" "}
            {canManageSpaces ? (
              <>
                Register one on the <Link href="/spaces">Index spaces</Link> page first.
              </>
            ) : (
              <>
                An admin registers one on the <Link href="/spaces">Index spaces</Link> page.
              </>
            )}
          </p>
        </div>
      ) : (
        <>
          <div className="field">
            <label htmlFor={ids.space} className="field__label">
              Target space
            </label>
            <select
              id={ids.space}
              className="select"
              value={chosen?.name ?? ""}
              onChange={(e) => setPicked(e.target.value)}
              aria-describedby={ids.spaceHint}
              data-testid="migration-space"
            >
              {targets.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name} — {s.provider} {s.model}, {s.dimensions} dimensions{s.isDefault ? " (default)" : ""}
                </option>
              ))}
            </select>
            <p id={ids.spaceHint} className="field__hint" aria-live="polite">
              {chosen ? spaceLine(chosen) : null}
            </p>
          </div>
          <div className="field field--check">
            <input
              id={ids.auto}
              type="checkbox"
              checked={autoSwitch}
              onChange={(e) => setAutoSwitch(e.target.checked)}
              aria-describedby={ids.autoHint}
              data-testid="migration-auto-switch"
            />
            <label htmlFor={ids.auto}>Switch automatically when ready</label>
          </div>
          <p id={ids.autoHint} className="field__hint">
            Without it, the migration waits in <strong>Ready to switch</strong> for an operator; either way, Switch back
            stays one click away until someone finishes the migration.
          </p>
          <ReasonField {...field} />
        </>
      )}
    </ActionForm>
  );
}

/** Rate and price of a space, as the start dialog states them. */
function spaceLine(s: SpaceView): string {
  const chunker = s.chunker.targetChars ? `chunks of about ${n(s.chunker.targetChars)} characters` : "default chunks";
  const rate = s.textsPerMinute ? `up to ${n(s.textsPerMinute)} texts/min` : "no rate limit";
  const price =
    s.pricePerMillionTokens !== null
      ? `$${s.pricePerMillionTokens} per million tokens`
      : "no price set, so the cost is not estimated";
  return `Chunker ${s.chunker.version} (${chunker}); ${rate}; ${price}.`;
}
