import { describe, expect, it } from "vitest";
import {
  evaluationHref,
  historyPoints,
  latestPair,
  parseSetUpload,
  spaceWinsAndLosses,
  winsAndLosses,
  type RunSummary,
  type RunView,
} from "../../lib/ui/evaluation";

// The Evaluation page's rules: reading an uploaded set (JSON, JSONL, CSV), the history's points,
// and a run's wins and losses against an earlier one; and the Migrations page's side by side: the
// pair of runs it compares and the new space's wins and losses with each document's two ranks.

describe("an uploaded set", () => {
  it("reads JSON, JSONL and CSV into the same queries", () => {
    const q = {
      query: "refund, how long",
      relevant: ["finance.refunds", "finance.expenses"],
      grades: { "finance.refunds": 2 },
    };
    expect(parseSetUpload(JSON.stringify({ queries: [q] }), "set.json")).toEqual([q]);
    expect(parseSetUpload(`${JSON.stringify(q)}\n# note\n${JSON.stringify(q)}`, "set.jsonl")).toEqual([q, q]);
    const csv = `query,relevant,grades,principals\n"refund, how long",finance.refunds;finance.expenses,finance.refunds=2,\nbonus date,finance.bonus,,group:finance|group:hr\n`;
    expect(parseSetUpload(csv, "set.csv")).toEqual([
      q,
      { query: "bonus date", relevant: ["finance.bonus"], principals: ["group:finance", "group:hr"] },
    ]);
  });

  it("names what is wrong", () => {
    expect(() => parseSetUpload("query,keys\nx,y", "s.csv")).toThrow(/query and relevant/);
    expect(() => parseSetUpload("query,relevant,grades\nx,y,y=7", "s.csv")).toThrow(/s\.csv:2/);
    expect(() => parseSetUpload('{"query": "x"}\nnope', "s.jsonl")).toThrow(/s\.jsonl:2/);
    expect(() => parseSetUpload("  ", "s.json")).toThrow(/empty/);
  });
});

const summary = (id: string, ndcg: number, at: string): RunSummary => ({
  id,
  tenant: "t",
  state: "DONE",
  trigger: "api",
  migrationId: null,
  setVersion: 1,
  space: "local",
  mode: "hybrid",
  topK: 10,
  progress: { done: 2, total: 2 },
  figures: { recallAt10: ndcg, mrrAt10: ndcg, ndcgAt10: ndcg },
  error: null,
  requestedBy: "user:a",
  createdAt: at,
  startedAt: at,
  finishedAt: at,
});

describe("runs", () => {
  it("draws finished runs oldest first", () => {
    const pending = { ...summary("3", 0, "2026-12-02T03:00:00Z"), state: "PENDING" as const, figures: null };
    expect(
      historyPoints([
        pending,
        summary("2", 0.5, "2026-12-02T02:00:00Z"),
        summary("1", 0.9, "2026-12-02T01:00:00Z"),
      ]).map((p) => [p.id, p.ndcg]),
    ).toEqual([
      ["1", 0.9],
      ["2", 0.5],
    ]);
  });

  it("counts wins and losses per query, worst loss first, leaving hidden queries out", () => {
    const q = (index: number, ndcg: number, stage: string | null = null) => ({
      index,
      query: `q${index}`,
      principals: [],
      graded: false,
      relevant: [
        {
          key: "k",
          grade: 1,
          rank: null,
          score: null,
          diagnosis: stage ? { stage: stage as "RANKED_LOW", message: "m" } : null,
        },
      ],
      answer: [],
      recall: ndcg,
      reciprocalRank: ndcg,
      ndcg,
    });
    const run = (queries: RunView["queries"]): RunView => ({
      ...summary("2", 0, "2026-12-02T00:00:00Z"),
      settings: {},
      queries,
    });
    const { wins, losses } = winsAndLosses(
      run([q(0, 1), q(1, 0.2, "RANKED_LOW"), q(2, 0.5, "NOT_BUILT"), { index: 3, hidden: true }]),
      run([q(0, 0.5), q(1, 0.9), q(2, 0.6), q(3, 1)]),
    );
    expect(wins.map((w) => w.index)).toEqual([0]);
    expect(losses.map((l) => [l.index, l.stage])).toEqual([
      [1, "RANKED_LOW"],
      [2, "NOT_BUILT"],
    ]);
  });
});

describe("a migration's two spaces side by side", () => {
  const on = (id: string, space: string, mode: RunSummary["mode"], setVersion = 1): RunSummary => ({
    ...summary(id, 0.5, "2026-12-02T00:00:00Z"),
    space,
    mode,
    setVersion,
  });

  it("prefers the newest pair of one set version and mode, else each space's newest run, not comparable", () => {
    const runs = [
      on("9", "new", "hybrid", 2),
      { ...on("8", "old", "hybrid"), state: "RUNNING" as const, figures: null },
      on("7", "old", "vector"),
      on("6", "new", "vector"),
      on("5", "old", "hybrid"),
      on("4", "elsewhere", "hybrid"),
    ];
    expect(latestPair(runs, "old", "new")).toMatchObject({ from: { id: "7" }, to: { id: "6" }, comparable: true });
    expect(latestPair(runs.slice(0, 1).concat(runs.slice(4)), "old", "new")).toMatchObject({
      from: { id: "5" },
      to: { id: "9" },
      comparable: false,
    });
    expect(latestPair([], "old", "new")).toEqual({ from: null, to: null, comparable: false });
  });

  it("lists what the new space wins and loses per query, with each relevant document's rank in both", () => {
    const q = (index: number, ndcg: number, ranks: [string, number | null, number][]) => ({
      index,
      query: `q${index}`,
      principals: [],
      graded: true,
      relevant: ranks.map(([key, rank, grade]) => ({ key, grade, rank, score: null, diagnosis: null })),
      answer: [],
      recall: ndcg,
      reciprocalRank: ndcg,
      ndcg,
    });
    const run = (space: string, queries: RunView["queries"]): RunView => ({
      ...summary("1", 0, "2026-12-02T00:00:00Z"),
      space,
      settings: {},
      queries,
    });
    const from = run("old", [
      q(0, 1, [["a", 1, 1]]),
      q(1, 0.3, [
        ["b", 7, 2],
        ["c", null, 0],
      ]),
      q(2, 0.8, [["d", 2, 1]]),
      q(3, 0.5, [["e", 3, 1]]),
      { index: 4, hidden: true },
    ]);
    const to = run("new", [
      q(0, 0.2, [["a", null, 1]]),
      q(1, 0.9, [
        ["b", 1, 2],
        ["c", 2, 0],
      ]),
      q(2, 0.5, [["d", 5, 1]]),
      q(3, 0.5, [["e", 3, 1]]),
      q(4, 1, [["f", 1, 1]]),
    ]);
    const { wins, losses } = spaceWinsAndLosses(from, to);
    // Grade 0 ("judged, not relevant") is left out; an unchanged query is neither; a hidden one is left out.
    expect(wins).toEqual([
      { index: 1, query: "q1", fromNdcg: 0.3, toNdcg: 0.9, documents: [{ key: "b", fromRank: 7, toRank: 1 }] },
    ]);
    expect(losses.map((l) => [l.index, l.documents])).toEqual([
      [0, [{ key: "a", fromRank: 1, toRank: null }]],
      [2, [{ key: "d", fromRank: 2, toRank: 5 }]],
    ]);
    expect(spaceWinsAndLosses(from, { ...to, setVersion: 2 })).toEqual({ wins: [], losses: [] });
  });

  it("links to the Evaluation page, on one run", () => {
    expect(evaluationHref("acme")).toBe("/tenants/acme/evaluation");
    expect(evaluationHref("acme", "12")).toBe("/tenants/acme/evaluation?run=12");
  });
});
