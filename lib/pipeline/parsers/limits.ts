// The limits a parse runs under (settings PARSE_* in lib/config.ts, docs/configuration.md) and
// the one error that reports breaking one. A file over a limit is over it on every attempt, so
// PARSE_LIMIT_EXCEEDED is not retryable: the task is DEAD at its first attempt, and the message
// names the limit and what the publisher can do.

import { PipelineError, type Section } from "./common";

export type ParseLimits = {
  /** Parse processes in the pool (each parses one document at a time). */
  processes: number;
  /** V8 old-generation heap of one parse process, MiB. */
  heapMb: number;
  /** Wall-clock budget of one parse, ms; past it the process is killed. */
  timeoutMs: number;
  /** Extracted text, UTF-8 bytes summed over every section. */
  maxOutputBytes: number;
  /** Sections of one document. */
  maxSections: number;
  /** DOCX: bytes the archive's entries really inflate to, all entries together. */
  maxInflatedBytes: number;
  /** PDF: bytes the FlateDecode streams really decode to, all streams together. */
  maxDecodedBytes: number;
  /** PDF: pages read at most; later pages are ignored (not a failure). */
  maxPages: number;
};

/**
 * The messages between the pool (sandbox.ts) and a parse process (child.ts): a document and the
 * limits it is parsed under in, its sections (or the error as code + message) out. Here, not in
 * child.ts, so that the pool does not import the process's side (which imports ../parse).
 */
export type ParseRequest = { id: number; contentType: string; content: Uint8Array; limits: ParseLimits };
export type ParseReply =
  | { id: number; kind: "truncated"; totalPages: number; parsedPages: number }
  | { id: number; kind: "ok"; sections: Section[] }
  | { id: number; kind: "error"; name: string; code?: string; message: string };

export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = Object.freeze({
  processes: 2,
  heapMb: 512,
  timeoutMs: 10_000,
  maxOutputBytes: 16 * 1024 * 1024,
  maxSections: 50_000,
  maxInflatedBytes: 128 * 1024 * 1024,
  maxDecodedBytes: 256 * 1024 * 1024,
  maxPages: 2000,
});

export type LimitKind = "heap" | "time" | "output" | "sections" | "inflated size" | "decoded size";

const MiB = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;

/** The one-line advice per limit; the document page shows it under the message (lib/ui/format.ts). */
export const LIMIT_HINTS: Readonly<Record<LimitKind, string>> = Object.freeze({
  heap: "split the document into smaller ones, or raise PARSE_MAX_HEAP_MB",
  time: "split the document into smaller ones (or simplify its markup), or raise PARSE_TIMEOUT_MS",
  output: "split the document into smaller ones, or raise PARSE_MAX_OUTPUT_BYTES",
  sections: "split the document into smaller ones, or raise PARSE_MAX_SECTIONS",
  "inflated size": "save it again without embedded files, split it, or raise DOCX_MAX_INFLATED_BYTES",
  "decoded size": "save it again (print to PDF) or split it, or raise PDF_MAX_DECODED_BYTES",
});

/** `PARSE_LIMIT_EXCEEDED` naming the limit (its setting and value) and what to do. */
export function limitExceeded(
  kind: LimitKind,
  limits: Pick<
    ParseLimits,
    "heapMb" | "timeoutMs" | "maxOutputBytes" | "maxSections" | "maxInflatedBytes" | "maxDecodedBytes"
  >,
  detail = "",
): PipelineError {
  const what: Record<LimitKind, string> = {
    heap: `parsing needed more than the parse process's ${limits.heapMb} MiB heap (PARSE_MAX_HEAP_MB)`,
    time: `parsing took longer than ${limits.timeoutMs} ms (PARSE_TIMEOUT_MS)`,
    output: `the extracted text is larger than ${MiB(limits.maxOutputBytes)} (PARSE_MAX_OUTPUT_BYTES)`,
    sections: `the document has more than ${limits.maxSections} sections (PARSE_MAX_SECTIONS)`,
    "inflated size": `the DOCX archive inflates to more than ${MiB(limits.maxInflatedBytes)} (DOCX_MAX_INFLATED_BYTES)`,
    "decoded size": `the PDF's compressed streams decode to more than ${MiB(limits.maxDecodedBytes)} (PDF_MAX_DECODED_BYTES)`,
  };
  return new PipelineError(
    "PARSE_LIMIT_EXCEEDED",
    `limit ${kind}: ${what[kind]}${detail ? ` ${detail}` : ""}; retrying will not help: ${LIMIT_HINTS[kind]}`,
  );
}

/** The limit a PARSE_LIMIT_EXCEEDED message names, with its advice; null for any other message. */
export function parseLimitOf(message: string | null | undefined): { kind: LimitKind; hint: string } | null {
  const m = /^limit ([a-z ]+?): /.exec(message ?? "");
  const kind = m?.[1] as LimitKind | undefined;
  return kind && Object.prototype.hasOwnProperty.call(LIMIT_HINTS, kind) ? { kind, hint: LIMIT_HINTS[kind] } : null;
}
