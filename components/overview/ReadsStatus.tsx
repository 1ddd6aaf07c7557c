import type { Overview } from "@/lib/ui/schemas";
import { formatDuration } from "@/lib/ui/format";

/**
 * Where the dashboard's reads come from, shown only when a read replica is configured: how far
 * behind it is, and why reads are on the primary when they are (too far behind, not answering).
 * Your own actions are always read back (read-your-writes), whatever this says.
 */
export function ReadsStatus({ reads }: { reads: Overview["reads"] }) {
  if (!reads?.configured) return null;
  const onReplica = reads.servingReads === "replica";
  const lag =
    reads.lagSeconds === null
      ? "lag unknown"
      : reads.lagSeconds < 0.05
        ? "up to date"
        : `${formatDuration(reads.lagSeconds)} behind`;
  return (
    <span
      className={`reads-status${onReplica ? "" : " reads-status--primary"}`}
      data-testid="reads-status"
      data-source={reads.servingReads}
      title={
        onReplica
          ? `Reads and search come from the read replica, at most ${reads.maxLagSeconds} s behind; after your own changes you read them back at once.`
          : (reads.reason ?? "Reads come from the primary.")
      }
    >
      {onReplica ? `Replica · ${lag}` : `Primary · replica ${lag}`}
    </span>
  );
}
