"use client";

import Link from "next/link";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState, type ReactNode } from "react";
import { isApiError } from "@/lib/ui/api";
import { formatDateTime, formatDuration } from "@/lib/ui/format";
import {
  MIGRATION_ACTIONS,
  MIGRATION_POLL_MS,
  MIGRATION_STATE_LABEL,
  MIGRATION_STATE_TONE,
  MIGRATION_SWITCHED_POLL_MS,
  isBuildingMigration,
  migrationFailuresHref,
  spaceKeys,
  useMigration,
  type MigrationAction,
  type MigrationState,
  type MigrationView,
  type SpaceRef,
  type SpaceView,
} from "@/lib/ui/spaces";
import { useCan } from "../PrincipalContext";
import { ProgressBar } from "../ProgressBar";
import { RelativeTime } from "../RelativeTime";
import { BlockSkeleton, EmptyState, QueryErrorState, StaleDataBanner } from "../States";
import { MigrationActionDialog, formatUsd } from "./MigrationDialogs";
import { SpaceComparison } from "../evaluation/SpaceComparison";

const n = (v: number) => v.toLocaleString("en");

export function MigrationStateBadge({ state, testId = "migration-state" }: { state: MigrationState; testId?: string }) {
  return (
    <span
      className={`pill pill--${MIGRATION_STATE_TONE[state]}`}
      data-testid={testId}
      data-state={state}
      title={STATE_HINT[state]}
    >
      {MIGRATION_STATE_LABEL[state]}
    </span>
  );
}

const STATE_HINT: Record<MigrationState, string> = {
  BUILDING: "The candidate space is being built beside the active one; search does not read it yet.",
  READY: "Every document is built and verified in the candidate and its index exists: it may be switched to.",
  SWITCHED: "Search reads the new space; the previous one keeps following publishes for a switch back.",
  SWITCHED_BACK: "Search went back to the previous space; the candidate was dropped.",
  ABORTED: "Dropped before search read it.",
  FINISHED: "Search reads the new space; the previous one no longer follows publishes.",
};

/** One sentence on where the migration stands, in the terms of what search reads. */
function explain(m: MigrationView): ReactNode {
  const from = <strong className="mono">{m.from.name}</strong>;
  const to = <strong className="mono">{m.to.name}</strong>;
  const d = m.documents;
  switch (m.state) {
    case "BUILDING":
      if (d.total > 0 && d.built >= d.total && !m.indexBuilt)
        return (
          <>
            Every document is built in {to}. The worker&rsquo;s maintenance builds its HNSW index now (it checks every
            few seconds), then the migration is ready to switch. Search keeps reading {from}.
          </>
        );
      return (
        <>
          Building {to} beside {from}: {n(d.built)} of {n(d.total)} documents are in. Search keeps reading {from} until{" "}
          {m.autoSwitch ? "the worker switches by itself, once the build is complete" : "an operator switches"}.
        </>
      );
    case "READY":
      return (
        <>
          {to} holds every document, verified, and its index is built.{" "}
          {m.autoSwitch
            ? "The worker switches by itself on its next pass."
            : "Switch when you are ready: search in this tenant then reads it from the next query on."}
        </>
      );
    case "SWITCHED":
      return (
        <>
          Search reads {to}. {from} keeps following every publish, so Switch back returns to it at once with nothing
          re-embedded; Finish stops that (and the second embedding per publish).
        </>
      );
    case "SWITCHED_BACK":
      return (
        <>
          Switched back: search reads {from} again, and {to} no longer follows publishes.
        </>
      );
    case "ABORTED":
      return (
        <>
          Aborted: search never read {to}; its build was dropped. Search reads {from}.
        </>
      );
    case "FINISHED":
      return (
        <>
          Finished: search reads {to}, and {from} no longer follows publishes.
        </>
      );
  }
}

type PanelProps = {
  tenant: string;
  id: string;
  /** The list's copy, shown at once while the migration's own answer is fetched. */
  initial?: MigrationView;
  spaces: SpaceView[] | undefined;
};

/** One migration: the two spaces, progress and cost, failures, its timeline and the actions its state allows. */
export function MigrationPanel({ tenant, id, initial, spaces }: PanelProps) {
  const query = useMigration(tenant, id, initial);
  const headingId = useId();
  const qc = useQueryClient();
  // The list (its table, the lead's active space) follows this migration at the panel's pace,
  // from the answers the panel polls anyway.
  const latest = query.data;
  useEffect(() => {
    if (!latest) return;
    qc.setQueryData<MigrationView[]>(spaceKeys.migrations(tenant), (list) =>
      list?.some((x) => x.id === latest.id && x !== latest) ? list.map((x) => (x.id === latest.id ? latest : x)) : list,
    );
  }, [qc, tenant, latest]);

  if (query.isPending)
    return (
      <section className="card card--padded" aria-busy="true" aria-label={`Migration #${id}`}>
        <span className="visually-hidden" role="status">
          Loading migration #{id}…
        </span>
        <BlockSkeleton lines={4} />
      </section>
    );
  if (query.isError && !query.data) {
    const notFound = isApiError(query.error) && (query.error.isNotFound || query.error.status === 400);
    return (
      <section className="card" aria-label={`Migration #${id}`} data-testid="migration-not-found">
        {notFound ? (
          <EmptyState title={`No migration #${id} in ${tenant}`}>
            <p>It may belong to another tenant. Pick one from the list below.</p>
          </EmptyState>
        ) : (
          <QueryErrorState title={`Could not load migration #${id}`} query={query} />
        )}
      </section>
    );
  }
  const m = query.data!;
  return (
    <section className="card card--padded migration" aria-labelledby={headingId} data-testid="migration-panel">
      <StaleDataBanner query={query} />
      <MigrationBody m={m} headingId={headingId} spaces={spaces} fetching={query.isFetching} />
    </section>
  );
}

function MigrationBody({
  m,
  headingId,
  spaces,
  fetching,
}: {
  m: MigrationView;
  headingId: string;
  spaces: SpaceView[] | undefined;
  fetching: boolean;
}) {
  const canMigrate = useCan("migrate");
  const [action, setAction] = useState<MigrationAction | null>(null);
  const allowed = MIGRATION_ACTIONS[m.state];
  const building = isBuildingMigration(m);
  const poll = building ? MIGRATION_POLL_MS : m.state === "SWITCHED" ? MIGRATION_SWITCHED_POLL_MS : null;
  const spaceOf = (ref: SpaceRef) => spaces?.find((s) => s.id === ref.id) ?? null;
  const toServes = m.active === m.to.name;
  const d = m.documents;
  const ready = m.state === "READY" || (d.total > 0 && d.built >= d.total && m.indexBuilt);

  return (
    <>
      <header className="migration__head">
        <h2 id={headingId} className="migration__title section-title">
          Migration <span className="mono">#{m.id}</span> <MigrationStateBadge state={m.state} />
          {m.autoSwitch ? <span className="pill pill--neutral">auto-switch</span> : null}
        </h2>
        <span className="muted section-title__aside" data-testid="migration-refresh">
          <span
            className={`live-dot${poll === null ? " live-dot--off" : fetching ? " live-dot--busy" : ""}`}
            aria-hidden="true"
          />{" "}
          {poll === null ? "ended; not refreshing" : `refreshing every ${poll / 1000} s`}
        </span>
      </header>

      <p className="explainer" role="status" aria-live="polite" data-testid="migration-explainer">
        {explain(m)}
      </p>

      {canMigrate && allowed.length > 0 ? (
        <div className="migration__actions" data-testid="migration-actions">
          {allowed.includes("switch") ? (
            <button
              type="button"
              className={`btn ${ready ? "btn--primary" : "btn--secondary"}`}
              onClick={() => setAction("switch")}
              data-testid="migration-switch"
            >
              Switch…
            </button>
          ) : null}
          {allowed.includes("switch-back") ? (
            <button
              type="button"
              className="btn btn--primary"
              onClick={() => setAction("switch-back")}
              data-testid="migration-switch-back"
            >
              Switch back…
            </button>
          ) : null}
          {allowed.includes("finish") ? (
            <button
              type="button"
              className="btn btn--secondary"
              onClick={() => setAction("finish")}
              data-testid="migration-finish"
            >
              Finish…
            </button>
          ) : null}
          {allowed.includes("abort") ? (
            <button
              type="button"
              className="btn btn--danger-outline"
              onClick={() => setAction("abort")}
              data-testid="migration-abort"
            >
              Abort…
            </button>
          ) : null}
        </div>
      ) : null}

      <div className="space-pair" data-testid="migration-spaces">
        <SpaceCard
          role={roleOf(m, "from")}
          serving={!toServes}
          ref_={m.from}
          space={spaceOf(m.from)}
          testId="migration-from"
        />
        <span className="space-pair__arrow" aria-hidden="true">
          →
        </span>
        <SpaceCard
          role={roleOf(m, "to")}
          serving={toServes}
          ref_={m.to}
          space={spaceOf(m.to)}
          indexBuilt={m.indexBuilt}
          testId="migration-to"
        />
      </div>

      <Progress m={m} />

      <SpaceComparison m={m} />

      <Failures m={m} />

      <Timeline m={m} />

      <MigrationActionDialog migration={m} action={action} onClose={() => setAction(null)} />
    </>
  );
}

function roleOf(m: MigrationView, side: "from" | "to"): string {
  const open = m.shadow !== null;
  const serving = (side === "to") === (m.active === m.to.name);
  if (serving) return "Active: search reads it";
  if (!open) return side === "to" ? "Candidate (dropped)" : "Previous (no longer kept)";
  return side === "to" ? (m.state === "READY" ? "Candidate, ready" : "Candidate, building") : "Previous, kept in step";
}

function SpaceCard({
  role,
  serving,
  ref_,
  space,
  indexBuilt,
  testId,
}: {
  role: string;
  serving: boolean;
  ref_: SpaceRef;
  space: SpaceView | null;
  indexBuilt?: boolean;
  testId: string;
}) {
  return (
    <div className={`space-card${serving ? " space-card--serving" : ""}`} data-testid={testId} data-space={ref_.name}>
      <p className="space-card__role">{role}</p>
      <p className="space-card__name">{ref_.name}</p>
      <dl className="facts">
        <Fact label="Provider">{space ? space.provider : <span className="muted">—</span>}</Fact>
        <Fact label="Model">
          <span className="mono">{ref_.model}</span>
        </Fact>
        <Fact label="Dimensions">
          <span className="mono">{ref_.dimensions}</span>
        </Fact>
        <Fact label="Chunker">
          {space ? (
            <span className="mono">
              {space.chunker.version}
              {space.chunker.targetChars ? ` · ${n(space.chunker.targetChars)} chars` : ""}
            </span>
          ) : (
            <span className="muted">—</span>
          )}
        </Fact>
        {space ? (
          <>
            <Fact label="Rate">
              {space.textsPerMinute ? `${n(space.textsPerMinute)} texts/min` : <span className="muted">unlimited</span>}
            </Fact>
            <Fact label="Price">
              {space.pricePerMillionTokens !== null ? (
                `$${space.pricePerMillionTokens} / M tokens`
              ) : (
                <span className="muted">not set</span>
              )}
            </Fact>
          </>
        ) : null}
        {indexBuilt !== undefined ? (
          <Fact label="HNSW index">
            {indexBuilt ? (
              <span data-testid="migration-index-built">built</span>
            ) : (
              <span className="muted" data-testid="migration-index-built">
                not yet
              </span>
            )}
          </Fact>
        ) : null}
      </dl>
    </div>
  );
}

function Progress({ m }: { m: MigrationView }) {
  const d = m.documents;
  const open = m.shadow !== null;
  const shadowName = m.shadow ?? m.to.name;
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} data-testid="migration-progress">
      <h3 id={headingId} className="section-title">
        {m.state === "SWITCHED" ? `Kept in step: ${shadowName}` : open ? "Build" : "What it embedded"}
      </h3>
      {open ? (
        <ProgressBar
          done={d.built}
          total={d.total}
          size="lg"
          unit="documents"
          label={`Documents built in ${shadowName}`}
          etaSeconds={isBuildingMigration(m) ? m.etaSeconds : null}
        />
      ) : null}
      <dl className="facts migration-figures" data-testid="migration-figures">
        {open ? (
          <>
            <Fact label="Documents">
              <span className="mono">
                {n(d.built)} / {n(d.total)} built
              </span>
            </Fact>
            <Fact label="Queued · running">
              <span className="mono">
                {n(d.pending)} · {n(d.running)}
              </span>
            </Fact>
          </>
        ) : (
          <Fact label="Documents">
            <span className="mono">{n(d.total)}</span>
          </Fact>
        )}
        <Fact label="Failed">
          <span className={`mono${d.failed > 0 ? " text-danger" : ""}`} data-testid="migration-failed">
            {n(d.failed)}
          </span>
        </Fact>
        {isBuildingMigration(m) ? (
          <>
            <Fact label="Rate">
              {m.documentsPerMinute !== null ? (
                <span className="mono" data-testid="migration-rate">
                  {m.documentsPerMinute.toLocaleString("en", { maximumFractionDigits: 1 })} docs/min
                </span>
              ) : (
                <span className="muted">—</span>
              )}
            </Fact>
            <Fact label="Time left">
              {m.etaSeconds === 0 ? (
                "none: every document is in"
              ) : m.etaSeconds !== null ? (
                <span data-testid="migration-eta">about {formatDuration(m.etaSeconds)}</span>
              ) : (
                <span className="muted">not known yet</span>
              )}
            </Fact>
          </>
        ) : null}
        <Fact label="Texts embedded">
          <span className="mono" data-testid="migration-texts">
            {n(m.textsEmbedded)}
          </span>
        </Fact>
        <Fact label="Tokens embedded">
          <span className="mono" data-testid="migration-tokens">
            {n(m.tokensEmbedded)}
          </span>
        </Fact>
        <Fact label="Estimated cost">
          {m.estimatedCostUsd !== null ? (
            <span className="mono" data-testid="migration-cost">
              {formatUsd(m.estimatedCostUsd)}
            </span>
          ) : (
            <span className="muted" title="The space has no price per million tokens">
              no price set
            </span>
          )}
        </Fact>
      </dl>
    </section>
  );
}

function Failures({ m }: { m: MigrationView }) {
  const headingId = useId();
  if (m.failures.length === 0) return null;
  return (
    <section aria-labelledby={headingId} data-testid="migration-failures">
      <h3 id={headingId} className="section-title">
        Failed builds
      </h3>
      <ul className="migration-failures">
        {m.failures.map((f) => (
          <li key={f.errorCode} data-testid="migration-failure" data-error-code={f.errorCode}>
            <code className="code-chip code-chip--danger">{f.errorCode}</code>
            <span>
              {n(f.count)} document{f.count === 1 ? "" : "s"}
            </span>
            <Link href={migrationFailuresHref(m.tenant, f.errorCode)} className="btn btn--secondary btn--sm">
              Open the tasks<span className="visually-hidden"> that failed with {f.errorCode}</span>
            </Link>
          </li>
        ))}
      </ul>
      <p className="migration__hint">
        A failed build keeps the switch refused until it is retried (or the document changes). Retry the tasks once the
        cause is fixed.
      </p>
    </section>
  );
}

type Step = { key: string; label: string; at: string; by?: string | null; detail?: ReactNode; tone: string };

function Timeline({ m }: { m: MigrationView }) {
  const headingId = useId();
  const steps: Step[] = [
    {
      key: "created",
      label: `Started: build ${m.to.name} beside ${m.from.name}`,
      at: m.createdAt,
      by: m.createdBy,
      detail: m.reason ? <>Reason: “{m.reason}”</> : m.autoSwitch ? "Set to switch by itself when ready." : null,
      tone: "neutral",
    },
  ];
  if (m.readyAt)
    steps.push({ key: "ready", label: "Ready: every document built, index built", at: m.readyAt, tone: "info" });
  if (m.switchedAt)
    steps.push({
      key: "switched",
      label: `Switched: search reads ${m.to.name}`,
      at: m.switchedAt,
      by: m.switchedBy,
      tone: "ok",
    });
  if (m.endedAt)
    steps.push({
      key: "ended",
      label:
        m.state === "SWITCHED_BACK"
          ? `Switched back: search reads ${m.from.name}`
          : m.state === "ABORTED"
            ? "Aborted: the candidate was dropped"
            : `Finished: ${m.from.name} no longer kept`,
      at: m.endedAt,
      by: m.endedBy,
      tone: m.state === "FINISHED" ? "ok" : "muted",
    });
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId} className="section-title">
        Timeline
      </h3>
      <ol className="timeline" data-testid="migration-timeline">
        {steps.map((s) => (
          <li
            key={s.key}
            className={`timeline__item timeline__item--${s.tone}`}
            data-testid="migration-event"
            data-kind={s.key}
          >
            <span className="timeline__icon" aria-hidden="true">
              •
            </span>
            <div className="timeline__body">
              <div className="timeline__head">
                <span className="timeline__kind">{s.label}</span>
                <span className="timeline__time muted" title={formatDateTime(s.at)}>
                  <RelativeTime iso={s.at} />
                </span>
              </div>
              {s.by || s.detail ? (
                <div className="timeline__meta muted">
                  {s.by ? (
                    <span>
                      by <span className="mono">{s.by}</span>
                    </span>
                  ) : null}
                  {s.detail ? <span>{s.detail}</span> : null}
                </div>
              ) : null}
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
