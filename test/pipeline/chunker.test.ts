import { describe, it, expect } from "vitest";
import { createHash } from "node:crypto";
import { chunkSections, CHUNKER_VERSION, DEFAULT_CHUNKER_OPTIONS, type Chunk } from "../../lib/pipeline/chunker";
import type { Section } from "../../lib/pipeline/parse";

const ids = { tenantId: "tenant-1", documentId: "doc-1", versionNumber: 3 };
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCAB = (
  "the customer may request a refund within fourteen days of purchase provided that the product is unused and in its " +
  "original packaging travel expenses must be approved by a manager before booking and receipts are required for every " +
  "claim passwords rotate every ninety days and must contain at least twelve characters including digits service " +
  "accounts use keys stored in the vault deployments happen on tuesdays after the change advisory board has reviewed " +
  "the plan invoices are issued monthly quarterly reports summarise revenue churn and support volume"
).split(" ");

/** A realistic-looking paragraph of about `len` characters (sentences, capitals, full stops). */
function paragraph(r: () => number, len: number): string {
  const words: string[] = [];
  let n = 0;
  let sentence = 0;
  while (n < len) {
    let w = VOCAB[Math.floor(r() * VOCAB.length)];
    if (sentence === 0) w = w[0].toUpperCase() + w.slice(1);
    sentence++;
    if (sentence > 8 && r() < 0.2) {
      w += ".";
      sentence = 0;
    }
    words.push(w);
    n += w.length + 1;
  }
  const p = words.join(" ");
  return p.endsWith(".") ? p : p + ".";
}

function doc(seed: number, count = 40, lo = 300, hi = 600): string[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => paragraph(r, lo + Math.floor(r() * (hi - lo))));
}

const one = (paras: string[], path: string[] = ["Handbook"]): Section[] => [
  { headingPath: path, text: paras.join("\n\n") },
];
const freshCount = (before: Chunk[], after: Chunk[]) => {
  const old = new Set(before.map((c) => c.contentHash));
  return after.filter((c) => !old.has(c.contentHash)).length;
};

describe("chunkSections basics", () => {
  it("exports the version and defaults", () => {
    expect(CHUNKER_VERSION).toBe("md-heading-v2");
    expect(DEFAULT_CHUNKER_OPTIONS).toEqual({ targetChars: 1200, overlapChars: 150, maxChars: 2000 });
  });

  it("keeps sections apart, joins heading paths, numbers ordinals contiguously", () => {
    const sections: Section[] = [
      { headingPath: [], text: "Intro paragraph." },
      { headingPath: ["Guide", "Install"], text: "Step one.\n\nStep two." },
      { headingPath: ["Guide", "Empty"], text: "  \n\n \t " },
      { headingPath: ["Guide", "Configure"], text: "Set the key." },
    ];
    const chunks = chunkSections(sections, ids);
    expect(chunks.map((c) => [c.ordinal, c.sectionPath, c.text])).toEqual([
      [0, "", "Intro paragraph."],
      [1, "Guide > Install", "Step one.\n\nStep two."],
      [2, "Guide > Configure", "Set the key."],
    ]);
  });

  it("returns nothing for no sections or only whitespace", () => {
    expect(chunkSections([], ids)).toEqual([]);
    expect(chunkSections([{ headingPath: ["A"], text: "\n\n  \n" }], ids)).toEqual([]);
  });

  it("computes contentHash over sectionPath + text and chunkId over the documented tuple", () => {
    const [c] = chunkSections([{ headingPath: ["A", "B"], text: "Hello world." }], ids);
    expect(c.text).toBe("Hello world."); // no heading prefix in the stored/embedded text
    expect(c.contentHash).toBe(sha("A > B\nHello world."));
    expect(c.chunkId).toBe(
      sha(["tenant-1", "doc-1", "3", CHUNKER_VERSION, "0", c.contentHash].join("\u0000")).slice(0, 32),
    );
    expect(c.chunkId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("moving identical text to another section changes its contentHash", () => {
    const a = chunkSections([{ headingPath: ["A"], text: "Same text." }], ids)[0];
    const b = chunkSections([{ headingPath: ["B"], text: "Same text." }], ids)[0];
    expect(a.text).toBe(b.text);
    expect(a.contentHash).not.toBe(b.contentHash);
  });

  it("is deterministic", () => {
    const s = one(doc(1));
    const a = chunkSections(s, ids);
    const b = chunkSections(structuredClone(s), { ...ids });
    expect(b).toEqual(a);
    expect(chunkSections(s, ids, { targetChars: 500, overlapChars: 50, maxChars: 800 })).toEqual(
      chunkSections(s, ids, { targetChars: 500, overlapChars: 50, maxChars: 800 }),
    );
  });

  it("chunk ids are stable for the same version and differ across versions and tenants; hashes do not", () => {
    const s = one(doc(2));
    const v3 = chunkSections(s, ids);
    const v3again = chunkSections(s, ids);
    const v4 = chunkSections(s, { ...ids, versionNumber: 4 });
    const other = chunkSections(s, { ...ids, tenantId: "tenant-2" });
    expect(v3again.map((c) => c.chunkId)).toEqual(v3.map((c) => c.chunkId));
    expect(v4.map((c) => c.contentHash)).toEqual(v3.map((c) => c.contentHash));
    for (let i = 0; i < v3.length; i++) {
      expect(v4[i].chunkId).not.toBe(v3[i].chunkId);
      expect(other[i].chunkId).not.toBe(v3[i].chunkId);
    }
    expect(new Set(v3.map((c) => c.chunkId)).size).toBe(v3.length);
  });

  it("packs whole paragraphs up to targetChars and never splits a fitting paragraph", () => {
    const paras = doc(3, 30, 100, 400);
    const chunks = chunkSections(one(paras), ids, { overlapChars: 0 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(1200);
      for (const p of c.text.split("\n\n")) expect(paras).toContain(p);
    }
    expect(chunks.map((c) => c.text).join("\n\n")).toBe(paras.join("\n\n"));
  });

  it("adds a word-aligned overlap from the previous chunk of the same section only", () => {
    const sections: Section[] = [...one(doc(4, 12)), ...one(doc(5, 12), ["Other"])];
    const plain = chunkSections(sections, ids, { overlapChars: 0 });
    const withOv = chunkSections(sections, ids);
    expect(withOv.length).toBe(plain.length);
    for (let i = 0; i < withOv.length; i++) {
      const firstOfSection = i === 0 || plain[i - 1].sectionPath !== plain[i].sectionPath;
      if (firstOfSection) {
        expect(withOv[i].text).toBe(plain[i].text);
        continue;
      }
      const own = plain[i].text;
      expect(withOv[i].text.endsWith("\n\n" + own)).toBe(true);
      const tail = withOv[i].text.slice(0, withOv[i].text.length - own.length - 2);
      expect(tail.length).toBeGreaterThan(50);
      expect(tail.length).toBeLessThanOrEqual(150);
      expect(plain[i - 1].text.endsWith(tail)).toBe(true);
      const before = plain[i - 1].text[plain[i - 1].text.length - tail.length - 1];
      expect(before).toMatch(/\s/); // starts on a word boundary
    }
  });

  it("validates options", () => {
    expect(() => chunkSections(one(["x"]), ids, { maxChars: 0 })).toThrow(RangeError);
    expect(() => chunkSections(one(["x"]), ids, { targetChars: -5 })).toThrow(RangeError);
    expect(() => chunkSections(one(["x"]), ids, { overlapChars: Number.NaN })).toThrow(RangeError);
    // targetChars above maxChars is clamped rather than producing oversize chunks.
    const chunks = chunkSections(one(doc(6, 10)), ids, { targetChars: 5000, maxChars: 700 });
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(700);
  });
});

describe("size limits", () => {
  const optsList = [
    DEFAULT_CHUNKER_OPTIONS,
    { targetChars: 300, overlapChars: 80, maxChars: 450 },
    { targetChars: 100, overlapChars: 30, maxChars: 100 },
  ];

  it("splits over-long paragraphs at sentences, then whitespace, then hard cuts; never exceeds maxChars", () => {
    const r = rng(9);
    const longSentences = Array.from({ length: 60 }, () => paragraph(r, 60 + Math.floor(r() * 200))).join(" ");
    const noPunct = Array.from({ length: 900 }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join(" ");
    const noSpace = "x".repeat(7_000);
    const cjk = "これは日本語の文です。".repeat(400) + "句読点なし".repeat(600);
    const emoji = "😀".repeat(3_000);
    const code = Array.from({ length: 300 }, (_, i) => `  const value${i} = compute(${i});`).join("\n");
    for (const opts of optsList) {
      const sections: Section[] = [longSentences, noPunct, noSpace, cjk, emoji, code].map((t, i) => ({
        headingPath: [`S${i}`],
        text: t,
      }));
      const chunks = chunkSections(sections, ids, opts);
      for (const c of chunks) {
        expect(c.text.length).toBeLessThanOrEqual(opts.maxChars);
        expect(c.text.trim()).toBe(c.text);
        expect(c.text.length).toBeGreaterThan(0);
        expect(c.text).not.toMatch(/[\ud800-\udbff]$|^[\udc00-\udfff]/); // no broken surrogate pairs
      }
      // Nothing is lost: without overlap the chunks re-assemble every non-space character.
      const noOv = chunkSections(sections, ids, { ...opts, overlapChars: 0 });
      for (let i = 0; i < sections.length; i++) {
        const got = noOv
          .filter((c) => c.sectionPath === `S${i}`)
          .map((c) => c.text)
          .join("")
          .replace(/\s+/g, "");
        expect(got).toBe(sections[i].text.replace(/\s+/g, ""));
      }
    }
  });

  it("a long paragraph is split at sentence boundaries when it has them", () => {
    const r = rng(10);
    const p = Array.from({ length: 30 }, () => paragraph(r, 150)).join(" ");
    expect(p.length).toBeGreaterThan(2000);
    const chunks = chunkSections(one([p]), ids, { overlapChars: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(1200);
      expect(c.text.endsWith(".")).toBe(true);
    }
  });

  it("a 2 MB single paragraph is chunked within limits", () => {
    const big = "The quick brown fox jumps over the lazy dog again and again. ".repeat(34_000);
    const chunks = chunkSections(one([big]), ids);
    expect(chunks.length).toBeGreaterThan(1500);
    expect(Math.max(...chunks.map((c) => c.text.length))).toBeLessThanOrEqual(2000);
  });
});

describe("edit locality (incremental re-embedding)", () => {
  /** Replace one word near the middle of paragraph k: a typical small edit, length within ±10%. */
  function editMiddle(paras: string[], k: number, r: () => number): string[] {
    const words = paras[k].split(" ");
    const at = Math.floor(words.length / 2);
    let w = VOCAB[Math.floor(r() * VOCAB.length)];
    if (w === words[at]) w = "revised";
    words[at] = w;
    const out = paras.slice();
    out[k] = words.join(" ");
    return out;
  }
  /** Rewrite paragraph k completely with a new text of the same length ±10%. */
  function rewrite(paras: string[], k: number, r: () => number): string[] {
    const out = paras.slice();
    out[k] = paragraph(r, Math.round(paras[k].length * (0.9 + 0.2 * r())));
    return out;
  }

  it("editing one paragraph of a 40-paragraph document changes at most 2 chunk hashes", () => {
    const paras = doc(42);
    const before = chunkSections(one(paras), ids);
    const edited = rewrite(paras, 17, rng(1));
    expect(Math.abs(edited[17].length - paras[17].length)).toBeLessThanOrEqual(paras[17].length * 0.1 + 8);
    const after = chunkSections(one(edited), ids);
    expect(after.length).toBeGreaterThan(10);
    expect(freshCount(before, after)).toBeGreaterThanOrEqual(1);
    expect(freshCount(before, after)).toBeLessThanOrEqual(2);
    // Chunks before the edit are untouched, position for position.
    const firstChanged = after.findIndex((c, i) => c.contentHash !== before[i]?.contentHash);
    expect(after.slice(0, firstChanged).map((c) => c.chunkId)).toEqual(
      before.slice(0, firstChanged).map((c) => c.chunkId),
    );
    expect(after.slice(0, firstChanged).every((c) => !c.text.includes(edited[17]))).toBe(true);
  });

  it("a small edit anywhere (every paragraph of several documents) re-embeds at most 2 chunks", () => {
    let checked = 0;
    for (const seed of [11, 12, 13, 14, 15]) {
      const paras = doc(seed);
      const before = chunkSections(one(paras), ids);
      const r = rng(seed * 7);
      for (let k = 0; k < paras.length; k++) {
        const edited = editMiddle(paras, k, r);
        const after = chunkSections(one(edited), ids);
        const fresh = freshCount(before, after);
        expect(fresh, `seed ${seed} paragraph ${k}`).toBeGreaterThanOrEqual(1);
        expect(fresh, `seed ${seed} paragraph ${k}`).toBeLessThanOrEqual(2);
        // Every new chunk contains the edited paragraph or directly follows one that does.
        after.forEach((c, i) => {
          if (before.some((b) => b.contentHash === c.contentHash)) return;
          const holds = (x: Chunk | undefined) => !!x && x.text.includes(edited[k].slice(0, 40));
          expect(holds(c) || holds(after[i - 1]) || c.text.includes(edited[k].slice(-40))).toBe(true);
        });
        checked++;
      }
    }
    expect(checked).toBe(200);
  });

  it("full rewrites (same length ±10%) obey the documented bound across many documents", () => {
    let atMostTwo = 0;
    let total = 0;
    for (let seed = 100; seed < 140; seed++) {
      const paras = doc(seed);
      const before = chunkSections(one(paras), ids, { overlapChars: 150 });
      const r = rng(seed + 1000); // not the document's own seed, or a "rewrite" could reproduce it
      for (let k = 0; k < paras.length; k++) {
        const edited = rewrite(paras, k, r);
        const after = chunkSections(one(edited), ids);
        const fresh = freshCount(before, after);
        total++;
        if (fresh <= 2) {
          atMostTwo++;
          continue;
        }
        // The only documented exception: the edit made a group outgrow targetChars (one more
        // chunk than before) and the edited paragraph ended that group.
        expect(fresh, `seed ${seed} paragraph ${k}`).toBe(3);
        expect(after.length).toBe(before.length + 1);
        const oldHolder = before.find((c) => c.text.includes(paras[k]))!;
        expect(oldHolder.text.endsWith(paras[k])).toBe(true);
      }
    }
    expect(total).toBe(1600);
    expect(atMostTwo / total).toBeGreaterThan(0.99);
  });

  it("greedy-style cascades do not happen: a length change early in a section leaves later chunks alone", () => {
    // Uniform 500-char paragraphs pack two per chunk. Growing paragraph 2 past the pair limit
    // splits that pair, but every later pair stays byte-identical.
    const paras = Array.from({ length: 40 }, (_, i) => `P${String(i).padStart(2, "0")} ` + "word ".repeat(99).trim());
    const before = chunkSections(one(paras), ids);
    const edited = paras.slice();
    edited[2] = paras[2] + " extra words that push this pair over the target length".repeat(4);
    const after = chunkSections(one(edited), ids);
    expect(after.length).toBe(before.length + 1);
    expect(freshCount(before, after)).toBe(2);
    expect(after.slice(3).map((c) => c.contentHash)).toEqual(before.slice(2).map((c) => c.contentHash));
  });

  it("edits in one section never change chunks of another section", () => {
    const a = doc(21, 10);
    const b = doc(22, 10);
    const before = chunkSections([...one(a, ["A"]), ...one(b, ["B"])], ids);
    const a2 = rewrite(a, 9, rng(3));
    const after = chunkSections([...one(a2, ["A"]), ...one(b, ["B"])], ids);
    expect(after.filter((c) => c.sectionPath === "B").map((c) => c.contentHash)).toEqual(
      before.filter((c) => c.sectionPath === "B").map((c) => c.contentHash),
    );
  });

  it("appending paragraphs keeps the earlier aligned groups intact", () => {
    const paras = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}. ` + "text ".repeat(95).trim());
    const before = chunkSections(one(paras), ids);
    const after = chunkSections(one([...paras, ...doc(5, 5)]), ids);
    expect(before.length).toBe(20); // pairs
    // Paragraphs 0..31 form the aligned group [0, 32): its 16 chunks are unchanged.
    expect(after.slice(0, 16).map((c) => c.chunkId)).toEqual(before.slice(0, 16).map((c) => c.chunkId));
  });
});
