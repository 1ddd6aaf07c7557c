// Document parsing: bytes + content type -> ordered, heading-aware sections.
//
// Text formats are parsed synchronously by `parseDocument`: the bytes are decoded in the charset
// the content type (or, for HTML, a <meta> in the first 1024 bytes) names — see charset.ts — and
// read by a well-kept parser:
//   * Markdown: markdown-it (CommonMark + GFM tables), see parsers/markdown.ts;
//   * HTML: htmlparser2's tokenizer with all HTML5 named entities, see parsers/html.ts;
//   * plain text: paragraphs split on blank lines, one section.
// Each runs in time linear in its input, so hostile input (deep nesting, unclosed tags,
// megabytes of text in one paragraph) cannot stall a worker.
//
// Binary formats (PDF, DOCX) need asynchronous libraries and go through `parseDocumentAsync`,
// which also handles the text formats by delegating to `parseDocument`:
//   * PDF: the text layer via unpdf's PDF.js build; headings from the outline, else one section
//     per page ("Page N"), see parsers/pdf.ts;
//   * DOCX: mammoth converts the document to HTML, which the HTML parser turns into sections, so
//     Word's Heading 1..6 styles become heading paths.
// Both libraries are loaded lazily on first use.

import { decodeHTML } from "entities";
import { decodeDocumentText, normaliseContentType } from "./charset";
import {
  CancellableJob,
  ParserUnavailableError,
  PipelineError,
  SectionBuilder,
  errorSummary,
  isBlank,
  loadLibrary,
  normaliseNewlines,
  type Section,
} from "./parsers/common";
import { parseHtml } from "./parsers/html";
import { parseMarkdown } from "./parsers/markdown";
import { parsePdf } from "./parsers/pdf";

export { PipelineError, ParserUnavailableError, normaliseContentType, type Section };
export type { PipelineErrorCode } from "./parsers/common";

export const TEXT_CONTENT_TYPES = ["text/markdown", "text/plain", "text/html"] as const;
export const PDF_CONTENT_TYPE = "application/pdf";
export const DOCX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
/** Formats only `parseDocumentAsync` can parse. */
export const BINARY_CONTENT_TYPES = [PDF_CONTENT_TYPE, DOCX_CONTENT_TYPE] as const;
export const SUPPORTED_CONTENT_TYPES = [...TEXT_CONTENT_TYPES, ...BINARY_CONTENT_TYPES] as const;
export type SupportedContentType = (typeof SUPPORTED_CONTENT_TYPES)[number];

/** A supported format that only `parseDocumentAsync` can parse (PDF, DOCX). */
export function isBinaryContentType(ct: string): boolean {
  return (BINARY_CONTENT_TYPES as readonly string[]).includes(normaliseContentType(ct));
}

/**
 * Parse a text document (Markdown, plain text, HTML) synchronously. Binary formats are rejected
 * with UNSUPPORTED_DOCUMENT naming `parseDocumentAsync`, which handles every supported type.
 */
export function parseDocument(contentType: string, content: Uint8Array): Section[] {
  const type = normaliseContentType(contentType);
  if ((BINARY_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw new PipelineError(
      "UNSUPPORTED_DOCUMENT",
      `"${contentType}" is a binary format that parseDocument cannot read synchronously; use parseDocumentAsync`,
    );
  }
  if (!(TEXT_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw new PipelineError(
      "UNSUPPORTED_DOCUMENT",
      `unsupported content type "${contentType}"; supported: ${SUPPORTED_CONTENT_TYPES.join(", ")}`,
    );
  }
  let text = decodeDocumentText(contentType, content);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.indexOf("\u0000") >= 0) {
    throw new PipelineError("PARSE_ERROR", "the document contains NUL bytes (binary content?)");
  }
  text = normaliseNewlines(text);

  let sections: Section[];
  if (type === "text/markdown") sections = parseMarkdown(text);
  else if (type === "text/html") sections = parseHtml(text);
  else sections = parsePlainText(text);

  if (sections.length === 0) throw new PipelineError("EMPTY_DOCUMENT", "the document has no indexable text");
  return sections;
}

// ---------------------------------------------------------------------------------------------
// Binary formats (asynchronous)

export type ParseOptions = {
  /** PDF: pages read at most; later pages are ignored (see `onTruncated`). Default 2,000. */
  maxPages?: number;
  /**
   * Wall-clock budget for one binary document; past it the parse is abandoned with PARSE_ERROR.
   * Default 120,000 ms. The libraries run on this thread, so the budget is checked whenever they
   * yield (between pages, between ZIP entries), not inside one synchronous step.
   */
  timeoutMs?: number;
  /** DOCX: refuse archives whose entries declare more than this many unpacked bytes. Default 256 MiB. */
  maxUnpackedBytes?: number;
  /** Abort the parse; the returned promise rejects with `signal.reason` (not a PipelineError). */
  signal?: AbortSignal;
  /** Called once when a PDF has more pages than `maxPages` and only the first ones were read. */
  onTruncated?: (info: { totalPages: number; parsedPages: number }) => void;
};

export const DEFAULT_MAX_PAGES = 2000;
export const DEFAULT_PARSE_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/**
 * Parse any supported document. Text types give exactly what `parseDocument` gives; PDF and DOCX
 * are read with their libraries. Every document problem is a `PipelineError`: UNSUPPORTED_DOCUMENT,
 * PARSE_ERROR (corrupt, truncated, encrypted, not the declared format, over the time budget) or
 * EMPTY_DOCUMENT (no extractable text). Otherwise it rejects only with `options.signal`'s reason
 * on abort, or with ParserUnavailableError when the PDF/DOCX library itself cannot be loaded.
 */
export async function parseDocumentAsync(contentType: string, content: Uint8Array, options: ParseOptions = {}): Promise<Section[]> {
  const type = normaliseContentType(contentType);
  if (type !== PDF_CONTENT_TYPE && type !== DOCX_CONTENT_TYPE) return parseDocument(contentType, content);
  options.signal?.throwIfAborted();
  const timeoutMs = options.timeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS;
  const what = type === PDF_CONTENT_TYPE ? "PDF" : "DOCX";
  const job = new CancellableJob();
  const cap = options.maxPages ?? DEFAULT_MAX_PAGES;
  const maxPages = Number.isFinite(cap) ? Math.max(1, Math.floor(cap)) : DEFAULT_MAX_PAGES;
  const work = type === PDF_CONTENT_TYPE ? parsePdf(content, { maxPages, onTruncated: options.onTruncated }, job) : parseDocx(content, options, job);
  return settleWithin(work, timeoutMs, options.signal, job, what);
}

/**
 * Resolve/reject with `work`, unless the time budget runs out (PARSE_ERROR) or `signal` aborts
 * (its reason) first; then the job is cancelled and `work`'s eventual outcome is swallowed, so no
 * rejection goes unhandled. Library errors that are not PipelineErrors become PARSE_ERROR.
 */
function settleWithin<T>(work: Promise<T>, timeoutMs: number, signal: AbortSignal | undefined, job: CancellableJob, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () =>
      finish(() => {
        job.cancel();
        reject(signal!.reason);
      });
    const timer = setTimeout(
      () =>
        finish(() => {
          job.cancel();
          reject(new PipelineError("PARSE_ERROR", `reading the ${what} took longer than ${timeoutMs} ms; giving up`));
        }),
      Math.min(Math.max(0, timeoutMs), 2 ** 31 - 1), // setTimeout fires at once past 2^31-1 ms
    );
    signal?.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => finish(() => resolve(v)),
      (e: unknown) =>
        finish(() =>
          reject(
            e instanceof PipelineError || e instanceof ParserUnavailableError
              ? e
              : new PipelineError("PARSE_ERROR", `could not read the ${what}: ${errorSummary(e)}`),
          ),
        ),
    );
  });
}


// --- DOCX --------------------------------------------------------------------------------------

async function parseDocx(content: Uint8Array, options: ParseOptions, job: CancellableJob): Promise<Section[]> {
  if (content.length === 0) throw new PipelineError("PARSE_ERROR", "the DOCX file is empty (0 bytes)");
  if (!(content[0] === 0x50 && content[1] === 0x4b && content[2] === 0x03 && content[3] === 0x04)) {
    throw new PipelineError("PARSE_ERROR", "not a DOCX file: it does not start with a ZIP header");
  }
  checkZipUnpackedSize(content, options.maxUnpackedBytes ?? DEFAULT_MAX_UNPACKED_BYTES);
  const mammoth = await loadLibrary("mammoth", async () => {
    const mod = await import("mammoth");
    return (mod.default ?? mod) as typeof mod.default;
  });
  job.check();
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(content.buffer, content.byteOffset, content.byteLength) },
      {
        externalFileAccess: false, // never follow links to files outside the document
        // Images carry no text: skip base64-encoding them into the HTML.
        convertImage: mammoth.images.imgElement(async () => ({ src: "" })),
      },
    );
    html = result.value;
  } catch (e) {
    throw new PipelineError("PARSE_ERROR", `could not read the DOCX file: ${errorSummary(e)}`);
  }
  job.check();
  const sections = parseHtml(html);
  if (sections.length === 0) throw new PipelineError("EMPTY_DOCUMENT", "the DOCX document has no indexable text");
  return sections;
}

/**
 * Zip-bomb guard: read the ZIP central directory and refuse the archive when its entries declare
 * more than `max` unpacked bytes in total. Also rejects a missing or damaged central directory
 * (a truncated file) with a clearer message than the ZIP library's. ZIP64 archives are left to
 * the library.
 */
function checkZipUnpackedSize(z: Uint8Array, max: number): void {
  const u16 = (p: number) => z[p] | (z[p + 1] << 8);
  const u32 = (p: number) => (z[p] | (z[p + 1] << 8) | (z[p + 2] << 16)) + z[p + 3] * 0x1000000;
  let eocd = -1;
  for (let p = z.length - 22; p >= 0 && p >= z.length - 22 - 0xffff; p--) {
    if (z[p] === 0x50 && z[p + 1] === 0x4b && z[p + 2] === 0x05 && z[p + 3] === 0x06) {
      eocd = p;
      break;
    }
  }
  if (eocd < 0) throw new PipelineError("PARSE_ERROR", "not a complete DOCX file: the ZIP directory is missing (truncated?)");
  const entries = u16(eocd + 10);
  const cdOffset = u32(eocd + 16);
  if (cdOffset === 0xffffffff || entries === 0xffff) return; // ZIP64
  let p = cdOffset;
  let total = 0;
  for (let i = 0; i < entries; i++) {
    if (p + 46 > z.length || u32(p) !== 0x02014b50) {
      throw new PipelineError("PARSE_ERROR", "not a valid DOCX file: the ZIP directory is damaged");
    }
    const size = u32(p + 24);
    total += size === 0xffffffff ? Number.POSITIVE_INFINITY : size;
    if (total > max) {
      throw new PipelineError("PARSE_ERROR", `the DOCX file would unpack to more than ${Math.floor(max / (1024 * 1024))} MiB; refusing it`);
    }
    p += 46 + u16(p + 28) + u16(p + 30) + u16(p + 32);
  }
}


// ---------------------------------------------------------------------------------------------
// Plain text

function parsePlainText(text: string): Section[] {
  const b = new SectionBuilder();
  let para: string[] = [];
  const flush = () => {
    if (para.length) b.paragraph(para.join("\n").trim());
    para = [];
  };
  for (const line of text.split("\n")) {
    if (isBlank(line)) flush();
    else para.push(line.trimEnd());
  }
  flush();
  return b.finish();
}

/** Decode HTML character references (all HTML5 named ones, numeric ones, legacy forms). */
export function decodeEntities(s: string): string {
  return decodeHTML(s);
}
