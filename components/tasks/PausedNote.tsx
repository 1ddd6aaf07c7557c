"use client";

import { RelativeTime } from "../RelativeTime";

type Paused = { target: string; by: string | null; reason: string | null; since: string | null } | null | undefined;

/** Why a waiting task is not being picked up: an operator paused its tenant or its task type. */
export function PausedNote({ paused, long = false }: { paused: Paused; long?: boolean }) {
  if (!paused) return null;
  const title = `Paused (${paused.target}) by ${paused.by ?? "an operator"}${paused.reason ? `: ${paused.reason}` : ""}`;
  return (
    <span className="pill pill--warn" data-testid="task-paused" title={title}>
      Paused
      {long ? (
        <>
          {" "}
          — {paused.target} by <span className="mono">{paused.by}</span>
          {paused.since ? (
            <>
              , <RelativeTime iso={paused.since} />
            </>
          ) : null}
          {paused.reason ? <>: “{paused.reason}”</> : null}
        </>
      ) : (
        <span className="visually-hidden">: {title}</span>
      )}
    </span>
  );
}
