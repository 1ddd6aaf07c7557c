import { percent } from "@/lib/ui/format";

type Props = { done: number; total: number; label?: string; size?: "sm" | "lg"; unit?: string };

/** Determinate progress bar with its numbers in text (not only the bar). */
export function ProgressBar({ done, total, label = "Indexing progress", size = "sm", unit = "chunks" }: Props) {
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
      </span>
    </div>
  );
}
