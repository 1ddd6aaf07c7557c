"use client";

import Link from "next/link";
import { useId, useMemo } from "react";
import { errorText, isApiError } from "@/lib/ui/api";
import { roleAtLeast } from "@/lib/ui/roles";
import {
  TRIGGER_LABEL,
  evaluationHref,
  latestPair,
  spaceWinsAndLosses,
  useEvaluationRun,
  useEvaluationRuns,
  useEvaluationSet,
  useStartEvaluation,
  type RunMode,
  type RunSummary,
  type SpaceChange,
} from "@/lib/ui/evaluation";
import type { MigrationView } from "@/lib/ui/spaces";
import { useViewer } from "../PrincipalContext";
import { RelativeTime } from "../RelativeTime";

const f3 = (x: number) => x.toFixed(3);
const rank = (r: number | null) => (r === null ? "—" : String(r));

/**
 * A migration's two spaces on the tenant's evaluation set, side by side (docs/evaluation.md): the
 * newest finished run on each (the same set version and mode when there is such a pair: a gate's,
 * or two asked for here), their three figures, and per query what the new space wins and loses
 * with each relevant document's rank in both. Per-query results are a maintainer's to read (and
 * hide queries searched as principals the reader may not search as); the server enforces both.
 */
export function SpaceComparison({ m }: { m: MigrationView }) {
  const viewer = useViewer();
  const maintainer = roleAtLeast(viewer.role, "maintainer");
  const set = useEvaluationSet(m.tenant);
  const runs = useEvaluationRuns(m.tenant);
  const headingId = useId();
  const items = useMemo(() => runs.data ?? [], [runs.data]);
  const pair = useMemo(() => latestPair(items, m.from.name, m.to.name), [items, m.from.name, m.to.name]);
  // Refused (a reader below maintainer, or another tenant): the section is not theirs to see.
  if (!maintainer || (set.isError && isApiError(set.error) && (set.error.status === 403 || set.error.isNotFound)))
    return null;
  if (set.isPending || runs.isPending)
    return (
      <p className="muted" role="status">
        <span className="spinner" aria-hidden="true" /> Loading the evaluation…
      </p>
    );
  if (!set.data)
    return (
      <p className="migration__hint" data-testid="migration-evaluation-none">
        {m.tenant} has no evaluation set, so a switch is not judged on answers.{" "}
        <Link href={evaluationHref(m.tenant)}>Define one on the Evaluation page</Link>.
      </p>
    );
  const open = m.shadow !== null;
  const openRuns = items.filter(
    (r) => (r.state === "PENDING" || r.state === "RUNNING") && (r.space === m.from.name || r.space === m.to.name),
  );
  return (
    <section aria-labelledby={headingId} data-testid="migration-evaluation">
      <h3 id={headingId} className="section-title">
        Evaluation on both spaces{" "}
        <Link href={evaluationHref(m.tenant)} className="btn btn--secondary btn--sm section-title__aside">
          Open the Evaluation page
        </Link>
      </h3>
      {open ? <EvaluateBoth m={m} busy={openRuns.length > 0} /> : null}
      {openRuns.length ? (
        <p className="muted" role="status" data-testid="migration-evaluation-running">
          {openRuns.map((r) => `run #${r.id} on ${r.space}: ${r.progress.done}/${r.progress.total}`).join("; ")}
        </p>
      ) : null}
      <div className="space-pair">
        <RunCard tenant={m.tenant} space={m.from.name} run={pair.from} testId="migration-evaluation-from" />
        <span className="space-pair__arrow" aria-hidden="true">
          →
        </span>
        <RunCard tenant={m.tenant} space={m.to.name} run={pair.to} testId="migration-evaluation-to" />
      </div>
      {pair.from && pair.to && pair.comparable ? (
        <Changes tenant={m.tenant} from={pair.from} to={pair.to} />
      ) : pair.from || pair.to ? (
        <p className="migration__hint">
          No run of set version {set.data.version} in one mode on both spaces yet, so there are no per-query wins and
          losses to show{open ? ": evaluate both spaces to compare them" : ""}.
        </p>
      ) : null}
    </section>
  );
}

function EvaluateBoth({ m, busy }: { m: MigrationView; busy: boolean }) {
  const start = useStartEvaluation(m.tenant);
  const modeId = useId();
  const mode: RunMode = "hybrid";
  const run = async () => {
    for (const space of [m.from.name, m.to.name]) await start.mutateAsync({ space, mode });
  };
  return (
    <div className="migration__actions">
      <button
        type="button"
        className="btn btn--secondary"
        disabled={busy || start.isPending}
        onClick={() => void run().catch(() => undefined)}
        aria-describedby={modeId}
        data-testid="migration-evaluate-both"
      >
        Evaluate both spaces
      </button>
      <span id={modeId} className="field__hint">
        Runs the newest set on {m.from.name} and on {m.to.name} in {mode} mode, as callers search.
      </span>
      {start.isError ? (
        <div className="form-error" role="alert">
          {errorText(start.error)}
        </div>
      ) : null}
    </div>
  );
}

function RunCard({
  tenant,
  space,
  run,
  testId,
}: {
  tenant: string;
  space: string;
  run: RunSummary | null;
  testId: string;
}) {
  return (
    <div className="space-card" data-testid={testId} data-space={space} data-run-id={run?.id ?? ""}>
      <p className="space-card__role">{space}</p>
      {run && run.figures ? (
        <>
          <dl className="facts">
            <div className="fact">
              <dt>nDCG@10</dt>
              <dd className="mono" data-testid="evaluation-ndcg">
                {f3(run.figures.ndcgAt10)}
              </dd>
            </div>
            <div className="fact">
              <dt>recall@10</dt>
              <dd className="mono" data-testid="evaluation-recall">
                {f3(run.figures.recallAt10)}
              </dd>
            </div>
            <div className="fact">
              <dt>MRR@10</dt>
              <dd className="mono" data-testid="evaluation-mrr">
                {f3(run.figures.mrrAt10)}
              </dd>
            </div>
          </dl>
          <p className="migration__hint">
            <Link href={evaluationHref(tenant, run.id)}>Run #{run.id}</Link>: {run.mode}, set v{run.setVersion},{" "}
            {TRIGGER_LABEL[run.trigger]}, <RelativeTime iso={run.finishedAt ?? run.createdAt} />
          </p>
        </>
      ) : (
        <p className="muted">No finished run on this space.</p>
      )}
    </div>
  );
}

function Changes({ tenant, from, to }: { tenant: string; from: RunSummary; to: RunSummary }) {
  const a = useEvaluationRun(tenant, from.id);
  const b = useEvaluationRun(tenant, to.id);
  if (a.isPending || b.isPending)
    return (
      <p className="muted" role="status">
        <span className="spinner" aria-hidden="true" /> Loading both runs…
      </p>
    );
  if (a.isError || b.isError)
    return (
      <div className="form-error" role="alert">
        Could not load the runs: {errorText(a.error ?? b.error)}
      </div>
    );
  const { wins, losses } = spaceWinsAndLosses(a.data, b.data);
  return (
    <div className="grid-2" data-testid="migration-evaluation-changes">
      <ChangeTable
        title={`Wins of ${to.space}`}
        items={wins}
        from={from.space}
        to={to.space}
        testId="migration-evaluation-wins"
      />
      <ChangeTable
        title={`Losses of ${to.space}`}
        items={losses}
        from={from.space}
        to={to.space}
        testId="migration-evaluation-losses"
      />
    </div>
  );
}

function ChangeTable({
  title,
  items,
  from,
  to,
  testId,
}: {
  title: string;
  items: SpaceChange[];
  from: string;
  to: string;
  testId: string;
}) {
  const headingId = useId();
  return (
    <div data-testid={testId}>
      <h4 id={headingId} className="section-title">
        {title} <span className="count">{items.length}</span>
      </h4>
      {items.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">Query</th>
                <th scope="col">Document</th>
                <th scope="col">Rank in {from}</th>
                <th scope="col">Rank in {to}</th>
                <th scope="col">nDCG@10</th>
              </tr>
            </thead>
            <tbody>
              {items.flatMap((c) =>
                c.documents.map((d, j) => (
                  <tr key={`${c.index}-${d.key}`} data-testid="migration-evaluation-change">
                    {j === 0 ? (
                      <th scope="row" rowSpan={c.documents.length}>
                        {c.query}
                      </th>
                    ) : null}
                    <td className="mono">{d.key}</td>
                    <td className="mono">{rank(d.fromRank)}</td>
                    <td className="mono">{rank(d.toRank)}</td>
                    {j === 0 ? (
                      <td className="mono" rowSpan={c.documents.length}>
                        {f3(c.fromNdcg)} → {f3(c.toNdcg)}
                      </td>
                    ) : null}
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
