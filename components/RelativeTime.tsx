"use client";

import { formatDateTime, formatRelative } from "@/lib/ui/format";
import { useNow } from "@/lib/ui/hooks";

/** "3 minutes ago" with the absolute time in a tooltip and a machine-readable datetime. */
export function RelativeTime({ iso }: { iso: string | null | undefined }) {
  const now = useNow(15_000);
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)} suppressHydrationWarning>
      {formatRelative(iso, now)}
    </time>
  );
}
