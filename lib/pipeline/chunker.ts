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
// Sizes: every chunk text (overlap included) is at most maxChars. Groups of several paragraphs
// are at most targetChars; a single paragraph between targetChars and maxChars is one chunk.

import { createHash } from "node:crypto";
import type { Section } from "./parse";

export const CHUNKER_VERSION = "md-heading-v1";

export type ChunkerOptions = { targetChars: number; overlapChars: number; maxChars: number };

export const DEFAULT_CHUNKER_OPTIONS: Readonly<ChunkerOptions> = Object.freeze({ targetChars: 1200, overlapChars: 150, maxChars: 2000 });

export type Chunk = { ordinal: number; sectionPath: string; text: string; contentHash: string; chunkId: string };

export type ChunkIds = { tenantId: string; documentId: string; versionNumber: number };

/** A chunk's own text before the overlap prefix is added. */
type Piece = { text: string; midParagraph: boolean };

export function chunkSections(sections: Section[], ids: ChunkIds, opts?: Partial<ChunkerOptions>): Chunk[] {
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
        if (tail) text = tail + sep + text;
      }
      prevOwn = piece.text;
      const ordinal = chunks.length;
      const contentHash = sha256Hex(`${sectionPath}\n${text}`);
      const chunkId = sha256Hex(
        [ids.tenantId, ids.documentId, String(ids.versionNumber), CHUNKER_VERSION, String(ordinal), contentHash].join("\u0000"),
      ).slice(0, 32);
      chunks.push({ ordinal, sectionPath, text, contentHash, chunkId });
    }
  }
  return chunks;
}

function resolveOptions(opts?: Partial<ChunkerOptions>): ChunkerOptions {
  const pick = (k: keyof ChunkerOptions) => {
    const v = opts?.[k];
    return v === undefined ? DEFAULT_CHUNKER_OPTIONS[k] : v;
  };
  const maxChars = Math.floor(pick("maxChars"));
  let targetChars = Math.floor(pick("targetChars"));
  let overlapChars = Math.floor(pick("overlapChars"));
  if (!Number.isFinite(maxChars) || maxChars < 1) throw new RangeError("chunker: maxChars must be a positive number");
  if (!Number.isFinite(targetChars) || targetChars < 1) throw new RangeError("chunker: targetChars must be a positive number");
  if (!Number.isFinite(overlapChars) || overlapChars < 0) throw new RangeError("chunker: overlapChars must be >= 0");
  targetChars = Math.min(targetChars, maxChars);
  overlapChars = Math.min(overlapChars, Math.max(0, targetChars - 1));
  return { targetChars, overlapChars, maxChars };
}

function sha256Hex(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("hex");
}

function isWsCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);
}

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
 * Dyadic grouping over units 0..n-1. `groupLen(a, b)` is the text length of units [a, b) joined;
 * `emitGroup` is called for groups that fit, `emitSingle` for a lone unit (which may be too big
 * for the caller to emit as is). Recursion depth is bounded by ~log2(n) (<= 53).
 */
function dyadic(n: number, groupLen: (a: number, b: number) => number, target: number, emitGroup: (a: number, b: number) => void, emitSingle: (i: number) => void): void {
  const visit = (a: number, b: number): void => {
    if (b - a === 1) return emitSingle(a);
    if (groupLen(a, b) <= target) return emitGroup(a, b);
    const m = alignedSplit(a, b);
    visit(a, m);
    visit(m, b);
  };
  if (n > 0) visit(0, n);
}

function packSection(sectionText: string, o: ChunkerOptions): Piece[] {
  const paras = splitParagraphs(sectionText);
  const prefix = new Array<number>(paras.length + 1);
  prefix[0] = 0;
  for (let i = 0; i < paras.length; i++) prefix[i + 1] = prefix[i] + paras[i].length;
  const out: Piece[] = [];
  dyadic(
    paras.length,
    (a, b) => prefix[b] - prefix[a] + 2 * (b - a - 1), // "\n\n" between paragraphs
    o.targetChars,
    (a, b) => out.push({ text: paras.slice(a, b).join("\n\n"), midParagraph: false }),
    (i) => {
      if (paras[i].length <= o.maxChars) out.push({ text: paras[i], midParagraph: false });
      else splitLongParagraph(paras[i], o, out);
    },
  );
  return out;
}

/**
 * A paragraph longer than maxChars: sentences grouped with the same dyadic scheme (pieces keep
 * the original text between them); a sentence still longer than maxChars is cut at whitespace,
 * and a run without whitespace is hard-cut at maxChars.
 */
function splitLongParagraph(p: string, o: ChunkerOptions, out: Piece[]): void {
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
    (a, b) => cuts[b] - cuts[a],
    o.targetChars,
    (a, b) => push(p.slice(cuts[a], cuts[b])),
    (i) => {
      const s = p.slice(cuts[i], cuts[i + 1]);
      if (s.trim().length <= o.maxChars) push(s);
      else for (const w of splitAtWhitespace(s, o.targetChars, o.maxChars)) push(w);
    },
  );
}

/**
 * Sentence boundaries: after ". ", "? ", "! " (the whitespace run stays with the sentence before),
 * after "。", "！", "？", and at line breaks. Returns cut offsets including 0 and p.length.
 */
function sentenceCuts(p: string): number[] {
  const cuts = [0];
  const n = p.length;
  let i = 0;
  while (i < n) {
    const c = p.charCodeAt(i);
    if (c === 46 /* . */ || c === 63 /* ? */ || c === 33 /* ! */) {
      if (i + 1 < n && isWsCode(p.charCodeAt(i + 1))) {
        let j = i + 1;
        while (j < n && isWsCode(p.charCodeAt(j))) j++;
        if (j < n) cuts.push(j);
        i = j;
        continue;
      }
    } else if (c === 0x3002 || c === 0xff01 || c === 0xff1f) {
      let j = i + 1;
      while (j < n && isWsCode(p.charCodeAt(j))) j++;
      if (j < n) cuts.push(j);
      i = j;
      continue;
    } else if (c === 10) {
      let j = i + 1;
      while (j < n && isWsCode(p.charCodeAt(j))) j++;
      if (j < n) cuts.push(j);
      i = j;
      continue;
    }
    i++;
  }
  cuts.push(n);
  return cuts;
}

/** Greedy whitespace split into pieces of <= target (<= max if a word forces it); hard cut last. */
function splitAtWhitespace(s: string, target: number, max: number): string[] {
  const out: string[] = [];
  const n = s.length;
  let start = 0;
  while (start < n) {
    while (start < n && isWsCode(s.charCodeAt(start))) start++;
    if (start >= n) break;
    if (n - start <= target) {
      out.push(s.slice(start));
      break;
    }
    let cut = -1;
    for (let k = start + target; k > start; k--) {
      if (isWsCode(s.charCodeAt(k))) {
        cut = k;
        break;
      }
    }
    if (cut < 0) {
      const lim = Math.min(n, start + max);
      for (let k = start + target + 1; k <= lim && k < n; k++) {
        if (isWsCode(s.charCodeAt(k))) {
          cut = k;
          break;
        }
      }
    }
    if (cut < 0) {
      cut = Math.min(n, start + max);
      // Never split a surrogate pair.
      const c = s.charCodeAt(cut);
      if (cut < n && c >= 0xdc00 && c <= 0xdfff && cut - 1 > start) cut--;
    }
    out.push(s.slice(start, cut));
    start = cut;
  }
  return out;
}

/** The last ~max characters of s, starting at a word boundary when there is one. */
function tailAtWordBoundary(s: string, max: number): string {
  if (s.length <= max) return s.trim();
  let start = s.length - max;
  if (!isWsCode(s.charCodeAt(start - 1))) {
    let k = start;
    while (k < s.length && !isWsCode(s.charCodeAt(k))) k++;
    if (k < s.length) start = k + 1;
    else {
      // No whitespace in the tail (e.g. CJK): a plain cut, but not inside a surrogate pair.
      const c = s.charCodeAt(start);
      if (c >= 0xdc00 && c <= 0xdfff) start++;
    }
  }
  return s.slice(start).trim();
}
