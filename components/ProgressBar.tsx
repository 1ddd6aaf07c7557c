"use client";

import { useState } from "react";
import { etaSeconds } from "@/lib/ui/eta";
import { formatDuration, percent } from "@/lib/ui/format";
import { useNow } from "@/lib/ui/hooks";

type Props = {
  done: number;
  total: number;
  label?: string;
  size?: "sm" | "lg";
  unit?: string;
  /** Seconds left as the server estimates them (null: not known yet); without it the large bar estimates its own. */
  etaSeconds?: number | null;
};

/** Determinate progress bar with its numbers in text (not only the bar); the large one also estimates time left. */
export function ProgressBar({
  done,
  total,
  label = "Indexing progress",
  size = "sm",
  unit = "chunks",
  etaSeconds,
}: Props) {
  const pct = percent(done, total);
  const text = total > 0 ? `${done} / ${total} ${unit}` : `${done} ${unit}`;
  return (
    <div className={`progress progress--${size}`}>
      <div
        className="progress__track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={total > 0 ? total : 100}
        aria-valuenow={total > 0 ? Math.min(done, total) : undefined}
        aria-valuetext={total > 0 ? `${text} (${pct}%)` : text}
      >
        <div className="progress__fill" style={{ width: `${pct}%` }} />
      </div>
      <span className="progress__text">
        {text}
        {total > 0 && size === "lg" ? <span className="progress__pct"> · {pct}%</span> : null}
        {total > 0 && size === "lg" && etaSeconds === undefined ? <TimeLeft done={done} total={total} /> : null}
        {total > 0 && size === "lg" && etaSeconds !== undefined && etaSeconds !== null && done < total ? (
          <span className="progress__eta" data-testid="progress-eta">
            {" "}
            · about {formatDuration(Math.max(1, etaSeconds))} left
          </span>
        ) : null}
      </span>
    </div>
  );
}

/** "about 40 s left", at the rate seen since this bar first appeared (parents key it by task). */
function TimeLeft({ done, total }: { done: number; total: number }) {
  const [first] = useState(() => ({ done, at: Date.now() }));
  const now = useNow(1000);
  const eta = etaSeconds(first, done, total, now);
  if (eta === null) return null;
  return (
    <span className="progress__eta" data-testid="progress-eta">
      {" "}
      · about {formatDuration(Math.max(1, Math.round(eta)))} left
    </span>
  );
}
