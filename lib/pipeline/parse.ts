// Document parsing: bytes + content type -> ordered, heading-aware sections.
//
// Text formats are parsed synchronously by `parseDocument`: the bytes are decoded in the charset
// the content type (or, for HTML, a <meta> in the first 1024 bytes) names — see charset.ts — and
// read by a well-kept parser:
//   * Markdown: markdown-it (CommonMark + GFM tables), see parsers/markdown.ts;
//   * HTML: htmlparser2's tokenizer with all HTML5 named entities, see parsers/html.ts;
//   * plain text: paragraphs split on blank lines, one section.
// Not every input is parsed in linear time (a Markdown bracket flood holds markdown-it for tens
// of seconds), so the worker never calls these on its own thread: `parseDocumentAsync` runs every
// format in a parse process under heap, time and output limits (parsers/sandbox.ts).
//
// Binary formats (PDF, DOCX) need asynchronous libraries; `parseDocumentAsync` reads them too:
//   * PDF: the text layer via unpdf's PDF.js build; headings from the outline, else one section
//     per page ("Page N"), see parsers/pdf.ts;
//   * DOCX: mammoth converts the document to HTML, which the HTML parser turns into sections, so
//     Word's Heading 1..6 styles become heading paths.
// Both libraries are loaded lazily on first use.

import { decodeHTML } from "entities";
import { decodeDocumentText, normaliseContentType } from "./charset";
import {
  BINARY_CONTENT_TYPES,
  DOCX_CONTENT_TYPE,
  PDF_CONTENT_TYPE,
  SUPPORTED_CONTENT_TYPES,
  TEXT_CONTENT_TYPES,
  isSupportedContentType,
} from "./parsers/content-types";
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
import { pdfDecodedBytes, zipInflatedBytes } from "./parsers/inflate";
import { DEFAULT_PARSE_LIMITS, limitExceeded, type ParseLimits } from "./parsers/limits";
import { parsePool, type SandboxParseOptions } from "./parsers/sandbox";

export { PipelineError, ParserUnavailableError, normaliseContentType, type Section };
export type { PipelineErrorCode } from "./parsers/common";

export {
  TEXT_CONTENT_TYPES,
  PDF_CONTENT_TYPE,
  DOCX_CONTENT_TYPE,
  BINARY_CONTENT_TYPES,
  SUPPORTED_CONTENT_TYPES,
  isBinaryContentType,
  type SupportedContentType,
} from "./parsers/content-types";

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
  /** PDF: pages read at most; later pages are ignored (see `onTruncated`). Default PDF_MAX_PAGES. */
  maxPages?: number;
  /** Wall-clock budget of this parse; past it the parse process is killed. Default PARSE_TIMEOUT_MS. */
  timeoutMs?: number;
  /** DOCX: refuse archives whose entries really inflate to more. Default DOCX_MAX_INFLATED_BYTES. */
  maxUnpackedBytes?: number;
  /** Abort the parse; the returned promise rejects with `signal.reason` (not a PipelineError). */
  signal?: AbortSignal;
  /** Called once when a PDF has more pages than `maxPages` and only the first ones were read. */
  onTruncated?: (info: { totalPages: number; parsedPages: number }) => void;
};

/**
 * Parse any supported document, in the parse process pool (parsers/sandbox.ts) under its heap,
 * time and output limits. Text types give exactly what `parseDocument` gives; PDF and DOCX are
 * read with their libraries. Every document problem is a `PipelineError`: UNSUPPORTED_DOCUMENT,
 * PARSE_ERROR (corrupt, truncated, encrypted, not the declared format), EMPTY_DOCUMENT (no
 * extractable text) or PARSE_LIMIT_EXCEEDED (a limit broken; the message names it). Otherwise it
 * rejects only with `options.signal`'s reason on abort, or with a plain Error when a parse process
 * or a library cannot be started.
 */
export async function parseDocumentAsync(
  contentType: string,
  content: Uint8Array,
  options: ParseOptions = {},
): Promise<Section[]> {
  options.signal?.throwIfAborted();
  if (!isSupportedContentType(contentType)) {
    throw new PipelineError(
      "UNSUPPORTED_DOCUMENT",
      `unsupported content type "${contentType}"; supported: ${SUPPORTED_CONTENT_TYPES.join(", ")}`,
    );
  }
  const limits: SandboxParseOptions["limits"] = {};
  if (options.timeoutMs !== undefined) limits.timeoutMs = options.timeoutMs;
  if (options.maxUnpackedBytes !== undefined) limits.maxInflatedBytes = options.maxUnpackedBytes;
  if (options.maxPages !== undefined)
    limits.maxPages = Number.isFinite(options.maxPages) ? Math.max(1, Math.floor(options.maxPages)) : DEFAULT_MAX_PAGES;
  return parsePool().parse(contentType, content, { signal: options.signal, onTruncated: options.onTruncated, limits });
}

export const DEFAULT_MAX_PAGES = DEFAULT_PARSE_LIMITS.maxPages;

/**
 * The parsers themselves, on the calling thread: only a parse process calls this (parsers/child.ts).
 * Before a library sees a DOCX or PDF, what it would inflate is measured (parsers/inflate.ts).
 */
export async function parseDocumentInProcess(
  contentType: string,
  content: Uint8Array,
  options: { limits: ParseLimits; onTruncated?: ParseOptions["onTruncated"] },
): Promise<Section[]> {
  const type = normaliseContentType(contentType);
  if (type !== PDF_CONTENT_TYPE && type !== DOCX_CONTENT_TYPE) return parseDocument(contentType, content);
  const { limits } = options;
  const what = type === PDF_CONTENT_TYPE ? "PDF" : "DOCX";
  try {
    if (type === PDF_CONTENT_TYPE) {
      if ((await pdfDecodedBytes(content, limits.maxDecodedBytes)) === null)
        throw limitExceeded("decoded size", limits);
      return await parsePdf(
        content,
        { maxPages: limits.maxPages, onTruncated: options.onTruncated },
        new CancellableJob(),
      );
    }
    return await parseDocx(content, limits);
  } catch (e) {
    if (e instanceof PipelineError || e instanceof ParserUnavailableError) throw e;
    throw new PipelineError("PARSE_ERROR", `could not read the ${what}: ${errorSummary(e)}`);
  }
}

// --- DOCX --------------------------------------------------------------------------------------

async function parseDocx(content: Uint8Array, limits: ParseLimits): Promise<Section[]> {
  if (content.length === 0) throw new PipelineError("PARSE_ERROR", "the DOCX file is empty (0 bytes)");
  if (!(content[0] === 0x50 && content[1] === 0x4b && content[2] === 0x03 && content[3] === 0x04)) {
    throw new PipelineError("PARSE_ERROR", "not a DOCX file: it does not start with a ZIP header");
  }
  checkZipDirectory(content, limits);
  if ((await zipInflatedBytes(content, limits.maxInflatedBytes)) === null) throw limitExceeded("inflated size", limits);
  const mammoth = await loadLibrary("mammoth", async () => {
    const mod = await import("mammoth");
    return (mod.default ?? mod) as typeof mod.default;
  });
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
  const sections = parseHtml(html);
  if (sections.length === 0) throw new PipelineError("EMPTY_DOCUMENT", "the DOCX document has no indexable text");
  return sections;
}

/**
 * Reads the ZIP central directory: a missing or damaged one (a truncated file) is PARSE_ERROR
 * with a clearer message than the ZIP library's, and entries that declare more than the inflated
 * limit are refused before anything is inflated. Declared sizes only ever refuse early: what is
 * accepted is still measured by inflating it (zipInflatedBytes). ZIP64 directories are left to it.
 */
function checkZipDirectory(z: Uint8Array, limits: ParseLimits): void {
  const max = limits.maxInflatedBytes;
  const u16 = (p: number) => z[p] | (z[p + 1] << 8);
  const u32 = (p: number) => (z[p] | (z[p + 1] << 8) | (z[p + 2] << 16)) + z[p + 3] * 0x1000000;
  let eocd = -1;
  for (let p = z.length - 22; p >= 0 && p >= z.length - 22 - 0xffff; p--) {
    if (z[p] === 0x50 && z[p + 1] === 0x4b && z[p + 2] === 0x05 && z[p + 3] === 0x06) {
      eocd = p;
      break;
    }
  }
  if (eocd < 0)
    throw new PipelineError("PARSE_ERROR", "not a complete DOCX file: the ZIP directory is missing (truncated?)");
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
      throw limitExceeded("inflated size", limits, "(by the sizes its directory declares)");
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
