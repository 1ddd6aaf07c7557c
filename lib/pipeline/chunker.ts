// Heading-aware, edit-local chunking of parsed sections.
//
// PACKING SCHEME — aligned binary ("dyadic") grouping of paragraphs
// -----------------------------------------------------------------
// Within one section the paragraphs are numbered 0..n-1. Candidate groups are the aligned
// intervals of an implicit binary tree over those indices: [0,n) splits at the largest multiple
// of the largest power of two strictly inside it (e.g. [0,40) -> [0,32) + [32,40);
// [32,40) -> [32,36) + [36,40); [0,32) -> [0,16) + [16,32) ...). A group becomes one chunk when
// its text fits in `targetChars` (or it is a single paragraph of at most `maxChars`); otherwise
// it is split at that fixed point and each half is considered on its own.
//
// Why not greedy left-to-right packing? With greedy packing a few characters more or less in
// one paragraph can move the next chunk boundary, which moves the one after it, and so on to the
// end of the section: one edit re-embeds the rest of the document. Here the candidate groups
// depend only on paragraph *indices*, and whether a group is split depends only on its own
// length, so a change inside paragraph k can only affect the groups that contain k.
//
// STABILITY GUARANTEE (in-place edit of one paragraph k, paragraph count unchanged):
//   * Chunks of other sections, and every chunk that neither contains paragraph k nor
//     directly follows one that does, are byte-identical (same contentHash).
//   * If the length change |d| is smaller than every other paragraph of the section (+2), at
//     most one group can flip between "fits" and "split". Then the number of NEW content hashes
//     (chunks needing a new embedding) is:
//       - no flip:                      <= 2 (the chunk holding k, and the next chunk, whose
//                                            overlap prefix repeats the end of k's chunk);
//       - a group now fits (merge):     <= 2 (the merged chunk and the next chunk);
//       - a group must split (grow):    <= 2, or 3 only when paragraph k is the LAST paragraph
//                                            of that group and its last ~overlapChars changed
//                                            (both halves are new, plus the next chunk).
//     Any size-bounded chunker needs that last case: a chunk that outgrows the limit must split.
//   * A paragraph longer than maxChars is split internally with the same scheme over its
//     sentences, so an edit inside such a paragraph stays within that paragraph's pieces
//     (+ the following chunk), as long as its sentence count is unchanged.
//   * Appending paragraphs at the end of a section keeps every earlier aligned group intact.
//     Inserting or deleting a paragraph in the middle shifts the indices after it, so the rest
//     of THAT section is re-grouped (chunks before the insertion and in other sections are
//     unchanged).
//
// Sizes: every chunk text (overlap included) is at most maxChars characters AND at most the token
// cap in the embedding model's tokens (tokens.ts: js-tiktoken for OpenAI models, the UTF-8 byte
// count otherwise; the cap is the model's input limit, 8191 for text-embedding-3-*, or a lower
// `maxTokens`). Groups of several paragraphs are at most targetChars; a single paragraph between
// targetChars and maxChars is one chunk. A group that is short enough in characters but over the
// token cap splits like one over targetChars, so the cap keeps the stability guarantee above: it
// is decided per group, from that group's own text. The overlap prefix is dropped from a chunk
// it would push over the cap. With the default sizes the cap never binds for OpenAI's models (2,000
// characters are at most 6,000 bytes, and a BPE token is at least a byte); it is what keeps larger
// configured sizes, or a model with a smaller limit, from being truncated or refused by the provider.
//
// Segmentation: sentences and words come from Intl.Segmenter (ICU, root locale, so the result
// does not depend on the machine's language settings): Chinese and Japanese text without spaces
// splits after 。！？ with closing quotes kept in the sentence, and a sentence too long for one
// chunk is cut between words (ICU's dictionary segmentation for Han, Kana, Thai …), then between
// grapheme clusters, never inside a character. A different ICU (a Node upgrade) may move such
// cuts; that changes content hashes and costs re-embedding, never correctness.

import { createHash } from "node:crypto";
import type { Section } from "./parse";
import { tokenCounterFor, type TokenCounter } from "./tokens";

/**
 * A reuse key (embeddings are reused only under the same chunker version): bump it whenever the
 * same sections can chunk differently. v2: ICU sentence/word segmentation, the token cap, and the
 * markdown-it / htmlparser2 parsers feeding it.
 */
export const CHUNKER_VERSION = "md-heading-v2";

export type ChunkerOptions = { targetChars: number; overlapChars: number; maxChars: number };

export const DEFAULT_CHUNKER_OPTIONS: Readonly<ChunkerOptions> = Object.freeze({
  targetChars: 1200,
  overlapChars: 150,
  maxChars: 2000,
});

export type ChunkTokenOptions = {
  /** The embedding model the chunks are for: chooses the tokenizer and the input limit. */
  embeddingModel?: string;
  /** A cap below the model's input limit (at least 16). */
  maxTokens?: number;
};

export const MIN_MAX_TOKENS = 16;

export type Chunk = { ordinal: number; sectionPath: string; text: string; contentHash: string; chunkId: string };

export type ChunkIds = { tenantId: string; documentId: string; versionNumber: number };

/** A chunk's own text before the overlap prefix is added. */
type Piece = { text: string; midParagraph: boolean };

type Limits = ChunkerOptions & { tokenCap: number; counter: TokenCounter };

export function chunkSections(
  sections: Section[],
  ids: ChunkIds,
  opts?: Partial<ChunkerOptions> & ChunkTokenOptions,
): Chunk[] {
  const o = resolveOptions(opts);
  const chunks: Chunk[] = [];
  for (const section of sections) {
    const sectionPath = section.headingPath.join(" > ");
    const pieces = packSection(section.text, o);
    let prevOwn: string | null = null;
    for (const piece of pieces) {
      let text = piece.text;
      if (prevOwn !== null && o.overlapChars > 0) {
        const sep = piece.midParagraph ? " " : "\n\n";
        const room = Math.min(o.overlapChars, o.maxChars - text.length - sep.length);
        const tail = room > 0 ? tailAtWordBoundary(prevOwn, room) : "";
        if (tail) {
          const withOverlap = tail + sep + text;
          if (fitsTokens(withOverlap, o)) text = withOverlap;
        }
      }
      prevOwn = piece.text;
      const ordinal = chunks.length;
      const contentHash = sha256Hex(`${sectionPath}\n${text}`);
      const chunkId = sha256Hex(
        [ids.tenantId, ids.documentId, String(ids.versionNumber), CHUNKER_VERSION, String(ordinal), contentHash].join(
          "\u0000",
        ),
      ).slice(0, 32);
      chunks.push({ ordinal, sectionPath, text, contentHash, chunkId });
    }
  }
  return chunks;
}

function resolveOptions(opts?: Partial<ChunkerOptions> & ChunkTokenOptions): Limits {
  const pick = (k: keyof ChunkerOptions) => {
    const v = opts?.[k];
    return v === undefined ? DEFAULT_CHUNKER_OPTIONS[k] : v;
  };
  const maxChars = Math.floor(pick("maxChars"));
  let targetChars = Math.floor(pick("targetChars"));
  let overlapChars = Math.floor(pick("overlapChars"));
  if (!Number.isFinite(maxChars) || maxChars < 1) throw new RangeError("chunker: maxChars must be a positive number");
  if (!Number.isFinite(targetChars) || targetChars < 1)
    throw new RangeError("chunker: targetChars must be a positive number");
  if (!Number.isFinite(overlapChars) || overlapChars < 0) throw new RangeError("chunker: overlapChars must be >= 0");
  targetChars = Math.min(targetChars, maxChars);
  overlapChars = Math.min(overlapChars, Math.max(0, targetChars - 1));
  const counter = tokenCounterFor(opts?.embeddingModel);
  let tokenCap = counter.maxInputTokens;
  if (opts?.maxTokens !== undefined) {
    const m = Math.floor(opts.maxTokens);
    if (!Number.isFinite(m) || m < MIN_MAX_TOKENS)
      throw new RangeError(`chunker: maxTokens must be at least ${MIN_MAX_TOKENS}`);
    tokenCap = Math.min(tokenCap, m);
  }
  return { targetChars, overlapChars, maxChars, tokenCap, counter };
}

function fitsTokens(text: string, o: Limits): boolean {
  return o.counter.fits(text, o.tokenCap);
}

function sha256Hex(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("hex");
}

function isWsCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);
}

// The root locale: segmentation must not depend on the machine's language settings.
const sentences = new Intl.Segmenter("und", { granularity: "sentence" });
const words = new Intl.Segmenter("und", { granularity: "word" });
const graphemes = new Intl.Segmenter("und", { granularity: "grapheme" });

/** Paragraphs: split on blank lines, trimmed, empty ones dropped. */
function splitParagraphs(text: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") {
      if (cur.length) out.push(cur.join("\n").trim());
      cur = [];
    } else cur.push(line);
  }
  if (cur.length) out.push(cur.join("\n").trim());
  return out.filter((p) => p.length > 0);
}

/** The m in (a, b) with the most trailing zero bits: the fixed split point of an aligned group. */
function alignedSplit(a: number, b: number): number {
  for (let p = 2 ** Math.floor(Math.log2(b - 1)); p >= 1; p /= 2) {
    const m = Math.ceil((a + 1) / p) * p;
    if (m < b) return m;
  }
  return a + 1; // unreachable for b - a >= 2
}

/**
 * Dyadic grouping over units 0..n-1. `fits(a, b)` says whether units [a, b) make one chunk;
 * `emitGroup` is called for groups that fit, `emitSingle` for a lone unit (which may be too big
 * for the caller to emit as is). Recursion depth is bounded by ~log2(n) (<= 53).
 */
function dyadic(
  n: number,
  fits: (a: number, b: number) => boolean,
  emitGroup: (a: number, b: number) => void,
  emitSingle: (i: number) => void,
): void {
  const visit = (a: number, b: number): void => {
    if (b - a === 1) return emitSingle(a);
    if (fits(a, b)) return emitGroup(a, b);
    const m = alignedSplit(a, b);
    visit(a, m);
    visit(m, b);
  };
  if (n > 0) visit(0, n);
}

function packSection(sectionText: string, o: Limits): Piece[] {
  const paras = splitParagraphs(sectionText);
  const prefix = new Array<number>(paras.length + 1);
  prefix[0] = 0;
  for (let i = 0; i < paras.length; i++) prefix[i + 1] = prefix[i] + paras[i].length;
  const out: Piece[] = [];
  const join = (a: number, b: number) => paras.slice(a, b).join("\n\n");
  dyadic(
    paras.length,
    // "\n\n" between paragraphs; the token count only for groups already short enough.
    (a, b) => prefix[b] - prefix[a] + 2 * (b - a - 1) <= o.targetChars && fitsTokens(join(a, b), o),
    (a, b) => out.push({ text: join(a, b), midParagraph: false }),
    (i) => {
      if (paras[i].length <= o.maxChars && fitsTokens(paras[i], o)) out.push({ text: paras[i], midParagraph: false });
      else splitLongParagraph(paras[i], o, out);
    },
  );
  return out;
}

/**
 * A paragraph longer than maxChars (or the token cap): sentences grouped with the same dyadic
 * scheme (pieces keep the original text between them); a sentence still too long is cut
 * between words, and a word too long for a chunk between grapheme clusters.
 */
function splitLongParagraph(p: string, o: Limits, out: Piece[]): void {
  const cuts = sentenceCuts(p); // [0, ..., p.length]
  const units = cuts.length - 1;
  let first = true;
  const push = (text: string) => {
    const t = text.trim();
    if (!t) return;
    out.push({ text: t, midParagraph: !first });
    first = false;
  };
  dyadic(
    units,
    (a, b) => cuts[b] - cuts[a] <= o.targetChars && fitsTokens(p.slice(cuts[a], cuts[b]).trim(), o),
    (a, b) => push(p.slice(cuts[a], cuts[b])),
    (i) => {
      const s = p.slice(cuts[i], cuts[i + 1]);
      const t = s.trim();
      if (t.length <= o.maxChars && fitsTokens(t, o)) push(s);
      else for (const w of splitSentence(t, o)) push(w);
    },
  );
}

// V8's segment iterator slows down with the length of the text it walks (a 500 KB paragraph
// takes seconds; ICU's dictionary word breaking for Han text costs ~5 µs a character), so the
// segmenters only ever see a window of text: sentences are found window by window, words and
// graphemes only around the place a cut is wanted. Boundaries need little context (UAX #29 looks
// a few characters ahead; a dictionary word is short), and the windows reach past the point
// that is decided, so the result is the segmenter's.
const SENTENCE_WINDOW = 2048;
const SENTENCE_MARGIN = 256;
const LOCAL_BEFORE = 128;
const LOCAL_AFTER = 32;

/** Sentence boundaries (ICU): cut offsets including 0 and p.length. */
function sentenceCuts(p: string): number[] {
  const cuts = [0];
  let base = 0;
  for (;;) {
    const end = Math.min(p.length, base + SENTENCE_WINDOW);
    const last = end === p.length;
    let next = -1;
    for (const seg of sentences.segment(p.slice(base, end))) {
      if (seg.index === 0) continue;
      const at = base + seg.index;
      if (!last && at > end - SENTENCE_MARGIN) break; // decided without enough text after it
      cuts.push(at);
      next = at;
    }
    if (last) break;
    base = next > 0 ? next : safeIndex(p, end - SENTENCE_MARGIN);
  }
  cuts.push(p.length);
  return cuts;
}

/** `i`, moved back off the second half of a surrogate pair. */
function safeIndex(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return i > 0 && c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
}

/** The last boundary of `seg` in (lo, at], from a window of text around `at`; null if none. */
function boundaryBefore(seg: Intl.Segmenter, s: string, lo: number, at: number): number | null {
  const from = Math.max(lo, at - LOCAL_BEFORE);
  let best: number | null = null;
  for (const x of seg.segment(s.slice(from, Math.min(s.length, at + LOCAL_AFTER)))) {
    const b = from + x.index;
    if (b > at) break;
    if (b > lo && (x.index > 0 || from === lo)) best = b;
  }
  return best;
}

/** The first boundary of `seg` in [at, hi] (hi < s.length), from a window around them; null if none. */
function boundaryFrom(seg: Intl.Segmenter, s: string, at: number, hi: number): number | null {
  const from = Math.max(0, at - LOCAL_BEFORE);
  for (const x of seg.segment(s.slice(from, Math.min(s.length, hi + LOCAL_AFTER)))) {
    const b = from + x.index;
    if (b > hi) break;
    if (b >= at && (x.index > 0 || from === 0)) return b;
  }
  return null;
}

/**
 * The largest end e in (start, limit] with s[start, e) within the token cap. The UTF-8 byte count
 * bounds any BPE count, so the longest prefix within the cap in bytes is taken uncounted; only
 * the stretch past it is searched with real counts.
 */
function longestFit(s: string, start: number, limit: number, o: Limits): number {
  let e = start;
  let bytes = 0;
  while (e < limit) {
    const c = s.charCodeAt(e);
    const pair = c >= 0xd800 && c <= 0xdbff && e + 1 < limit;
    const b = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + b > o.tokenCap) break;
    bytes += b;
    e += pair ? 2 : 1;
  }
  if (e >= limit) return limit;
  // Gallop from the byte bound, then bisect: the counts stay near the answer's length.
  let lo = Math.max(e, start + 1); // fits (the cap is at least 16 tokens, a code point at most 4 bytes)
  let hi = limit;
  for (let step = Math.max(16, lo - start); ; step *= 2) {
    const probe = Math.min(limit, lo + step);
    if (!fitsTokens(s.slice(start, probe), o)) {
      hi = probe - 1;
      break;
    }
    lo = probe;
    if (probe === limit) return limit;
  }
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fitsTokens(s.slice(start, mid), o)) lo = mid;
    else hi = mid - 1;
  }
  return safeIndex(s, lo) > start ? safeIndex(s, lo) : lo;
}

/**
 * One sentence too long for a chunk, cut greedily: each piece as long as targetChars and the
 * token cap allow, ending at the last word boundary (ICU) before that point. A word longer than
 * that may run to maxChars if it ends there; otherwise it is cut between grapheme clusters, and
 * a single cluster bigger than a chunk (hundreds of combining marks) between code points.
 */
function splitSentence(s: string, o: Limits): string[] {
  const out: string[] = [];
  const n = s.length;
  let start = 0;
  while (start < n) {
    while (start < n && isWsCode(s.charCodeAt(start))) start++;
    if (start >= n) break;
    const end = longestFit(s, start, Math.min(n, start + o.targetChars), o);
    if (end >= n) {
      out.push(s.slice(start));
      break;
    }
    let cut = boundaryBefore(words, s, start, end);
    if (cut === null) {
      const far = longestFit(s, start, Math.min(n, start + o.maxChars), o);
      cut =
        (far > end ? boundaryFrom(words, s, end, far) : null) ??
        boundaryBefore(graphemes, s, start, far) ??
        Math.max(start + 1, safeIndex(s, far));
    }
    out.push(s.slice(start, cut));
    start = cut;
  }
  return out.map((x) => x.trim()).filter((x) => x.length > 0);
}

const CLAUSE_MARKS = new Set([..."。！？；，、．：…"].map((c) => c.charCodeAt(0)));

/** Just past the first CJK sentence or clause mark in s[from, to), or null. */
function firstClauseEnd(s: string, from: number, to: number): number | null {
  for (let i = from; i < Math.min(to, s.length - 1); i++) if (CLAUSE_MARKS.has(s.charCodeAt(i))) return i + 1;
  return null;
}

/** The first boundary of `seg` at or after `at` that is not the end of `s`, or null. */
function boundaryAtOrAfter(seg: Intl.Segmenter, s: string, at: number): number | null {
  return s.length - 1 >= at ? boundaryFrom(seg, s, at, s.length - 1) : null;
}

/**
 * The last ~max characters of s, starting at a word boundary: after whitespace when the tail
 * has any, else (Chinese, Japanese) at an ICU word boundary, else at a grapheme boundary.
 */
function tailAtWordBoundary(s: string, max: number): string {
  if (s.length <= max) return s.trim();
  let start = s.length - max;
  if (!isWsCode(s.charCodeAt(start - 1))) {
    let k = start;
    while (k < s.length && !isWsCode(s.charCodeAt(k))) k++;
    if (k < s.length) start = k + 1;
    else {
      // No spaces (Chinese, Japanese): after the first clause mark in the tail's first half,
      // else at a word boundary.
      const clause = firstClauseEnd(s, start, start + Math.floor(max / 2));
      start = clause ?? boundaryAtOrAfter(words, s, start) ?? boundaryAtOrAfter(graphemes, s, start) ?? start;
    }
  }
  return s.slice(start).trim();
}
