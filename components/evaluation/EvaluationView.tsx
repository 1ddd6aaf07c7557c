"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useId, useMemo, useRef, useState, type ReactNode } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { documentHref, errorText } from "@/lib/ui/api";
import { roleAtLeast } from "@/lib/ui/roles";
import {
  historyPoints,
  parseSetUpload,
  setProblemsOf,
  TRIGGER_LABEL,
  useEvaluationRun,
  useEvaluationRuns,
  useEvaluationSet,
  usePutEvaluationSet,
  useStartEvaluation,
  useWhy,
  winsAndLosses,
  type QueryChange,
  type QueryResult,
  type RunMode,
  type RunSummary,
  type RunView,
  type WhyAsk,
} from "@/lib/ui/evaluation";
import { useViewer } from "../PrincipalContext";
import { ProgressBar } from "../ProgressBar";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, QueryErrorState, TableSkeleton } from "../States";
import { AXIS_TICK, ChartCard, ChartEmpty, TOOLTIP_STYLE } from "../overview/OverviewCharts";
import "./evaluation.css";

const f3 = (x: number) => x.toFixed(3);
const when = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

/**
 * A tenant's retrieval evaluation (docs/evaluation.md): the golden set (upload JSON, JSONL or CSV),
 * a run with its progress, the history of nDCG@10 / recall@10 / MRR@10, and one run's per-query
 * wins and losses against the run before it. Maintainers define, run and read; every reader sees
 * the history; the server enforces each (and hides queries searched as principals the reader may
 * not search as).
 */
export function EvaluationView({ tenant }: { tenant: string }) {
  const viewer = useViewer();
  const maintainer = roleAtLeast(viewer.role, "maintainer");
  const runs = useEvaluationRuns(tenant);
  const items = useMemo(() => runs.data ?? [], [runs.data]);
  // ?run=<id> (the Migrations page's links) opens that run; otherwise the newest finished one.
  const asked = useSearchParams().get("run");
  const [picked, setPicked] = useState<string | null>(asked && /^[1-9][0-9]{0,17}$/.test(asked) ? asked : null);
  const selected = picked ?? items.find((r) => r.state === "DONE")?.id ?? null;

  return (
    <div className="page" data-testid="evaluation-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link href="/tenants">Tenants</Link>
          </li>
          <li>
            <Link href={`/documents?tenant=${encodeURIComponent(tenant)}`}>{tenant}</Link>
          </li>
          <li aria-current="page">Evaluation</li>
        </ol>
      </nav>
      <h1 className="page__title">Evaluation of {tenant}</h1>
      <p className="muted">
        A golden set of questions and the documents a good answer names, evaluated against the index: recall@10, MRR@10
        and nDCG@10, with every miss traced to the stage that lost it.
      </p>
      {maintainer ? <SetSection tenant={tenant} /> : null}
      {maintainer ? <RunSection tenant={tenant} runs={items} /> : null}
      <HistoryChart runs={items} loading={runs.isPending} />
      {runs.isError ? <QueryErrorState title="Could not load the evaluation runs" query={runs} /> : null}
      {runs.isPending ? <TableSkeleton rows={3} columns={6} label="Loading the evaluation runs" /> : null}
      {runs.isSuccess ? <RunsTable runs={items} selected={selected} onSelect={maintainer ? setPicked : null} /> : null}
      {maintainer && selected ? <RunDetail tenant={tenant} id={selected} runs={items} /> : null}
    </div>
  );
}

function SetSection({ tenant }: { tenant: string }) {
  const set = useEvaluationSet(tenant);
  const put = usePutEvaluationSet(tenant);
  const [readError, setReadError] = useState<string | null>(null);
  const inputId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const problems = setProblemsOf(put.error);
  const upload = async (file: File) => {
    setReadError(null);
    try {
      put.mutate(parseSetUpload(await file.text(), file.name));
    } catch (err) {
      setReadError((err as Error).message);
    }
  };
  return (
    <section className="card card--padded" aria-labelledby={`${inputId}-title`} data-testid="evaluation-set">
      <h2 className="section-title" id={`${inputId}-title`}>
        Golden set
      </h2>
      {set.isPending ? (
        <p className="muted" role="status">
          <span className="spinner" aria-hidden="true" /> Loading the set…
        </p>
      ) : set.isError ? (
        <QueryErrorState title="Could not load the set" query={set} />
      ) : set.data ? (
        <p>
          Version {set.data.version}: {set.data.queries.length} queries, by {set.data.createdBy}{" "}
          <RelativeTime iso={set.data.createdAt} />
          {set.data.versions.length > 1 ? ` (${set.data.versions.length} versions)` : ""}.
        </p>
      ) : (
        <p className="muted">No set yet.</p>
      )}
      {/* A styled button in front of a hidden file input (as the publish dialog's FileDrop): the
          browser's own file button has no dark-theme colours and fails contrast there. */}
      <button
        type="button"
        className="btn btn--secondary"
        onClick={() => fileInput.current?.click()}
        disabled={put.isPending}
        aria-describedby={`${inputId}-hint`}
        data-testid="evaluation-set-upload"
      >
        Upload a new version…
      </button>{" "}
      <span id={`${inputId}-hint`} className="field__hint">
        JSON, JSONL or CSV with columns query, relevant
      </span>
      <input
        ref={fileInput}
        id={inputId}
        type="file"
        hidden
        aria-label="Upload a new version of the golden set"
        accept=".json,.jsonl,.csv,application/json,text/csv"
        disabled={put.isPending}
        data-testid="evaluation-set-input"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) void upload(file);
          e.currentTarget.value = "";
        }}
      />
      {put.isPending ? (
        <p role="status">
          <span className="spinner" aria-hidden="true" /> Saving…
        </p>
      ) : null}
      {put.isSuccess ? <p role="status">Saved as version {put.data.version}.</p> : null}
      {readError || put.isError ? (
        <div className="form-error" role="alert">
          {readError ?? errorText(put.error)}
          {problems.length ? (
            <ul>
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function RunSection({ tenant, runs }: { tenant: string; runs: RunSummary[] }) {
  const start = useStartEvaluation(tenant);
  const [mode, setMode] = useState<RunMode>("hybrid");
  const modeId = useId();
  const open = runs.find((r) => r.state === "PENDING" || r.state === "RUNNING");
  return (
    <section className="card card--padded" aria-labelledby={`${modeId}-title`} data-testid="evaluation-run">
      <h2 className="section-title" id={`${modeId}-title`}>
        Run
      </h2>
      {/* The product's select and field classes: a bare <select> keeps the browser's light colours in the dark theme. */}
      <div className="evaluation-controls">
        <div className="field field--inline">
          <label htmlFor={modeId} className="field__label">
            Search mode
          </label>
          <select
            id={modeId}
            className="select"
            value={mode}
            onChange={(e) => setMode(e.currentTarget.value as RunMode)}
          >
            <option value="hybrid">hybrid</option>
            <option value="vector">vector</option>
            <option value="text">text</option>
          </select>
        </div>
        <button
          type="button"
          className="btn btn--primary"
          disabled={start.isPending || Boolean(open)}
          onClick={() => start.mutate({ mode })}
        >
          Evaluate the active space
        </button>
      </div>
      {open ? (
        <div role="status" aria-live="polite">
          <p>
            Run #{open.id} is {open.state === "PENDING" ? "waiting for a worker" : "running"}.
          </p>
          <ProgressBar
            done={open.progress.done}
            total={open.progress.total}
            label="Evaluation progress"
            unit="queries"
          />
        </div>
      ) : null}
      {start.isError ? (
        <div className="form-error" role="alert">
          {errorText(start.error)}
        </div>
      ) : null}
    </section>
  );
}

function HistoryChart({ runs, loading }: { runs: RunSummary[]; loading: boolean }) {
  const points = historyPoints(runs);
  const title = "nDCG@10, recall@10 and MRR@10 per run";
  if (loading) return null;
  if (points.length === 0)
    return (
      <ChartEmpty title={title} testId="evaluation-history">
        No finished run yet.
      </ChartEmpty>
    );
  const last = points[points.length - 1];
  return (
    <ChartCard
      title={title}
      summary={`latest ${last.label}: nDCG@10 ${f3(last.ndcg)}, recall@10 ${f3(last.recall)}, MRR@10 ${f3(last.mrr)}`}
      testId="evaluation-history"
      wide
    >
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={["dataMin", "dataMax"]}
            tick={AXIS_TICK}
            tickFormatter={(ms: number) => (Number.isFinite(ms) ? when.format(ms) : "")}
          />
          <YAxis domain={[0, 1]} tick={AXIS_TICK} width={40} />
          <Tooltip
            {...TOOLTIP_STYLE}
            labelFormatter={(ms) => when.format(Number(ms))}
            formatter={(v) => f3(Number(v))}
          />
          <Legend />
          <Line
            type="monotone"
            dataKey="ndcg"
            name="nDCG@10"
            stroke="var(--chart-running)"
            dot
            isAnimationActive={false}
          />
          <Line
            type="monotone"
            dataKey="recall"
            name="recall@10"
            stroke="var(--chart-pending)"
            dot
            isAnimationActive={false}
          />
          <Line type="monotone" dataKey="mrr" name="MRR@10" stroke="var(--chart-drift)" dot isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

function RunsTable({
  runs,
  selected,
  onSelect,
}: {
  runs: RunSummary[];
  selected: string | null;
  onSelect: ((id: string) => void) | null;
}) {
  if (runs.length === 0)
    return <EmptyState title="No evaluation runs">Upload a set and run it to see how search answers it.</EmptyState>;
  return (
    <div className="card table-wrap">
      <table className="table" data-testid="evaluation-runs">
        <caption className="visually-hidden">Evaluation runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">State</th>
            <th scope="col">Space · mode</th>
            <th scope="col">nDCG@10</th>
            <th scope="col">recall@10</th>
            <th scope="col">MRR@10</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} aria-current={r.id === selected ? "true" : undefined}>
              <th scope="row">
                {onSelect && r.state === "DONE" ? (
                  <button type="button" className="btn btn--ghost" onClick={() => onSelect(r.id)}>
                    #{r.id}
                  </button>
                ) : (
                  `#${r.id}`
                )}
                {r.trigger === "api" ? "" : ` (${TRIGGER_LABEL[r.trigger]})`}
              </th>
              <td>{r.state === "FAILED" ? `FAILED: ${r.error ?? ""}` : r.state}</td>
              <td>
                {r.space} · {r.mode}
              </td>
              <td>{r.figures ? f3(r.figures.ndcgAt10) : "—"}</td>
              <td>{r.figures ? f3(r.figures.recallAt10) : "—"}</td>
              <td>{r.figures ? f3(r.figures.mrrAt10) : "—"}</td>
              <td>
                <RelativeTime iso={r.finishedAt ?? r.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunDetail({ tenant, id, runs }: { tenant: string; id: string; runs: RunSummary[] }) {
  const run = useEvaluationRun(tenant, id);
  const summary = runs.find((r) => r.id === id);
  // The run before it of the same set, space and mode: what its wins and losses are counted against.
  const earlierId =
    runs.find(
      (r) =>
        summary &&
        r.state === "DONE" &&
        Number(r.id) < Number(id) &&
        r.setVersion === summary.setVersion &&
        r.mode === summary.mode &&
        r.space === summary.space,
    )?.id ?? null;
  const earlier = useEvaluationRun(tenant, earlierId);
  const [why, setWhy] = useState<{ index: number; key: string } | null>(null);
  const whyQuery = run.data?.queries?.find((q): q is QueryResult => "query" in q && q.index === why?.index);
  const whyOf = why && whyQuery ? { q: whyQuery, key: why.key } : null;
  if (run.isPending) return <TableSkeleton rows={4} columns={4} label="Loading the run" />;
  if (run.isError) return <QueryErrorState title="Could not load the run" query={run} />;
  const r = run.data;
  const changes = earlier.data ? winsAndLosses(r, earlier.data) : null;
  const misses = (r.queries ?? []).flatMap((q) =>
    "query" in q ? q.relevant.filter((d) => d.diagnosis).map((d) => ({ q, d })) : [],
  );
  const hidden = (r.queries ?? []).filter((q) => !("query" in q)).length;
  const whyId = `why-${r.id}`;
  return (
    <section className="card card--padded" aria-label={`Run ${r.id}`} data-testid="evaluation-detail">
      <h2 className="section-title">
        Run #{r.id}: {r.space} · {r.mode} · topK {r.topK}
      </h2>
      {changes ? (
        <div className="grid-2">
          <ChangeList title={`Wins against run #${earlierId}`} items={changes.wins} />
          <ChangeList title={`Losses against run #${earlierId}`} items={changes.losses} />
        </div>
      ) : (
        <p className="muted">No earlier run of the same set, space and mode to compare with.</p>
      )}
      <h3 className="section-title">Misses ({misses.length})</h3>
      {hidden ? (
        <p className="muted">
          {hidden} {hidden === 1 ? "query searches" : "queries search"} as principals you may not search as: hidden.
        </p>
      ) : null}
      {misses.length === 0 ? (
        <p>Every relevant document is in the first 10.</p>
      ) : (
        <table className="table" data-testid="evaluation-misses">
          <thead>
            <tr>
              <th scope="col">Query</th>
              <th scope="col">Document</th>
              <th scope="col">Stage</th>
              <th scope="col">Why</th>
              <th scope="col">
                <span className="visually-hidden">Diagnose now</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {misses.map(({ q, d }) => {
              const open = why?.index === q.index && why.key === d.key;
              return (
                <tr key={`${q.index}-${d.key}`} data-testid="evaluation-miss" data-key={d.key}>
                  <td>{q.query}</td>
                  <td>
                    <Link href={documentHref(tenant, d.key)}>{d.key}</Link>
                  </td>
                  <td>
                    <code>{d.diagnosis!.stage}</code>
                  </td>
                  <td>{d.diagnosis!.message}</td>
                  <td>
                    <button
                      type="button"
                      className="btn btn--secondary btn--sm"
                      aria-expanded={open}
                      aria-controls={whyId}
                      onClick={() => setWhy(open ? null : { index: q.index, key: d.key })}
                      data-testid="evaluation-why"
                    >
                      {open ? "Hide" : "Why?"}
                      <span className="visually-hidden">
                        {" "}
                        {d.key} for “{q.query}”
                      </span>
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div id={whyId}>{whyOf ? <WhyPanel tenant={tenant} run={r} q={whyOf.q} docKey={whyOf.key} /> : null}</div>
    </section>
  );
}

function ChangeList({ title, items }: { title: string; items: QueryChange[] }) {
  return (
    <div>
      <h3 className="section-title">
        {title} ({items.length})
      </h3>
      {items.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul>
          {items.map((c) => (
            <li key={c.index}>
              {c.query}: nDCG@10 {f3(c.before)} → {f3(c.after)}
              {c.stage ? ` (${c.stage})` : ""}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The diagnosis of one miss asked again now (the why API, docs/evaluation.md#why-a-document-was-missed):
 * the tenant's active space, the run's mode and topK, searched as the query's principals. The
 * run's own diagnosis is what it found then, possibly in a migration's other space.
 */
function WhyPanel({ tenant, run, q, docKey }: { tenant: string; run: RunView; q: QueryResult; docKey: string }) {
  const ask: WhyAsk = { key: docKey, query: q.query, principals: q.principals, mode: run.mode, topK: run.topK };
  const why = useWhy(tenant, ask);
  const headingId = useId();
  return (
    <section className="card card--padded" aria-labelledby={headingId} data-testid="evaluation-why-panel">
      <h3 className="section-title" id={headingId}>
        Why isn&rsquo;t {docKey} in the first 10 for &ldquo;{q.query}&rdquo;?
      </h3>
      {why.isPending ? (
        <p className="muted" role="status">
          <span className="spinner" aria-hidden="true" /> Asking the index…
        </p>
      ) : why.isError ? (
        <div className="form-error" role="alert">
          {errorText(why.error)}
        </div>
      ) : (
        <div role="status" aria-live="polite">
          <p className="muted">
            Now, in the active space {why.data.space} ({why.data.mode}, topK {why.data.topK}), searched as{" "}
            {why.data.searchedAs.length ? why.data.searchedAs.join(", ") : "no principals (tenant-wide documents only)"}
            . Run #{run.id} searched {run.space}.
          </p>
          {why.data.diagnosis ? (
            <div data-testid="evaluation-why-diagnosis" data-stage={why.data.diagnosis.stage}>
              <p>
                <code>{why.data.diagnosis.stage}</code>: {why.data.diagnosis.message}
              </p>
              <dl className="facts">
                {why.data.diagnosis.state ? <Fact label="Document state">{why.data.diagnosis.state}</Fact> : null}
                {why.data.diagnosis.task ? (
                  <Fact label="Newest build">
                    task {why.data.diagnosis.task.taskId} ({why.data.diagnosis.task.type},{" "}
                    {why.data.diagnosis.task.status}
                    {why.data.diagnosis.task.errorCode ? `, ${why.data.diagnosis.task.errorCode}` : ""})
                  </Fact>
                ) : null}
                {why.data.diagnosis.acl ? (
                  <Fact label="ACL">
                    served [{why.data.diagnosis.acl.served.join(", ")}], latest [
                    {why.data.diagnosis.acl.latest.join(", ")}]
                  </Fact>
                ) : null}
                {why.data.diagnosis.closestChunk ? (
                  <Fact label="Nearest chunk">
                    {why.data.diagnosis.closestChunk.sectionPath || "(top)"}, similarity{" "}
                    {f3(why.data.diagnosis.closestChunk.similarity)}: &ldquo;{why.data.diagnosis.closestChunk.text}
                    &rdquo;
                  </Fact>
                ) : null}
                {why.data.diagnosis.rank !== undefined ? (
                  <Fact label="Rank">
                    {why.data.diagnosis.rank ??
                      `not within ${why.data.diagnosis.depth ?? "the deeper search's"} chunks`}
                    {typeof why.data.diagnosis.score === "number" ? `, score ${f3(why.data.diagnosis.score)}` : ""}
                    {typeof why.data.diagnosis.kthScore === "number"
                      ? ` (the 10th document scores ${f3(why.data.diagnosis.kthScore)})`
                      : ""}
                  </Fact>
                ) : null}
              </dl>
            </div>
          ) : (
            <p data-testid="evaluation-why-diagnosis" data-stage="FOUND">
              Found now: {docKey} ranks {why.data.rank} among the answer&rsquo;s documents.
            </p>
          )}
        </div>
      )}
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
