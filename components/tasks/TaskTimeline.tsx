"use client";

import type { ReactNode } from "react";
import { formatDateTime, formatVersion } from "@/lib/ui/format";
import type { TaskEvent } from "@/lib/ui/api";
import { RelativeTime } from "../RelativeTime";

type Tone = "neutral" | "info" | "ok" | "warn" | "danger" | "muted";

function Glyph({ children }: { children: ReactNode }) {
  return (
    <svg
      viewBox="0 0 16 16"
      width="14"
      height="14"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.7"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

const G = {
  plus: (
    <Glyph>
      <path d="M8 3.5v9M3.5 8h9" />
    </Glyph>
  ),
  play: (
    <Glyph>
      <path d="M5 3.5l7 4.5-7 4.5z" />
    </Glyph>
  ),
  swap: (
    <Glyph>
      <path d="M3 5.5h9l-2.5-2.5M13 10.5H4l2.5 2.5" />
    </Glyph>
  ),
  x: (
    <Glyph>
      <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" />
    </Glyph>
  ),
  clock: (
    <Glyph>
      <circle cx="8" cy="8" r="5.5" />
      <path d="M8 5v3.2l2 1.3" />
    </Glyph>
  ),
  stop: (
    <Glyph>
      <rect x="4" y="4" width="8" height="8" rx="1.2" />
    </Glyph>
  ),
  check: (
    <Glyph>
      <path d="M3.5 8.5l3 3 6-7" />
    </Glyph>
  ),
  skip: (
    <Glyph>
      <path d="M4 4l5 4-5 4zM12 4v8" />
    </Glyph>
  ),
  release: (
    <Glyph>
      <path d="M8 12.5v-9M4.5 7L8 3.5 11.5 7" />
    </Glyph>
  ),
  person: (
    <Glyph>
      <circle cx="8" cy="5.5" r="2.5" />
      <path d="M3.5 13c.6-2.4 2.4-3.5 4.5-3.5s3.9 1.1 4.5 3.5" />
    </Glyph>
  ),
  flag: (
    <Glyph>
      <path d="M4 13.5V2.5M4 3h7l-1.5 2.5L11 8H4" />
    </Glyph>
  ),
  bolt: (
    <Glyph>
      <path d="M9 2L4 9h4l-1 5 5-7H8z" />
    </Glyph>
  ),
  dot: (
    <Glyph>
      <circle cx="8" cy="8" r="2.5" />
    </Glyph>
  ),
};

/** Label, tone and glyph for each event kind: the text always names the kind, colour only repeats it. */
export const EVENT_META: Record<string, { label: string; tone: Tone; icon: ReactNode }> = {
  CREATED: { label: "Created", tone: "neutral", icon: G.plus },
  CLAIMED: { label: "Claimed by a worker", tone: "info", icon: G.play },
  LEASE_TAKEN_OVER: { label: "Lease taken over (previous worker stopped renewing)", tone: "warn", icon: G.swap },
  LEASE_EXPIRED_DEAD: { label: "Lease expired with no attempts left — dead", tone: "danger", icon: G.stop },
  RENEW_LOST: { label: "Lease renewal lost", tone: "warn", icon: G.bolt },
  PROGRESS: { label: "Progress", tone: "info", icon: G.dot },
  FAILED: { label: "Attempt failed", tone: "danger", icon: G.x },
  RETRY_SCHEDULED: { label: "Retry scheduled", tone: "warn", icon: G.clock },
  DEAD: { label: "Dead — gave up", tone: "danger", icon: G.stop },
  SUPERSEDED: { label: "Superseded by a newer version", tone: "muted", icon: G.skip },
  SUCCEEDED: { label: "Succeeded", tone: "ok", icon: G.check },
  RELEASED: { label: "Released (worker shut down)", tone: "neutral", icon: G.release },
  OPERATOR_RETRY: { label: "Operator retry", tone: "info", icon: G.person },
  OPERATOR_FORCE_DONE: { label: "Force-closed by an operator (not a success)", tone: "warn", icon: G.flag },
  OPERATOR_CANCEL: { label: "Cancelled by an operator", tone: "warn", icon: G.stop },
};

function metaFor(kind: string) {
  return EVENT_META[kind] ?? { label: kind.replace(/_/g, " ").toLowerCase(), tone: "neutral" as Tone, icon: G.dot };
}

/** Turns an event's JSON detail into short human lines; unknown keys are shown as key: value. */
export function detailLines(detail: unknown): ReactNode[] {
  if (detail === null || detail === undefined) return [];
  if (typeof detail === "string") return detail ? [detail] : [];
  if (typeof detail !== "object" || Array.isArray(detail)) return [JSON.stringify(detail)];
  const d = { ...(detail as Record<string, unknown>) };
  const out: ReactNode[] = [];
  const take = (k: string) => {
    const v = d[k];
    delete d[k];
    return v;
  };
  const message = take("message");
  if (typeof message === "string" && message) out.push(<span className="timeline__message">{message}</span>);
  const reason = take("reason");
  if (typeof reason === "string" && reason) out.push(<>Reason: “{reason}”</>);
  const bulk = take("bulk");
  if (bulk === true) out.push("Part of a bulk retry.");
  const next = take("nextAttemptAt");
  if (typeof next === "string") out.push(<>Next attempt {formatDateTime(next)}</>);
  const prev = take("previousOwner");
  if (typeof prev === "string" && prev)
    out.push(
      <>
        Previous owner <span className="mono">{prev}</span>
      </>,
    );
  const by = take("byVersion");
  if (typeof by === "number") out.push(<>Replaced by {formatVersion(by)}</>);
  const chunks = take("chunksTotal");
  const reused = take("chunksReused");
  const batches = take("batchesSent");
  if (typeof chunks === "number") {
    out.push(
      `${chunks} chunk${chunks === 1 ? "" : "s"}${typeof reused === "number" ? ` (${reused} reused)` : ""}${
        typeof batches === "number" ? `, ${batches} embedding batch${batches === 1 ? "" : "es"}` : ""
      }`,
    );
  }
  const version = take("versionNumber");
  const checksum = take("checksum");
  if (typeof version === "number" || typeof checksum === "string") {
    out.push(
      <>
        {typeof version === "number" ? `Published ${formatVersion(version)}` : "Published"}
        {typeof checksum === "string" ? (
          <>
            {" "}
            · checksum <span className="mono">{checksum.replace(/^sha256:/, "").slice(0, 12)}</span>
          </>
        ) : null}
      </>,
    );
  }
  for (const [k, v] of Object.entries(d)) {
    if (v === null || v === undefined) continue;
    out.push(
      <>
        {k}: <span className="mono">{typeof v === "string" ? v : JSON.stringify(v)}</span>
      </>,
    );
  }
  return out;
}

export function TaskTimeline({ events }: { events: TaskEvent[] }) {
  if (events.length === 0) return <p className="card__empty muted">No events recorded for this task.</p>;
  return (
    <ol className="timeline" data-testid="task-timeline">
      {events.map((e) => {
        const meta = metaFor(e.kind);
        const lines = detailLines(e.detail);
        return (
          <li
            key={e.id}
            className={`timeline__item timeline__item--${meta.tone}`}
            data-testid="timeline-event"
            data-kind={e.kind}
          >
            <span className="timeline__icon">{meta.icon}</span>
            <div className="timeline__body">
              <div className="timeline__head">
                <span className="timeline__kind">{meta.label}</span>
                <code className="timeline__code">{e.kind}</code>
                <span className="timeline__time muted" title={formatDateTime(e.at)}>
                  <RelativeTime iso={e.at} /> · <span className="nowrap">{formatDateTime(e.at)}</span>
                </span>
              </div>
              {e.actor || e.leaseAttempt !== null || e.errorCode ? (
                <div className="timeline__meta">
                  {e.actor ? (
                    <span>
                      <span className="muted">by </span>
                      <span className="mono" data-testid="event-actor">
                        {e.actor}
                      </span>
                    </span>
                  ) : null}
                  {e.leaseAttempt !== null ? (
                    <span>
                      <span className="muted">attempt </span>
                      <span className="mono">{e.leaseAttempt}</span>
                    </span>
                  ) : null}
                  {e.errorCode ? <code className="code-chip code-chip--danger">{e.errorCode}</code> : null}
                </div>
              ) : null}
              {lines.length > 0 ? (
                <ul className="timeline__detail">
                  {lines.map((l, i) => (
                    <li key={i}>{l}</li>
                  ))}
                </ul>
              ) : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
