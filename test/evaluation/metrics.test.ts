import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  documentRanking,
  meanFigures,
  ndcgAtK,
  queryFigures,
  recallAtK,
  reciprocalRankAtK,
} from "../../lib/evaluation/metrics";
import { evaluationSetBody, setProblems } from "../../lib/evaluation/schemas";
import { lossesOf } from "../../lib/evaluation/runner";
import { readSetFile } from "../../cli/evaluation";

// The figures on hand-computed cases, the set's problem codes, and the CLI's set files.

describe("figures", () => {
  it("rank documents by their best chunk", () => {
    expect(
      documentRanking([
        { documentKey: "a", score: 0.9 },
        { documentKey: "b", score: 0.8 },
        { documentKey: "a", score: 0.7 },
        { documentKey: "c", score: 0.6 },
      ]),
    ).toEqual([
      { key: "a", score: 0.9 },
      { key: "b", score: 0.8 },
      { key: "c", score: 0.6 },
    ]);
  });

  it("binary: recall, reciprocal rank and nDCG by hand", () => {
    const judged = [
      { grade: 1, rank: 2 },
      { grade: 1, rank: null },
      { grade: 1, rank: 11 },
    ];
    expect(recallAtK(judged)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRankAtK(judged)).toBeCloseTo(1 / 2, 12);
    // DCG = 1/log2(3); IDCG = 1 + 1/log2(3) + 1/log2(4)
    expect(ndcgAtK(judged)).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3) + 0.5), 12);
  });

  it("graded: gains 2^g - 1, the ideal order by grade; grade 0 counts for nothing", () => {
    const judged = [
      { grade: 3, rank: 3 },
      { grade: 1, rank: 1 },
      { grade: 0, rank: 2 },
    ];
    const dcg = 7 / Math.log2(4) + 1 / Math.log2(2);
    const idcg = 7 / Math.log2(2) + 1 / Math.log2(3);
    expect(ndcgAtK(judged)).toBeCloseTo(dcg / idcg, 12);
    expect(recallAtK(judged)).toBe(1);
    expect(reciprocalRankAtK(judged)).toBe(1);
    expect(queryFigures([{ grade: 1, rank: 1 }])).toEqual({ recall: 1, reciprocalRank: 1, ndcg: 1 });
    expect(meanFigures([queryFigures([{ grade: 1, rank: 1 }]), queryFigures([{ grade: 1, rank: null }])])).toEqual({
      recallAt10: 0.5,
      mrrAt10: 0.5,
      ndcgAt10: 0.5,
    });
  });

  it("losses name the queries the candidate does worse on, with the documents it ranks worse", () => {
    const r = (ndcg: number, rank: number | null) => ({
      index: 0,
      query: "q",
      principals: [],
      graded: false,
      relevant: [{ key: "a", grade: 1, rank, score: null, diagnosis: null }],
      answer: [],
      recall: 0,
      reciprocalRank: 0,
      ndcg,
    });
    const { wins, losses } = lossesOf([r(1, 1), r(0.5, 3), r(0, null)], [r(0.5, 3), r(1, 1), r(0, null)]);
    expect(wins).toBe(1);
    expect(losses).toEqual([
      { index: 0, query: "q", active: 1, candidate: 0.5, lost: [{ key: "a", activeRank: 1, candidateRank: 3 }] },
    ]);
  });
});

describe("a set's problems", () => {
  it("has one stable code per problem", () => {
    const body = evaluationSetBody.parse({
      queries: [
        { query: "ok", relevant: ["a"], grades: { a: 2 } },
        { query: "OK", relevant: ["b"] },
        { query: "ok", relevant: ["b"], principals: ["group:x"] },
      ],
    });
    expect(setProblems(body).map((p) => p.code)).toEqual(["DUPLICATE_QUERY"]);
    expect(evaluationSetBody.safeParse({ queries: [{ query: "x", relevant: [] }] }).success).toBe(false);
    expect(evaluationSetBody.safeParse({ queries: [{ query: "x", relevant: ["a"], grades: { a: 4 } }] }).success).toBe(
      false,
    );
  });
});

describe("the CLI's set files", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "iw-evalset-"));
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  it("reads JSON, a bare array and JSONL", () => {
    const q = { query: "refund", relevant: ["policy-refund"] };
    expect(readSetFile(file("a.json", JSON.stringify({ queries: [q] })))).toEqual([q]);
    expect(readSetFile(file("b.json", JSON.stringify([q, q])))).toEqual([q, q]);
    expect(readSetFile(file("c.jsonl", `# golden set\n${JSON.stringify(q)}\n\n${JSON.stringify(q)}\n`))).toEqual([
      q,
      q,
    ]);
    expect(() => readSetFile(file("d.jsonl", `${JSON.stringify(q)}\n{nope\n`))).toThrow(/d\.jsonl:2/);
  });
});
