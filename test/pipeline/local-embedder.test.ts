import { describe, it, expect } from "vitest";
import { embedLocal, cosine, LOCAL_MODEL } from "../../lib/pipeline/local-embedder";

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

const DOCS = {
  refunds:
    "Customers can request a refund within 30 days of purchase. Refunds are issued to the original payment method " +
    "once the returned item has been inspected by the warehouse team. Digital goods and gift cards are not refundable, " +
    "and shipping fees are only refunded when the product arrived damaged or the wrong item was sent.",
  travel:
    "Employees must book business travel through the corporate travel portal. Economy class is required for flights " +
    "under six hours, and hotel costs are reimbursed up to the city rate published by finance. Submit expense reports " +
    "with itemised receipts within two weeks of returning, and your manager approves mileage and per diem claims.",
  passwords:
    "Passwords for production systems must be rotated every ninety days and may not reuse any of the previous twelve. " +
    "Service account credentials are stored in the secrets vault and rotated automatically by the platform team. " +
    "Enable multi-factor authentication on every administrator login, and report a suspected credential leak immediately.",
  deploys:
    "Production deployments happen on Tuesday and Thursday mornings after the change advisory board signs off. " +
    "Each release is rolled out to a canary cluster first, monitored for error rates and latency for one hour, and " +
    "then promoted region by region. Rollbacks use the previous container image tag.",
};

describe("embedLocal", () => {
  it("names its model", () => {
    expect(LOCAL_MODEL).toBe("indexwright-local-hash-v1");
  });

  it("returns one unit vector of the requested dimension per text", () => {
    const texts = Object.values(DOCS);
    for (const dims of [384, 64, 1536, 7]) {
      const out = dims === 384 ? embedLocal(texts) : embedLocal(texts, dims);
      expect(out).toHaveLength(texts.length);
      for (const v of out) {
        expect(v).toHaveLength(dims);
        expect(Array.isArray(v)).toBe(true);
        expect(v.every(Number.isFinite)).toBe(true);
        expect(norm(v)).toBeCloseTo(1, 10);
      }
    }
    expect(embedLocal([])).toEqual([]);
  });

  it("is deterministic and independent of batch composition", () => {
    const texts = Object.values(DOCS);
    const a = embedLocal(texts);
    const b = embedLocal([...texts]);
    expect(b).toEqual(a);
    expect(embedLocal([texts[2]])[0]).toEqual(a[2]);
    expect(embedLocal([texts[3], "unrelated", texts[0]])).toEqual([a[3], embedLocal(["unrelated"])[0], a[0]]);
  });

  it("returns a fixed unit vector (never NaN) for texts without words", () => {
    for (const t of ["", "   ", "!!! ??? ...", "the and of to", "\u0000\u200b"]) {
      const [v] = embedLocal([t], 16);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(v[0]).toBe(1);
      expect(norm(v)).toBe(1);
    }
  });

  it("normalises case and Unicode (NFKC) and ignores stop words", () => {
    const [a, b, c, d] = embedLocal([
      "Résumé REVIEW",
      "re\u0301sume\u0301 review",
      "ＲＥＳＵＭＥ review",
      "the résumé of the review",
    ]);
    expect(b).toEqual(a); // combining accents compose to the same letters
    expect(cosine(c, a)).toBeLessThan(0.999); // "resume" without accents is a different word...
    expect(cosine(c, a)).toBeGreaterThan(0.2); // ...but shares the "review" features
    expect(d).toEqual(a);
    const [e, f] = embedLocal(["ＰＡＳＳＷＯＲＤ rotation", "password ROTATION"]);
    expect(e).toEqual(f); // full-width letters fold under NFKC
  });

  it("rejects invalid dimensions", () => {
    expect(() => embedLocal(["x"], 0)).toThrow(RangeError);
    expect(() => embedLocal(["x"], 12.5)).toThrow(RangeError);
    expect(() => embedLocal(["x"], Number.NaN)).toThrow(RangeError);
  });

  it("ranks the chunk containing a copied sentence clearly above unrelated chunks", () => {
    const names = Object.keys(DOCS) as (keyof typeof DOCS)[];
    const docVecs = embedLocal(names.map((n) => DOCS[n]));
    const queries: [keyof typeof DOCS, string][] = [
      [
        "refunds",
        "Refunds are issued to the original payment method once the returned item has been inspected by the warehouse team.",
      ],
      ["refunds", "Digital goods and gift cards are not refundable"],
      ["travel", "Economy class is required for flights under six hours"],
      ["travel", "Submit expense reports with itemised receipts within two weeks of returning"],
      ["passwords", "Passwords for production systems must be rotated every ninety days"],
      ["passwords", "Enable multi-factor authentication on every administrator login"],
      ["deploys", "Each release is rolled out to a canary cluster first"],
    ];
    for (const [owner, q] of queries) {
      const [qv] = embedLocal([q]);
      const scores = names.map((n, i) => ({ n, s: cosine(qv, docVecs[i]) }));
      const own = scores.find((x) => x.n === owner)!.s;
      const bestOther = Math.max(...scores.filter((x) => x.n !== owner).map((x) => x.s));
      expect(own, q).toBeGreaterThan(0.3);
      expect(own - bestOther, q).toBeGreaterThan(0.15);
    }
  });

  // No stemming by design: "password rotation" vs "passwords ... rotated" shares only character
  // trigrams, which hash noise at 384 dims can outweigh. Queries that share some words work.
  it("a reworded keyword query sharing some words still prefers the right topic", () => {
    const names = Object.keys(DOCS) as (keyof typeof DOCS)[];
    const docVecs = embedLocal(names.map((n) => DOCS[n]));
    const cases: [keyof typeof DOCS, string][] = [
      ["refunds", "how do I get a refund for a damaged product"],
      ["passwords", "which credentials get rotated automatically"],
      ["travel", "hotel reimbursement and expense receipts"],
    ];
    for (const [owner, q] of cases) {
      const [qv] = embedLocal([q]);
      const ranked = names.map((n, i) => ({ n, s: cosine(qv, docVecs[i]) })).sort((x, y) => y.s - x.s);
      expect(ranked[0].n, q).toBe(owner);
    }
  });

  it("embeds a batch of 1,000 texts of 1,000 characters, one unit vector each", () => {
    const base = Object.values(DOCS).join(" ");
    const texts = Array.from({ length: 1000 }, (_, i) => (i + " " + base.slice(i % 200) + base).slice(0, 1000));
    embedLocal(texts.slice(0, 20)); // warm up the JIT
    const out = embedLocal(texts);
    expect(out).toHaveLength(1000);
    for (const v of out) expect(norm(v)).toBeCloseTo(1, 8);
  });

  it("handles a very long single token and mixed scripts", () => {
    const [a, b] = embedLocal(["x".repeat(1_000_000), "日本語のテキスト と English mixed 123 😀"]);
    expect(norm(a)).toBeCloseTo(1, 10);
    expect(norm(b)).toBeCloseTo(1, 10);
  });
});

describe("cosine", () => {
  it("is 1 for identical directions, 0 for orthogonal, -1 for opposite", () => {
    expect(cosine([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [0, 5])).toBe(0);
    expect(cosine([1, -1], [-1, 1])).toBeCloseTo(-1, 12);
  });

  it("is 0 (not NaN) when a vector is all zeros, and rejects mismatched lengths", () => {
    expect(cosine([0, 0], [1, 1])).toBe(0);
    expect(cosine([], [])).toBe(0);
    expect(() => cosine([1, 2], [1, 2, 3])).toThrow(RangeError);
  });
});
