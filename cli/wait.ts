import { unwrap, type IndexwrightClient, type Schemas } from "../lib/client";

// --wait: follow a document until the work a command queued is done. Progress goes to stderr, so
// stdout keeps only the command's result (and stays valid JSON under --json): a bar redrawn in
// place on a terminal, one line per state change otherwise (logs, CI).

export type Goal =
  /** A published version (or a reindex) is what search answers from. */
  | { kind: "searchable"; versionNumber: number; taskId: string | null }
  /** A reindex's task has rebuilt the version (search may be pinned to another by a rollback). */
  | { kind: "rebuilt"; taskId: string }
  /** The document is out of search. */
  | { kind: "deleted"; taskId: string };

/** `held`: the version is built or closed, but search stays on an older one (a rollback's pin, a force-done) and nothing is building it. */
export type WaitOutcome = "searchable" | "deleted" | "held" | "failed" | "timeout";
export type WaitResult = {
  outcome: WaitOutcome;
  state: string | null;
  lastError: { code: string; message: string } | null;
};

/** The process exit code for an outcome: 0 done, 1 failed, 2 timed out. */
export const exitCodeOf = (o: WaitOutcome) => (o === "failed" || o === "held" ? 1 : o === "timeout" ? 2 : 0);

type Doc = Schemas["DocumentDetail"];

/** Where the document stands against the goal; null while work is still under way. */
export function judge(doc: Doc, goal: Goal): WaitOutcome | null {
  const task = goal.taskId ? doc.tasks.find((t) => t.taskId === goal.taskId) : undefined;
  if (task?.status === "DEAD") return "failed";
  if (goal.kind === "deleted") return doc.state === "DELETED" ? "deleted" : null;
  if (goal.kind === "rebuilt") {
    if (task?.status === "SUCCEEDED" || task?.status === "RESOLVED")
      return doc.state === "FAILED" ? "failed" : "searchable";
    // Superseded by a newer publish, or no longer among the newest tasks: the document's state says.
    if (task && task.status !== "SUPERSEDED") return null;
    return doc.state === "SEARCHABLE" ? "searchable" : doc.state === "FAILED" ? "failed" : null;
  }
  if (task && task.status !== "SUCCEEDED" && task.status !== "SUPERSEDED" && task.status !== "RESOLVED") return null;
  if (doc.state === "SEARCHABLE" && (doc.searchVersion ?? 0) >= goal.versionNumber) return "searchable";
  if (doc.state === "FAILED") return "failed";
  // Its build is done or closed and search stays on an older version: waiting longer changes
  // nothing (an unpin or a reindex would).
  if (doc.state === "SEARCHABLE" && (doc.pinned || task?.status === "RESOLVED")) return "held";
  // Pinned to a version of another embedding model: it serves nothing, and no build moves a pin.
  if (doc.pinned && doc.searchVersionServed === false) return "held";
  return null;
}

const BAR = 24;
function bar(done: number, total: number): string {
  const filled = total > 0 ? Math.round((done / total) * BAR) : 0;
  return `[${"#".repeat(filled)}${"-".repeat(BAR - filled)}]`;
}

/** Renders progress for one document: in place on a TTY, a line per change elsewhere. */
export class ProgressReporter {
  private last = "";
  private drawn = false;
  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(doc: Doc): void {
    const p = doc.progress;
    if (this.out.isTTY) {
      // Work done (or nothing left to do) shows as a full bar, not an empty one.
      const finished = doc.state === "SEARCHABLE" || doc.state === "DELETED";
      const line =
        `${this.label} ${finished ? bar(1, 1) : bar(p?.done ?? 0, p?.total ?? 0)} ${p ? `${p.done}/${p.total} chunks` : ""} ${doc.state}`.replace(
          /\s+/g,
          " ",
        );
      this.out.write(`\r${line.padEnd(Math.max(this.last.length, line.length))}`);
      this.last = line;
      this.drawn = true;
    } else {
      const line = `${this.label}: ${doc.state}${doc.lastError ? ` (${doc.lastError.code})` : ""}`;
      if (line !== this.last) this.out.write(`${line}\n`);
      this.last = line;
    }
  }

  done(): void {
    if (this.drawn) this.out.write("\n");
    this.drawn = false;
  }
}

export async function waitForDocument(
  client: IndexwrightClient,
  target: { tenant: string; key: string },
  goal: Goal,
  opts: { timeoutMs: number; pollMs?: number; reporter?: ProgressReporter },
): Promise<WaitResult> {
  const end = Date.now() + opts.timeoutMs;
  let doc: Doc | null = null;
  try {
    for (;;) {
      doc = await unwrap(client.GET("/api/v1/tenants/{tenant}/documents/{key}", { params: { path: target } }));
      opts.reporter?.update(doc);
      const outcome = judge(doc, goal);
      if (outcome) return { outcome, state: doc.state, lastError: doc.lastError };
      if (Date.now() >= end) return { outcome: "timeout", state: doc.state, lastError: doc.lastError };
      await new Promise((r) => setTimeout(r, Math.min(opts.pollMs ?? 500, Math.max(0, end - Date.now()))));
    }
  } finally {
    opts.reporter?.done();
  }
}
