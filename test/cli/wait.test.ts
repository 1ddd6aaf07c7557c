import { describe, expect, it } from "vitest";
import { ProgressReporter, exitCodeOf, judge } from "../../cli/wait";
import type { Schemas } from "../../lib/client";

// When --wait is done, and how its progress reads on a terminal and in a log.

type Doc = Schemas["DocumentDetail"];
const task = (taskId: string, status: string) => ({ taskId, status }) as Doc["tasks"][number];
const doc = (
  state: string,
  searchVersion: number | null,
  tasks: Doc["tasks"] = [],
  progress: Doc["progress"] = null,
  pinned = false,
) =>
  ({
    state,
    searchVersion,
    tasks,
    progress,
    pinned,
    lastError: state === "FAILED" ? { code: "PARSE_ERROR", message: "bad" } : null,
  }) as Doc;

describe("judge", () => {
  it("a published version: searchable once search answers from it, failed when its task is DEAD or the document FAILED", () => {
    const goal = { kind: "searchable", versionNumber: 2, taskId: "7" } as const;
    expect(judge(doc("UPDATING", 1, [task("7", "RUNNING")]), goal)).toBeNull();
    // Search still at version 1: a SEARCHABLE state alone is not enough.
    expect(judge(doc("SEARCHABLE", 1, [task("7", "SUCCEEDED")]), goal)).toBeNull();
    expect(judge(doc("SEARCHABLE", 2, [task("7", "SUCCEEDED")]), goal)).toBe("searchable");
    expect(judge(doc("SEARCHABLE", 1, [task("7", "DEAD")]), goal)).toBe("failed");
    expect(judge(doc("FAILED", null, [task("7", "SUCCEEDED")]), goal)).toBe("failed");
  });

  it("held, not waited on until the timeout, when search stays on an older version by a pin or a force-done", () => {
    const goal = { kind: "searchable", versionNumber: 2, taskId: "7" } as const;
    // A build finished under a rollback's pin stays READY: nothing will move search to it.
    expect(judge(doc("SEARCHABLE", 1, [task("7", "SUCCEEDED")], null, true), goal)).toBe("held");
    expect(judge(doc("SEARCHABLE", 1, [task("7", "RESOLVED")]), goal)).toBe("held");
    // Still being built under the pin: wait.
    expect(judge(doc("UPDATING", 1, [task("7", "RUNNING")], null, true), goal)).toBeNull();
    // Pinned to a version of another embedding model: NOT_INDEXED, and no build will move the pin.
    const otherModel = (state: string, pinned: boolean) =>
      ({ ...doc(state, 1, [task("7", "SUCCEEDED")], null, pinned), searchVersionServed: false }) as Doc;
    expect(judge(otherModel("NOT_INDEXED", true), goal)).toBe("held");
    // Not pinned: the reconciler's rebuild will serve it, so wait.
    expect(judge(otherModel("NOT_INDEXED", false), goal)).toBeNull();
    expect(exitCodeOf("held")).toBe(1);
  });

  it("a reindex is done when its task is, even with search pinned to another version; a delete when the document is DELETED", () => {
    expect(judge(doc("SEARCHABLE", 1, [task("9", "RUNNING")]), { kind: "rebuilt", taskId: "9" })).toBeNull();
    expect(judge(doc("SEARCHABLE", 1, [task("9", "SUCCEEDED")]), { kind: "rebuilt", taskId: "9" })).toBe("searchable");
    expect(judge(doc("SEARCHABLE", 1, [task("9", "DEAD")]), { kind: "rebuilt", taskId: "9" })).toBe("failed");
    expect(judge(doc("SEARCHABLE", 1, [task("3", "PENDING")]), { kind: "deleted", taskId: "3" })).toBeNull();
    expect(judge(doc("DELETED", null, [task("3", "SUCCEEDED")]), { kind: "deleted", taskId: "3" })).toBe("deleted");
  });

  it("exit codes: 0 done, 1 failed, 2 timed out", () => {
    expect([exitCodeOf("searchable"), exitCodeOf("deleted"), exitCodeOf("failed"), exitCodeOf("timeout")]).toEqual([
      0, 0, 1, 2,
    ]);
  });
});

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return {
    s: { isTTY, write: (c: string) => chunks.push(c) } as unknown as NodeJS.WriteStream,
    text: () => chunks.join(""),
  };
}

describe("ProgressReporter", () => {
  it("redraws one line in place on a terminal, with a bar of chunks done", () => {
    const { s, text } = stream(true);
    const r = new ProgressReporter("acme/guide", s);
    r.update(doc("INDEXING", null, [], { done: 0, total: 8 }));
    r.update(doc("INDEXING", null, [], { done: 4, total: 8 }));
    r.update(doc("SEARCHABLE", 1));
    r.done();
    const frames = text().split("\r").filter(Boolean);
    expect(frames[1].trimEnd()).toBe(`acme/guide [${"#".repeat(12)}${"-".repeat(12)}] 4/8 chunks INDEXING`);
    expect(text().endsWith("\n")).toBe(true);
    expect(text().split("\n")).toHaveLength(2);
  });

  it("writes a line per state change elsewhere, not per poll", () => {
    const { s, text } = stream(false);
    const r = new ProgressReporter("acme/guide", s);
    for (const d of [doc("INDEXING", null), doc("INDEXING", null, [], { done: 1, total: 2 }), doc("FAILED", null)])
      r.update(d);
    r.done();
    expect(text()).toBe("acme/guide: INDEXING\nacme/guide: FAILED (PARSE_ERROR)\n");
  });
});
