// Counting text in the embedding model's tokens, so that no chunk is longer than the model takes.
//
// * OpenAI models: the model's own BPE encoding from js-tiktoken (pure JavaScript, ranks shipped
//   in the package, nothing fetched): text-embedding-3-small/-large and text-embedding-ada-002
//   use cl100k_base; any other model name js-tiktoken knows gets the encoding it names (gpt-4o
//   and later: o200k_base). A provider prefix ("openai/text-embedding-3-small") is ignored.
// * Any other model (the built-in local embedder, an unknown OpenAI-compatible model): the UTF-8
//   byte count. Byte-level BPE tokenizers (the GPT family and most current embedding models)
//   never produce more tokens than bytes, so this errs long — it never lets a chunk past the cap.
//
// Input limits: 8191 tokens for OpenAI's embedding models; the same for models without a known
// limit (the local embedder has none, so there the cap only bounds chunk size).
//
// Ranks are loaded on first count and cached per process (cl100k_base ~1 MB, o200k_base ~2.3 MB
// of JavaScript). Counting is only needed when the byte count is over the cap; the default chunk
// sizes (2,000 characters, at most 6,000 UTF-8 bytes) never get there.
//
// js-tiktoken's merge step is quadratic in the length of one pre-token (the encoding's regex
// split), with a large constant: a run of 2,000 Chinese characters — one pre-token — takes ~20 s.
// So a pre-token longer than SLICE code units is counted in slices of at most SLICE, plus one
// token for every cut. Cutting a run can only stop merges across the cut, and the extra token per
// cut covers the rare case where a merge across it would have saved one; the count is then an
// upper bound, and exact for text without such runs (prose, code).

import { createRequire } from "node:module";
import { Tiktoken, getEncodingNameForModel, type TiktokenBPE, type TiktokenModel } from "js-tiktoken/lite";

export const DEFAULT_MAX_INPUT_TOKENS = 8191;

/** Input limits of the embedding models whose limit is known. */
const MODEL_INPUT_TOKENS: Record<string, number> = {
  "text-embedding-3-small": 8191,
  "text-embedding-3-large": 8191,
  "text-embedding-ada-002": 8191,
};

export type TokenCounter = {
  /** The encoding counted with ("cl100k_base", "o200k_base", …), or "utf8-bytes". */
  readonly encoding: string;
  /** What the model accepts in one input. */
  readonly maxInputTokens: number;
  /** Tokens in `text` (exact for a BPE encoding; the byte count otherwise). */
  count(text: string): number;
  /** count(text) <= limit, without counting when the byte count already settles it. */
  fits(text: string, limit: number): boolean;
};

const requireRanks = createRequire(import.meta.url);
type Encoder = { tiktoken: Tiktoken; pretoken: RegExp };
const encoders = new Map<string, Encoder>();

/** Longest pre-token counted whole (see the file comment). */
export const SLICE = 12;

function encoder(name: string): Encoder {
  let e = encoders.get(name);
  if (!e) {
    const loaded = requireRanks(`js-tiktoken/ranks/${name}`) as TiktokenBPE | { default: TiktokenBPE };
    const ranks = "default" in loaded ? loaded.default : loaded;
    e = { tiktoken: new Tiktoken(ranks), pretoken: new RegExp(ranks.pat_str, "gu") };
    encoders.set(name, e);
  }
  return e;
}

/** Tokens of `text` in encoding `name`, long pre-tokens counted in slices (an upper bound). */
export function countTokens(name: string, text: string): number {
  const { tiktoken, pretoken } = encoder(name);
  // Special-token names in a document ("<|endoftext|>") are plain text here, as they are to the
  // embeddings endpoint; js-tiktoken would otherwise throw on them.
  const encode = (s: string) => (s ? tiktoken.encode(s, [], []).length : 0);
  let total = 0;
  let from = 0; // start of the text not yet counted
  pretoken.lastIndex = 0;
  for (let m = pretoken.exec(text); m; m = pretoken.exec(text)) {
    if (m[0].length === 0) {
      pretoken.lastIndex++;
      continue;
    }
    if (m[0].length <= SLICE) continue;
    total += encode(text.slice(from, m.index));
    let cuts = 0;
    for (let i = m.index; i < m.index + m[0].length;) {
      let j = Math.min(m.index + m[0].length, i + SLICE);
      const c = text.charCodeAt(j);
      if (j < m.index + m[0].length && c >= 0xdc00 && c <= 0xdfff) j--; // not inside a surrogate pair
      total += encode(text.slice(i, j));
      cuts++;
      i = j;
    }
    total += cuts; // one per slice: the cuts inside the run and the ones at its edges
    from = m.index + m[0].length;
  }
  return total + encode(text.slice(from));
}

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The BPE encoding js-tiktoken knows for a model name, or null. */
export function encodingForModel(model: string): string | null {
  const name = model.trim();
  for (const candidate of [name, name.slice(name.lastIndexOf("/") + 1)]) {
    try {
      return getEncodingNameForModel(candidate as TiktokenModel);
    } catch {
      // not a model js-tiktoken knows
    }
  }
  return null;
}

const BYTES: TokenCounter = {
  encoding: "utf8-bytes",
  maxInputTokens: DEFAULT_MAX_INPUT_TOKENS,
  count: utf8Length,
  fits: (text, limit) => utf8Length(text) <= limit,
};

const counters = new Map<string, TokenCounter>();

/** The token counter for an embedding model (see the file comment for the rules). */
export function tokenCounterFor(model: string | undefined): TokenCounter {
  const key = model ?? "";
  const cached = counters.get(key);
  if (cached) return cached;
  const encoding = model ? encodingForModel(model) : null;
  const bare = key.slice(key.lastIndexOf("/") + 1).trim();
  const maxInputTokens = MODEL_INPUT_TOKENS[bare] ?? DEFAULT_MAX_INPUT_TOKENS;
  let counter: TokenCounter;
  if (!encoding) counter = maxInputTokens === BYTES.maxInputTokens ? BYTES : { ...BYTES, maxInputTokens };
  else {
    const count = (text: string) => countTokens(encoding, text);
    let last = { text: "", limit: -1, fits: false };
    counter = {
      encoding,
      maxInputTokens,
      count,
      // Every BPE token is at least one byte, so a text of at most `limit` bytes fits uncounted;
      // a text of more than 8 × limit code units is taken as too long without counting it.
      // The chunker asks about the same text twice when a paragraph is one sentence: the last
      // answer is kept.
      fits: (text, limit) => {
        if (text.length > 8 * limit) return false;
        if (utf8Length(text) <= limit) return true;
        if (text === last.text && limit === last.limit) return last.fits;
        const fits = count(text) <= limit;
        last = { text, limit, fits };
        return fits;
      },
    };
  }
  counters.set(key, counter);
  return counter;
}
