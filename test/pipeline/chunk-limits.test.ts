// Chunk sizes in the embedding model's tokens, and text without spaces (Chinese, Japanese).
import { describe, it, expect } from "vitest";
import { getEncoding } from "js-tiktoken";
import { chunkSections, type ChunkerOptions } from "../../lib/pipeline/chunker";
import { countTokens, tokenCounterFor } from "../../lib/pipeline/tokens";
import type { Section } from "../../lib/pipeline/parse";

const ids = { tenantId: "t", documentId: "d", versionNumber: 1 };
const cl100k = getEncoding("cl100k_base");
const o200k = getEncoding("o200k_base");
const one = (text: string): Section[] => [{ headingPath: ["A"], text }];
type Opts = Partial<ChunkerOptions> & { embeddingModel?: string; maxTokens?: number };
const chunk = (text: string, opts: Opts = {}) => chunkSections(one(text), ids, opts);

const words = (n: number) => Array.from({ length: n }, (_, i) => `term${i % 97}x${(i * 7919) % 1009}`).join(" ");

describe("token cap", () => {
  it("no chunk has more tokens than the cap, counted with the model's tokenizer", () => {
    // Short paragraphs of long, rare words: few characters per token, so a character target
    // alone would let a chunk run far past a small token cap.
    const text = Array.from({ length: 12 }, (_, i) => `P${i} ` + words(60)).join("\n\n");
    const chunks = chunk(text, { embeddingModel: "text-embedding-3-small", maxTokens: 120 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(cl100k.encode(c.text).length).toBeLessThanOrEqual(120);
    // Nothing is lost: every word of the source appears in some chunk.
    const joined = chunks.map((c) => c.text).join(" ");
    for (const w of text.split(/\s+/)) expect(joined).toContain(w);
  });

  it("the default cap is the model's input limit (8191 for text-embedding-3-*) when characters are token-dense", () => {
    // Emoji and rare symbols: up to 3 tokens a character, so 100,000 characters allowed by
    // maxChars would be ~50,000 tokens. Spaces keep each pre-token short enough to count exactly.
    const text = "\u{1F9EA}\u{1F389}\u2728\u{1F9EC} ".repeat(3_000);
    const chunks = chunk(text, {
      embeddingModel: "text-embedding-3-large",
      maxChars: 100_000,
      targetChars: 100_000,
      overlapChars: 0,
    });
    expect(chunks.length).toBeGreaterThan(2); // ~33,000 tokens
    const sizes = chunks.map((c) => cl100k.encode(c.text).length);
    for (const n of sizes) expect(n).toBeLessThanOrEqual(8191);
    expect(Math.max(...sizes)).toBeGreaterThan(6000); // packed close to the cap, not at a byte bound
    expect(chunks.map((c) => c.text.replace(/\s/g, "")).join("")).toBe(text.replace(/\s/g, ""));
  });

  it("an unbroken run of token-dense characters is cut within the cap, counted as an upper bound", () => {
    const blob = "\u{1F9EA}".repeat(6_000); // one pre-token of 24,000 bytes, ~3 tokens a character
    const chunks = chunk(blob, {
      embeddingModel: "text-embedding-3-small",
      maxChars: 100_000,
      targetChars: 100_000,
      overlapChars: 0,
    });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(countTokens("cl100k_base", c.text)).toBeLessThanOrEqual(8191);
    expect(chunks.map((c) => c.text).join("")).toBe(blob);
  });

  it("counting long runs in slices never counts fewer tokens than the encoder (random mixed text)", () => {
    let seed = 7;
    const r = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const alphabet = [
      "知",
      "识",
      "库",
      "検",
      "索",
      "の",
      "ア",
      "한",
      "글",
      "🧪",
      "é",
      "ß",
      "a",
      "Z",
      "7",
      " ",
      ".",
      "-",
      "\n",
      "👩‍👧",
    ];
    for (let k = 0; k < 80; k++) {
      const len = 20 + Math.floor(r() * 100);
      let s = "";
      for (let i = 0; i < len; i++)
        s += r() < 0.7 ? alphabet[Math.floor(r() * 10)] : alphabet[Math.floor(r() * alphabet.length)];
      for (const enc of ["cl100k_base", "o200k_base"] as const) {
        const exact = (enc === "cl100k_base" ? cl100k : o200k).encode(s).length;
        expect(countTokens(enc, s), JSON.stringify(s)).toBeGreaterThanOrEqual(exact);
      }
    }
    // Text without long runs is counted exactly.
    const prose = "Refunds are issued within fourteen days; see section 4.2 (Returns) for details.\n".repeat(50);
    expect(countTokens("cl100k_base", prose)).toBe(cl100k.encode(prose).length);
  });

  it("picks the encoding and input limit by model name", () => {
    expect(tokenCounterFor("text-embedding-3-small")).toMatchObject({ encoding: "cl100k_base", maxInputTokens: 8191 });
    expect(tokenCounterFor("openai/text-embedding-3-large")).toMatchObject({
      encoding: "cl100k_base",
      maxInputTokens: 8191,
    });
    expect(tokenCounterFor("gpt-4o")).toMatchObject({ encoding: "o200k_base" });
    expect(tokenCounterFor("indexwright-local-hash-v1")).toMatchObject({
      encoding: "utf8-bytes",
      maxInputTokens: 8191,
    });
    expect(tokenCounterFor(undefined).count("héllo")).toBe(6);
    expect(() => chunk("x", { maxTokens: 8 })).toThrow(RangeError);
  });
});

describe("text without spaces", () => {
  it("Japanese: a closing quote stays with its sentence", () => {
    const sentence = (i: number) =>
      i % 3 === 0
        ? `今日は${i}番目の会議です。`
        : `彼は「今日は${i}番目の会議で索引の設計について話します。」と言った。`;
    const text = Array.from({ length: 150 }, (_, i) => sentence(i)).join("");
    const chunks = chunk(text, { overlapChars: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(2000);
      expect(c.text).not.toMatch(/^[」』）]/); // a closing quote never opens a chunk
      expect(c.text).toMatch(/。」?$/); // chunks end at a sentence end, quote included
    }
  });

  it("Chinese without sentence punctuation is cut between words, never inside one", () => {
    const text = "新索引" + "知识库的检索质量取决于分块策略和嵌入模型".repeat(300);
    const chunks = chunk(text, { overlapChars: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    const seg = new Intl.Segmenter("und", { granularity: "word" });
    const boundaries = new Set([...seg.segment(text)].map((s) => s.index));
    let at = 0;
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(2000);
      expect(text.startsWith(c.text, at)).toBe(true);
      expect(boundaries.has(at)).toBe(true);
      at += c.text.length;
    }
    expect(at).toBe(text.length);
  });
});
