// Deterministic offline embedder (the default provider): signed feature hashing.
//
// text -> NFKC -> lower case -> words ([\p{L}\p{N}\p{M}]+) -> stop words dropped ->
//   word unigrams (weight 1.0) + adjacent word bigrams (0.5) + character trigrams of " word " (0.3)
// Each feature is hashed with FNV-1a (32-bit, over UTF-16 code units, a distinct seed per feature
// kind), finalised with the murmur3 mixer, and added with a hash-derived sign to one of `dims`
// buckets. Buckets are damped with sign(x)·log(1+|x|) so repeated words do not dominate, and the
// vector is L2-normalised (an empty text maps to the unit vector e_0, never NaN).
//
// No per-feature strings are built: hashes are computed straight from the source string.

export const LOCAL_MODEL = "indexwright-local-hash-v1";
export const LOCAL_DEFAULT_DIMS = 384;

const STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other " +
    "our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your yours yourself yourselves"
  ).split(" "),
);

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SEED_UNIGRAM = FNV_OFFSET;
const SEED_BIGRAM = (FNV_OFFSET ^ 0x5bd1e995) >>> 0;
const SEED_TRIGRAM = (FNV_OFFSET ^ 0x27d4eb2f) >>> 0;

const W_UNIGRAM = 1.0;
const W_BIGRAM = 0.5;
const W_TRIGRAM = 0.3;

/** FNV-1a over s[start, end), continuing from hash h. */
function fnv1a(h: number, s: string, start: number, end: number): number {
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

function fnv1aCode(h: number, c: number): number {
  return Math.imul(h ^ c, FNV_PRIME) >>> 0;
}

/** murmur3 fmix32: spreads FNV's weak low-entropy bits before we take bucket and sign. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function add(vec: Float64Array, h: number, weight: number): void {
  const m = fmix32(h);
  const bucket = m % vec.length;
  // The sign comes from a second, independent mix so it is uncorrelated with the bucket.
  const sign = Math.imul(m ^ 0x9e3779b9, 0x2c1b3c6d) & 0x40000000 ? -1 : 1;
  vec[bucket] += sign * weight;
}

const WORD_RE = /[\p{L}\p{N}\p{M}]+/gu;

function embedOne(text: string, dims: number): number[] {
  const vec = new Float64Array(dims);
  const s = text.normalize("NFKC").toLowerCase();
  // Word spans [start, end) in s, stop words removed.
  const starts: number[] = [];
  const ends: number[] = [];
  WORD_RE.lastIndex = 0;
  for (let m = WORD_RE.exec(s); m !== null; m = WORD_RE.exec(s)) {
    const w = m[0];
    if (STOP_WORDS.has(w)) continue;
    starts.push(m.index);
    ends.push(m.index + w.length);
  }
  for (let k = 0; k < starts.length; k++) {
    const a = starts[k];
    const b = ends[k];
    const uni = fnv1a(SEED_UNIGRAM, s, a, b);
    add(vec, uni, W_UNIGRAM);
    if (k + 1 < starts.length) {
      let h = fnv1a(SEED_BIGRAM, s, a, b);
      h = fnv1aCode(h, 0x20);
      h = fnv1a(h, s, starts[k + 1], ends[k + 1]);
      add(vec, h, W_BIGRAM);
    }
    // Character trigrams of the word padded with one space on each side.
    const len = b - a + 2;
    for (let t = 0; t + 3 <= len; t++) {
      let h = SEED_TRIGRAM;
      for (let u = t; u < t + 3; u++) {
        const c = u === 0 || u === len - 1 ? 0x20 : s.charCodeAt(a + u - 1);
        h = fnv1aCode(h, c);
      }
      add(vec, h, W_TRIGRAM);
    }
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const x = vec[i];
    const d = x === 0 ? 0 : Math.sign(x) * Math.log1p(Math.abs(x));
    vec[i] = d;
    norm += d * d;
  }
  const out = new Array<number>(dims);
  if (norm === 0 || !Number.isFinite(norm)) {
    out.fill(0);
    out[0] = 1;
    return out;
  }
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < dims; i++) out[i] = vec[i] * inv;
  return out;
}

/** Embed each text into a unit-length vector of `dims` numbers. Deterministic across runs. */
export function embedLocal(texts: string[], dims: number = LOCAL_DEFAULT_DIMS): number[][] {
  if (!Number.isInteger(dims) || dims < 1)
    throw new RangeError(`embedLocal: dims must be a positive integer, got ${dims}`);
  return texts.map((t) => embedOne(typeof t === "string" ? t : String(t ?? ""), dims));
}

/** Cosine similarity; 0 when either vector is all zeros. */
export function cosine(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new RangeError(`cosine: dimension mismatch (${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}
