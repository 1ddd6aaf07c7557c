"use client";

import Link from "next/link";
import type { ReconcilerSummary } from "@/lib/ui/schemas";
import { RelativeTime } from "../RelativeTime";

type KindInfo = { label: string; does: string; href?: string };

/** What each finding means and what the reconciler does about it, in the order a pass runs them. */
const KINDS: Record<string, KindInfo> = {
  EXPIRED_LEASE: {
    label: "Expired leases",
    does: "Running past its lease and not taken over; made DEAD when no attempts are left",
    href: "/tasks?status=RUNNING",
  },
  UNSWITCHED_READY: {
    label: "Builds never switched",
    does: "Complete build of the newest version; search moved to it",
  },
  MISSING_TASK: { label: "Versions without a task", does: "Newest version has no task; an INDEX task is queued" },
  STALE_DRIFT: {
    label: "Stale drift",
    does: "Behind for too long with nothing in flight; indexing is queued again",
    href: "/documents",
  },
  STALE_MODEL: {
    label: "Old embedding model",
    does: "Serving index from another model or dimension; a REINDEX is queued",
  },
  ORPHANED_CHUNKS: {
    label: "Orphaned chunks",
    does: "Chunks of deleted documents that clean-up would miss; handed to it",
  },
  DEAD_TASKS: {
    label: "Dead tasks",
    does: "Gave up on the newest version; an operator decides",
    href: "/tasks?status=DEAD",
  },
};

function Count({ n, tone, title }: { n: number; tone: "warn" | "ok" | "neutral"; title?: string }) {
  if (n === 0) return <span className="muted">0</span>;
  return (
    <span className={`pill pill--${tone}`} title={title}>
      {n}
    </span>
  );
}

/** The newest reconciler pass on the Overview: when it ran and what it found and repaired, per kind. */
export function ReconcilerCard({ r }: { r: ReconcilerSummary }) {
  if (!r.lastPass)
    return (
      <figure className="card card--padded chart" data-testid="reconciler" data-empty="true">
        <figcaption className="chart__head">
          <span className="section-title">Reconciler</span>
        </figcaption>
        <div className="chart__empty">
          No pass yet. Workers run one every 30 seconds or so (RECONCILE_INTERVAL_SECONDS), starting one interval after
          they start, and list here what they found and repaired.
        </div>
      </figure>
    );

  const found = r.kinds.reduce((a, k) => a + k.found, 0);
  const repaired = r.kinds.reduce((a, k) => a + k.repaired, 0);
  const skipped = r.kinds.reduce((a, k) => a + k.skippedCap, 0);
  const rows = r.kinds.filter((k) => k.kind in KINDS);
  return (
    <figure className="card card--padded chart" data-testid="reconciler" data-empty="false">
      <figcaption className="chart__head">
        <span className="section-title">Reconciler</span>
        <span className="chart__summary" data-testid="reconciler-summary">
          Last pass <RelativeTime iso={r.lastPass.finishedAt ?? r.lastPass.startedAt} />
          {r.lastPass.actor ? ` by ${r.lastPass.actor}` : ""} ·{" "}
          {found === 0
            ? "nothing found"
            : `${found} finding${found === 1 ? "" : "s"}, ${repaired} repaired${skipped > 0 ? `, ${skipped} left for the next pass` : ""}`}
        </span>
      </figcaption>
      <div className="table-wrap">
        <table className="table" aria-label="Findings of the newest reconciler pass">
          <thead>
            <tr>
              <th scope="col">Finding</th>
              <th scope="col" className="col-right">
                Found
              </th>
              <th scope="col" className="col-right">
                Repaired
              </th>
              <th
                scope="col"
                className="col-right"
                title="Repairable, but over the per-pass cap: the next pass continues"
              >
                Over cap
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((k) => {
              const info = KINDS[k.kind];
              return (
                <tr key={k.kind} data-testid={`reconciler-${k.kind}`} data-found={k.found}>
                  <td>
                    <span className="cell-doc__key">
                      {info.href && k.found > 0 ? <Link href={info.href}>{info.label}</Link> : info.label}
                    </span>
                    <span className="cell-state__waiting muted">{info.does}</span>
                  </td>
                  <td className="col-right">
                    <Count n={k.found} tone="warn" />
                  </td>
                  <td className="col-right">
                    <Count n={k.repaired} tone="ok" />
                  </td>
                  <td className="col-right">
                    <Count n={k.skippedCap} tone="neutral" title="Left for the next pass (cap per pass)" />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
