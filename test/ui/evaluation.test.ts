import { describe, expect, it } from "vitest";
import { historyPoints, parseSetUpload, winsAndLosses, type RunSummary, type RunView } from "../../lib/ui/evaluation";

// The Evaluation page's rules: reading an uploaded set (JSON, JSONL, CSV), the history's points,
// and a run's wins and losses against an earlier one.

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
