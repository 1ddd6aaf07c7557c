import Link from "next/link";
import type { Overview } from "@/lib/ui/schemas";
import { formatDuration } from "@/lib/ui/format";

const CLASS_LABEL: Record<string, { label: string; does: string }> = {
  interactive: { label: "Interactive", does: "publishes, deletes and operator actions: claimed first" },
  bulk: {
    label: "Bulk",
    does: "syncs, backfills, reconciler repairs: after interactive work, with a slot every few seconds",
  },
  migration: { label: "Migration", does: "index-space migrations: into the slots the rest leaves free" },
};

/**
 * Who is waiting in line, per priority class. The claim serves tenants in turn within a class
 * (docs/decisions/040-fair-claim.md), so the longest wait is a backlogged tenant's next task,
 * not the head of the queue: it is named here with a link to that tenant's queued tasks.
 */
export function QueueWaitsCard({ queue }: { queue: Overview["queue"] }) {
  const waiting = queue.byPriority.reduce((n, p) => n + p.tenantsWaiting, 0);
  return (
    <figure className="card card--padded chart" data-testid="queue-waits" data-empty={waiting === 0 ? "true" : "false"}>
      <figcaption className="chart__head">
        <span className="section-title">Waiting in line</span>
        <span className="chart__summary">
          {waiting === 0
            ? "Nothing is queued: every tenant's work is running or done"
            : "Tenants take turns within a class; interactive work goes before bulk"}
        </span>
      </figcaption>
      {waiting === 0 ? null : (
        <div className="table-wrap">
          <table className="table" aria-label="Queued work per priority class">
            <thead>
              <tr>
                <th scope="col">Class</th>
                <th scope="col" className="col-right">
                  Tenants waiting
                </th>
                <th scope="col" className="col-right">
                  Longest wait
                </th>
              </tr>
            </thead>
            <tbody>
              {queue.byPriority.map((p) => (
                <tr key={p.priority} data-testid={`queue-class-${p.priority}`} data-tenants={p.tenantsWaiting}>
                  <td>
                    <span className="cell-doc__key">{CLASS_LABEL[p.priority]?.label ?? p.priority}</span>
                    <span className="cell-state__waiting muted">{CLASS_LABEL[p.priority]?.does}</span>
                  </td>
                  <td className="col-right">{p.tenantsWaiting}</td>
                  <td className="col-right">
                    {p.oldestWaitSeconds === null ? "—" : formatDuration(p.oldestWaitSeconds)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {queue.longestWaits.length > 0 ? (
            <table className="table" aria-label="Tenants waiting longest">
              <thead>
                <tr>
                  <th scope="col">Waiting longest</th>
                  <th scope="col">Class</th>
                  <th scope="col" className="col-right">
                    Next task due for
                  </th>
                </tr>
              </thead>
              <tbody>
                {queue.longestWaits.map((w) => (
                  <tr key={`${w.tenant}-${w.priority}`} data-testid="queue-longest-wait">
                    <td>
                      <Link href={`/tasks?tenant=${encodeURIComponent(w.tenant)}&status=PENDING`}>{w.tenant}</Link>
                    </td>
                    <td>{CLASS_LABEL[w.priority]?.label ?? w.priority}</td>
                    <td className="col-right">{formatDuration(w.waitSeconds)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      )}
    </figure>
  );
}
