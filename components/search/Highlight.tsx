import type { ReactNode } from "react";

const STOP_WORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "for",
  "in",
  "is",
  "it",
  "of",
  "on",
  "or",
  "the",
  "to",
  "with",
]);

/** The words of a query worth highlighting: letters/digits runs, minus very common short words. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const useful = words.filter((w) => !STOP_WORDS.has(w));
  const terms = useful.length > 0 ? useful : words;
  return [...new Set(terms)].sort((a, b) => b.length - a.length);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Renders `text` with every occurrence of the query's words wrapped in <mark>. */
export function Highlight({ text, query }: { text: string; query: string }) {
  const terms = queryTerms(query);
  if (terms.length === 0) return <>{text}</>;
  // A term of one or two characters (the "B" of a part code "XQ-7731-B") is marked only where it
  // stands alone, not inside every word that contains it.
  const alone = (t: string) => `(?<![\\p{L}\\p{N}])${t}(?![\\p{L}\\p{N}])`;
  const re = new RegExp(
    `(${terms.map((t) => (t.length < 3 ? alone(escapeRegExp(t)) : escapeRegExp(t))).join("|")})`,
    "giu",
  );
  const parts = text.split(re);
  const out: ReactNode[] = parts.map((part, i) =>
    // split() with one capture group puts the matches at odd indexes.
    i % 2 === 1 ? <mark key={i}>{part}</mark> : part,
  );
  return <>{out}</>;
}
