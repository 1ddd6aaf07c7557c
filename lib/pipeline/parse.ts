// Document parsing: bytes + content type -> ordered, heading-aware sections.
//
// Text formats (Markdown, plain text, HTML) are parsed synchronously by `parseDocument`, pure and
// dependency-free. Every scanner here walks its input left to right with indexOf / charCodeAt and
// bounded look-ahead; no regular expression can backtrack catastrophically and no recursion
// depends on input nesting, so hostile input (deep nesting, unclosed tags, megabytes of text in
// one paragraph) costs linear time.
//
// Binary formats (PDF, DOCX) need asynchronous libraries and go through `parseDocumentAsync`,
// which also handles the text formats by delegating to `parseDocument`:
//   * PDF: the text layer only, via unpdf's bundled serverless PDF.js build (no canvas, no native
//     code); one section per page with heading path ["Page N"], paragraphs split on large vertical
//     gaps. Scanned pages without a text layer yield nothing (no OCR).
//   * DOCX: mammoth converts the document to HTML, which the HTML parser below turns into
//     sections, so Word's Heading 1..6 styles become heading paths.
// Both libraries are loaded lazily on first use.

export type Section = { headingPath: string[]; text: string };

export const TEXT_CONTENT_TYPES = ["text/markdown", "text/plain", "text/html"] as const;
export const PDF_CONTENT_TYPE = "application/pdf";
export const DOCX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
/** Formats only `parseDocumentAsync` can parse. */
export const BINARY_CONTENT_TYPES = [PDF_CONTENT_TYPE, DOCX_CONTENT_TYPE] as const;
export const SUPPORTED_CONTENT_TYPES = [...TEXT_CONTENT_TYPES, ...BINARY_CONTENT_TYPES] as const;
export type SupportedContentType = (typeof SUPPORTED_CONTENT_TYPES)[number];

export type PipelineErrorCode = "UNSUPPORTED_DOCUMENT" | "PARSE_ERROR" | "EMPTY_DOCUMENT";

/** A non-retryable document problem. `code` matches the task error codes of the queue. */
export class PipelineError extends Error {
  readonly code: PipelineErrorCode;
  constructor(code: PipelineErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = "PipelineError";
  }
}

/** Lower-case media type without parameters ("Text/HTML; charset=utf-8" -> "text/html"). */
export function normaliseContentType(ct: string): string {
  const semi = ct.indexOf(";");
  return (semi >= 0 ? ct.slice(0, semi) : ct).trim().toLowerCase();
}

/** Supported by `parseDocumentAsync` (text and binary formats). */
export function isSupportedContentType(ct: string): boolean {
  return (SUPPORTED_CONTENT_TYPES as readonly string[]).includes(normaliseContentType(ct));
}

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
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(content);
  } catch {
    throw new PipelineError("PARSE_ERROR", "the document is not valid UTF-8 text");
  }
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
  const work = type === PDF_CONTENT_TYPE ? parsePdf(content, options, job) : parseDocx(content, options, job);
  return settleWithin(work, timeoutMs, options.signal, job, what);
}

/** Lets the caller stop a running parse; the parser checks `cancelled` whenever it regains control. */
class CancellableJob {
  cancelled = false;
  private readonly onCancel: (() => void)[] = [];
  whenCancelled(fn: () => void): void {
    this.onCancel.push(fn);
  }
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const fn of this.onCancel) {
      try {
        fn();
      } catch {
        // best effort
      }
    }
  }
  check(): void {
    if (this.cancelled) throw new PipelineError("PARSE_ERROR", "parsing was cancelled");
  }
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

/**
 * The PDF/DOCX library could not be loaded: a broken installation, not a broken document, so it
 * is deliberately not a PipelineError (a queue should retry or alert, not fail the document).
 */
export class ParserUnavailableError extends Error {
  constructor(library: string, cause: unknown) {
    super(`the ${library} library could not be loaded: ${errorSummary(cause)}`, { cause });
    this.name = "ParserUnavailableError";
  }
}

async function loadLibrary<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw new ParserUnavailableError(name, e);
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One readable line from whatever a library threw, at most 300 characters. */
function errorSummary(e: unknown): string {
  let msg = e instanceof Error ? e.message : typeof e === "string" ? e : "";
  if (!msg && e && typeof e === "object" && "message" in e) msg = String((e as { message: unknown }).message);
  msg = collapseWs(msg || String(e));
  return msg.length > 300 ? msg.slice(0, 297) + "..." : msg || "unknown error";
}

// --- PDF ---------------------------------------------------------------------------------------

type PdfTextItem = { str: string; transform: number[]; width: number; height: number; hasEOL: boolean };
type PdfLine = { text: string; y: number; size: number };

async function parsePdf(content: Uint8Array, options: ParseOptions, job: CancellableJob): Promise<Section[]> {
  if (content.length === 0) throw new PipelineError("PARSE_ERROR", "the PDF file is empty (0 bytes)");
  const cap = options.maxPages ?? DEFAULT_MAX_PAGES;
  const maxPages = Number.isFinite(cap) ? Math.max(1, Math.floor(cap)) : DEFAULT_MAX_PAGES;
  const { getDocument } = await loadLibrary("unpdf", async () => (await import("unpdf")).getResolvedPDFJS());
  job.check();
  const task = getDocument({
    data: content.slice(), // PDF.js may take ownership of (detach) the buffer it is given
    verbosity: 0, // errors only: no "Warning: ..." lines from broken files on stdout
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
  });
  // Once cancelled, whatever the loading task still does is abandoned, never left unhandled.
  task.promise.catch(() => undefined);
  job.whenCancelled(() => void task.destroy().catch(() => undefined));
  try {
    let doc;
    try {
      doc = await task.promise;
    } catch (e) {
      throw pdfOpenError(e);
    }
    job.check();
    const total = doc.numPages;
    const pages = Math.min(total, maxPages);
    const b = new SectionBuilder();
    let pageErrors = 0;
    let firstPageError: unknown;
    for (let n = 1; n <= pages; n++) {
      // PDF.js's in-thread worker answers through microtasks only, so without this a long document
      // would hold the event loop (timers, heartbeats, the time budget) until its last page.
      await yieldToEventLoop();
      job.check();
      let items: PdfTextItem[];
      try {
        const page = await doc.getPage(n);
        const tc = await page.getTextContent();
        page.cleanup();
        items = tc.items.filter((it) => "str" in it) as unknown as PdfTextItem[];
      } catch (e) {
        // One damaged page does not lose the rest of the document.
        pageErrors++;
        firstPageError ??= e;
        continue;
      }
      const paras = pdfParagraphs(items);
      if (paras.length === 0) continue;
      b.heading(1, `Page ${n}`);
      for (const p of paras) b.paragraph(p);
    }
    if (total > pages) options.onTruncated?.({ totalPages: total, parsedPages: pages });
    const sections = b.finish();
    if (sections.length === 0) {
      if (pageErrors > 0) throw new PipelineError("PARSE_ERROR", `could not read the PDF's pages: ${errorSummary(firstPageError)}`);
      throw new PipelineError("EMPTY_DOCUMENT", "the PDF has no extractable text (scanned images without a text layer?)");
    }
    return sections;
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

function pdfOpenError(e: unknown): PipelineError {
  const name = e && typeof e === "object" && "name" in e ? String((e as { name: unknown }).name) : "";
  if (name === "PasswordException") return new PipelineError("PARSE_ERROR", "the PDF is password-protected (encrypted)");
  if (name === "InvalidPDFException") return new PipelineError("PARSE_ERROR", `not a valid PDF file: ${errorSummary(e)}`);
  return new PipelineError("PARSE_ERROR", `could not open the PDF: ${errorSummary(e)}`);
}

/** Strip characters that only mean "no glyph mapping" (NUL, other C0 controls, noncharacters). */
function cleanPdfText(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f\ufffe\uffff]/g, "");
}

/**
 * Text items of one page -> paragraphs. Items join into lines (PDF.js marks line ends; a change
 * of baseline also ends a line); lines join into paragraphs unless the gap to the next baseline
 * is clearly larger than the page's usual line spacing, the text moves up (a new column), or the
 * font size changes markedly (a heading).
 */
function pdfParagraphs(items: PdfTextItem[]): string[] {
  const lines: PdfLine[] = [];
  let cur: { parts: string[]; y: number; size: number; endX: number; eol: boolean } | null = null;
  const pushLine = () => {
    if (cur) {
      const text = collapseWs(cur.parts.join(""));
      if (text) lines.push({ text, y: cur.y, size: cur.size });
    }
    cur = null;
  };
  for (const it of items) {
    const t = it.transform ?? [1, 0, 0, 1, 0, 0];
    const size = Math.hypot(t[2] ?? 0, t[3] ?? 0) || it.height || 1;
    const x = t[4] ?? 0;
    const y = t[5] ?? 0;
    const str = cleanPdfText(it.str ?? "");
    if (str !== "") {
      if (cur && (cur.eol || Math.abs(y - cur.y) > 0.5 * Math.max(size, cur.size))) pushLine();
      if (!cur) {
        cur = { parts: [], y, size, endX: x, eol: false };
      } else {
        const prev = cur.parts[cur.parts.length - 1] ?? "";
        const gap = x - cur.endX;
        if (gap > 0.15 * size && !/\s$/.test(prev) && !/^\s/.test(str)) cur.parts.push(" ");
        cur.size = Math.max(cur.size, size);
      }
      cur.parts.push(str);
      cur.endX = x + (Number.isFinite(it.width) ? it.width : 0);
    }
    if (it.hasEOL && cur) cur.eol = true;
  }
  pushLine();
  if (lines.length === 0) return [];

  // The page's usual baseline distance: the lower quartile of downward steps between same-size
  // lines (body lines outnumber paragraph gaps, and the quartile stays right with few lines).
  const steps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const dy = lines[i - 1].y - lines[i].y;
    if (dy > 0 && Math.abs(lines[i].size - lines[i - 1].size) < 0.5) steps.push(dy);
  }
  steps.sort((a, b) => a - b);
  const usual = steps.length ? steps[Math.floor((steps.length - 1) / 4)] : 0;

  const paras: string[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) paras.push(para.join(""));
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (i > 0) {
      const p = lines[i - 1];
      const dy = p.y - l.y;
      const size = Math.max(p.size, l.size);
      const limit = usual > 0 ? Math.max(usual * 1.35, size * 1.15) : size * 1.6;
      const sizeJump = Math.max(p.size, l.size) / Math.max(0.01, Math.min(p.size, l.size)) > 1.2;
      if (dy > limit || dy < -0.5 * size || sizeJump) flush();
    }
    if (para.length === 0) para.push(l.text);
    else {
      const prev = para[para.length - 1];
      // A line ending in "letter-" continues the word on the next line; otherwise a space.
      para.push(/\p{L}-$/u.test(prev) ? l.text : " " + l.text);
    }
  }
  flush();
  return paras;
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
// Shared helpers

function normaliseNewlines(s: string): string {
  if (s.indexOf("\r") < 0) return s;
  return s.replace(/\r\n?/g, "\n");
}

function isWs(c: number): boolean {
  // space, \t, \n, \v, \f, \r, NBSP, and the other Unicode spaces JS's \s knows about.
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isWs(s.charCodeAt(i))) return false;
  return true;
}

/** Collapse every whitespace run to one space and trim. */
function collapseWs(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/**
 * Accumulates paragraphs under the current heading path. A heading of level L replaces the
 * level-L entry and clears everything deeper. Sections whose body is empty are not emitted
 * (this covers "a heading immediately followed by its sub-heading").
 */
class SectionBuilder {
  private readonly stack: (string | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined];
  private path: string[] = [];
  private paras: string[] = [];
  private readonly out: Section[] = [];

  heading(level: number, rawText: string): void {
    const text = collapseWs(rawText);
    if (!text) return; // an empty heading changes nothing
    this.flushSection();
    this.stack[level - 1] = text;
    for (let l = level; l < 6; l++) this.stack[l] = undefined;
    this.path = this.stack.filter((h): h is string => h !== undefined);
  }

  paragraph(text: string): void {
    if (!isBlank(text)) this.paras.push(text);
  }

  private flushSection(): void {
    if (this.paras.length > 0) {
      const text = this.paras.join("\n\n").trim();
      if (text) this.out.push({ headingPath: this.path.slice(), text });
    }
    this.paras = [];
  }

  finish(): Section[] {
    this.flushSection();
    return this.out;
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

// ---------------------------------------------------------------------------------------------
// Markdown

type Fence = { char: number; len: number };

function leadingSpaces(line: string, max: number): number {
  let p = 0;
  while (p < line.length && p < max && line.charCodeAt(p) === 32) p++;
  return p;
}

/** ``` or ~~~ (3+) opening a fenced code block; any indentation (fences inside list items). */
function fenceOpen(line: string): Fence | null {
  let p = 0;
  while (p < line.length && (line.charCodeAt(p) === 32 || line.charCodeAt(p) === 9)) p++;
  const ch = line.charCodeAt(p);
  if (ch !== 96 /* ` */ && ch !== 126 /* ~ */) return null;
  let n = 0;
  while (line.charCodeAt(p + n) === ch) n++;
  if (n < 3) return null;
  if (ch === 96 && line.indexOf("`", p + n) >= 0) return null; // backtick info strings cannot contain backticks
  return { char: ch, len: n };
}

function fenceCloses(line: string, f: Fence): boolean {
  let p = 0;
  while (p < line.length && (line.charCodeAt(p) === 32 || line.charCodeAt(p) === 9)) p++;
  let n = 0;
  while (line.charCodeAt(p + n) === f.char) n++;
  if (n < f.len) return false;
  return isBlank(line.slice(p + n));
}

function atxHeading(line: string): { level: number; text: string } | null {
  const p = leadingSpaces(line, 3);
  let h = 0;
  while (line.charCodeAt(p + h) === 35 /* # */) h++;
  if (h < 1 || h > 6) return null;
  const after = p + h;
  if (after < line.length) {
    const c = line.charCodeAt(after);
    if (c !== 32 && c !== 9) return null; // "#hashtag" is not a heading
  }
  let text = line.slice(after).trim();
  // Optional closing sequence: "## Title ##".
  let e = text.length;
  while (e > 0 && text.charCodeAt(e - 1) === 35) e--;
  if (e === 0) text = "";
  else if (e < text.length && (text.charCodeAt(e - 1) === 32 || text.charCodeAt(e - 1) === 9)) text = text.slice(0, e).trimEnd();
  return { level: h, text };
}

/** "===" -> 1, "---" -> 2, else 0. Requires at least two marker characters. */
function setextLevel(line: string): number {
  const p = leadingSpaces(line, 3);
  const ch = line.charCodeAt(p);
  if (ch !== 61 /* = */ && ch !== 45 /* - */) return 0;
  let n = 0;
  while (line.charCodeAt(p + n) === ch) n++;
  if (n < 2 || !isBlank(line.slice(p + n))) return 0;
  return ch === 61 ? 1 : 2;
}

/** "***", "- - -", "___" ... */
function isThematicBreak(line: string): boolean {
  const p = leadingSpaces(line, 3);
  const ch = line.charCodeAt(p);
  if (ch !== 42 && ch !== 45 && ch !== 95) return false;
  let count = 0;
  for (let i = p; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === ch) count++;
    else if (c !== 32 && c !== 9) return false;
  }
  return count >= 3;
}

function stripBlockquote(line: string): string {
  let p = 0;
  for (;;) {
    const s = leadingSpaces(line.slice(p, p + 4), 3);
    if (line.charCodeAt(p + s) !== 62 /* > */) break;
    p += s + 1;
    if (line.charCodeAt(p) === 32) p++;
  }
  return p ? line.slice(p) : line;
}

function parseMarkdown(text: string): Section[] {
  const b = new SectionBuilder();
  const lines = text.split("\n");
  let start = 0;

  // YAML front matter: "---" on the very first line up to the next "---" or "..." line.
  if (lines.length > 1 && lines[0].trimEnd() === "---") {
    for (let j = 1; j < lines.length; j++) {
      const t = lines[j].trimEnd();
      if (t === "---" || t === "...") {
        start = j + 1;
        break;
      }
    }
  }

  let para: string[] = [];
  let fence: Fence | null = null;
  let code: string[] = [];
  let inComment = false;

  const flushPara = () => {
    if (para.length) b.paragraph(cleanInline(para.join("\n")).trim());
    para = [];
  };
  const flushCode = () => {
    let k = 0;
    while (k < code.length && isBlank(code[k])) k++;
    b.paragraph(code.slice(k).join("\n").trimEnd());
    code = [];
  };

  for (let li = start; li < lines.length; li++) {
    let line = lines[li];
    if (fence) {
      if (fenceCloses(line, fence)) {
        flushCode();
        fence = null;
      } else {
        code.push(line);
      }
      continue;
    }
    if (inComment) {
      const end = line.indexOf("-->");
      if (end < 0) continue;
      inComment = false;
      line = line.slice(end + 3);
    }
    const f = fenceOpen(line);
    if (f) {
      flushPara();
      fence = f;
      code = [];
      continue;
    }
    if (line.indexOf("<!--") >= 0) {
      const r = stripHtmlComments(line);
      inComment = r.open;
      // A line that held only a comment is no paragraph break.
      if (isBlank(r.text) && !isBlank(line)) continue;
      line = r.text;
    }
    if (isBlank(line)) {
      flushPara();
      continue;
    }
    const atx = atxHeading(line);
    if (atx) {
      flushPara();
      b.heading(atx.level, cleanInline(atx.text));
      continue;
    }
    if (para.length > 0) {
      const lvl = setextLevel(line);
      if (lvl) {
        const headingText = para.join(" ");
        para = [];
        b.heading(lvl, cleanInline(headingText));
        continue;
      }
    }
    if (isThematicBreak(line)) {
      flushPara();
      continue;
    }
    para.push(stripBlockquote(line).trimEnd());
  }
  if (fence) flushCode(); // an unclosed fence runs to the end of the document
  flushPara();
  return b.finish();
}

/** Remove complete `<!-- ... -->` comments from one line; `open` if one is left unterminated. */
function stripHtmlComments(line: string): { text: string; open: boolean } {
  const parts: string[] = [];
  let i = 0;
  for (;;) {
    const s = line.indexOf("<!--", i);
    if (s < 0) {
      parts.push(line.slice(i));
      return { text: parts.join(""), open: false };
    }
    parts.push(line.slice(i, s));
    const e = line.indexOf("-->", s + 4);
    if (e < 0) return { text: parts.join(""), open: true };
    i = e + 3;
  }
}

/**
 * Light inline clean-up for indexing: code spans lose their backticks (content kept verbatim),
 * links and images become their text, emphasis markers go, backslash escapes are resolved.
 */
export function cleanInline(s: string): string {
  if (s.indexOf("`") < 0) return cleanText(s);
  // Backtick runs, each with its length. An escaped backtick (\`) is literal, not a delimiter.
  const runStart: number[] = [];
  const runLen: number[] = [];
  for (let i = 0; i < s.length; ) {
    if (s.charCodeAt(i) !== 96) {
      i++;
      continue;
    }
    if (i > 0 && s.charCodeAt(i - 1) === 92 /* \ */) {
      i++;
      continue;
    }
    let j = i;
    while (s.charCodeAt(j) === 96) j++;
    runStart.push(i);
    runLen.push(j - i);
    i = j;
  }
  // For each run length, the run indices having it (ascending) and a forward-only cursor, so
  // finding "the next run with the same length" is amortised linear.
  const byLen = new Map<number, { list: number[]; cur: number }>();
  for (let r = 0; r < runLen.length; r++) {
    let e = byLen.get(runLen[r]);
    if (!e) byLen.set(runLen[r], (e = { list: [], cur: 0 }));
    e.list.push(r);
  }
  const out: string[] = [];
  let textStart = 0;
  let r = 0;
  while (r < runStart.length) {
    const e = byLen.get(runLen[r])!;
    while (e.cur < e.list.length && e.list[e.cur] <= r) e.cur++;
    if (e.cur >= e.list.length) {
      r++; // unmatched: the backticks stay literal
      continue;
    }
    const q = e.list[e.cur];
    out.push(cleanText(s.slice(textStart, runStart[r])));
    let codeText = s.slice(runStart[r] + runLen[r], runStart[q]);
    if (codeText.length >= 2 && codeText.startsWith(" ") && codeText.endsWith(" ") && !isBlank(codeText)) {
      codeText = codeText.slice(1, -1);
    }
    out.push(codeText);
    textStart = runStart[q] + runLen[q];
    r = q + 1;
  }
  out.push(cleanText(s.slice(textStart)));
  return out.join("");
}

function cleanText(s: string): string {
  return stripEmphasis(stripLinks(s));
}

/** `[text](url)` -> text, `![alt](src)` -> alt. Escapes are passed through untouched. */
function stripLinks(s: string): string {
  if (s.indexOf("[") < 0) return s;
  const n = s.length;
  const out: string[] = [];
  let last = 0;
  // Cached "first ']' / ')' at or after some earlier position": valid for any later query
  // position up to the cached index, so the total scanning is linear.
  let nextClose = -1;
  let nextParen = -1;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \ */) {
      i += 2;
      continue;
    }
    const isImage = c === 33 /* ! */ && s.charCodeAt(i + 1) === 91;
    if (c === 91 /* [ */ || isImage) {
      const labelStart = isImage ? i + 2 : i + 1;
      if (nextClose < labelStart) {
        nextClose = s.indexOf("]", labelStart);
        if (nextClose < 0) nextClose = n;
      }
      const j = nextClose;
      if (j < n && s.charCodeAt(j + 1) === 40 /* ( */) {
        if (nextParen < j + 2) {
          nextParen = s.indexOf(")", j + 2);
          if (nextParen < 0) nextParen = n;
        }
        const k = nextParen;
        if (k < n) {
          out.push(s.slice(last, i), s.slice(labelStart, j));
          last = k + 1;
          i = k + 1;
          continue;
        }
      }
    }
    i++;
  }
  if (last === 0) return s;
  out.push(s.slice(last));
  return out.join("");
}

const ALNUM = /[\p{L}\p{N}]/u;
function isAlnumAt(s: string, i: number): boolean {
  if (i < 0 || i >= s.length) return false;
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return ALNUM.test(s[i]);
}
function isWsAt(s: string, i: number): boolean {
  return i < 0 || i >= s.length || isWs(s.charCodeAt(i));
}
function isAsciiPunct(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/**
 * Drop `*` / `_` runs (1-3 long) that can open or close emphasis: an opener is followed by
 * non-space and not preceded by a letter/digit; a closer is preceded by non-space and not
 * followed by a letter/digit. So `**bold**`, `*it*` and `_it_` lose their markers while
 * `snake_case`, `2 * 3`, `a*b` and `* list item` keep theirs. `\*` yields a literal `*`.
 */
function stripEmphasis(s: string): string {
  if (s.indexOf("*") < 0 && s.indexOf("_") < 0 && s.indexOf("\\") < 0) return s;
  const out: string[] = [];
  let last = 0;
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 92 && i + 1 < n && isAsciiPunct(s.charCodeAt(i + 1))) {
      out.push(s.slice(last, i));
      last = i + 1; // drop the backslash, keep the escaped character
      i += 2;
      continue;
    }
    if (c === 42 || c === 95) {
      let j = i;
      while (j < n && s.charCodeAt(j) === c) j++;
      const opener = !isWsAt(s, j) && !isAlnumAt(s, i - 1);
      const closer = !isWsAt(s, i - 1) && !isAlnumAt(s, j);
      if (j - i <= 3 && (opener || closer)) {
        out.push(s.slice(last, i));
        last = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  if (last === 0) return s;
  out.push(s.slice(last));
  return out.join("");
}

// ---------------------------------------------------------------------------------------------
// HTML

/** Elements whose content is skipped up to the matching end tag (raw text / not rendered). */
const RAW_SKIP = new Set(["script", "style", "noscript", "title", "iframe", "noembed", "noframes", "xmp", "textarea"]);
/** Elements that may appear in <head>; any other start tag implies the body has begun. */
const HEAD_OK = new Set(["head", "title", "meta", "link", "base", "style", "script", "noscript", "template"]);
/** Elements that start/end a paragraph. */
const BLOCK = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog",
  "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup",
  "hr", "html", "legend", "li", "main", "menu", "nav", "ol", "p", "section", "summary", "table",
  "tbody", "tfoot", "thead", "tr", "ul", "option", "select",
]);
/** Block starts that end an unclosed heading (a <div> inside <h2> does not). */
const ENDS_HEADING = new Set([
  "p", "ul", "ol", "li", "table", "tr", "section", "article", "blockquote", "hr", "dl", "dt", "dd",
  "nav", "aside", "footer", "header", "main", "figure", "form", "details", "pre",
]);
const CELL = new Set(["td", "th"]);

function headingLevel(name: string): number {
  if (name.length === 2 && name.charCodeAt(0) === 104 /* h */) {
    const d = name.charCodeAt(1) - 48;
    if (d >= 1 && d <= 6) return d;
  }
  return 0;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isNameChar(c: number): boolean {
  return isAsciiLetter(c) || (c >= 48 && c <= 57) || c === 45 || c === 58 || c === 95 || c === 46;
}

/** Index just past the `>` of `</name ...>` at or after `from` (ASCII case-insensitive), or -1. */
function findEndTag(src: string, from: number, name: string): number {
  let k = from;
  for (;;) {
    k = src.indexOf("</", k);
    if (k < 0) return -1;
    let ok = true;
    for (let t = 0; t < name.length; t++) {
      if ((src.charCodeAt(k + 2 + t) | 0x20) !== name.charCodeAt(t)) {
        ok = false;
        break;
      }
    }
    if (ok) {
      const after = src.charCodeAt(k + 2 + name.length);
      if (Number.isNaN(after) || isWs(after) || after === 47 || after === 62) {
        const gt = src.indexOf(">", k + 2 + name.length);
        return gt < 0 ? src.length : gt + 1;
      }
    }
    k += 2;
  }
}

function parseHtml(src: string): Section[] {
  const b = new SectionBuilder();
  const n = src.length;
  let parts: string[] = []; // current paragraph
  let paraIsPre = false;
  let preDepth = 0;
  let heading: { level: number; parts: string[] } | null = null;
  let inHead = false;
  let templateDepth = 0;

  const flushPara = () => {
    if (parts.length) {
      const raw = parts.join("");
      if (paraIsPre) {
        const s = raw.replace(/\u00a0/g, " ");
        // Drop leading blank lines but keep the first real line's indentation.
        let k = 0;
        let lineStart = 0;
        while (k < s.length) {
          const c = s.charCodeAt(k);
          if (c === 10) lineStart = k + 1;
          else if (c !== 32 && c !== 9) break;
          k++;
        }
        b.paragraph(s.slice(lineStart).trimEnd());
      } else {
        b.paragraph(collapseWs(raw));
      }
    }
    parts = [];
    paraIsPre = preDepth > 0;
  };
  const finishHeading = () => {
    if (!heading) return;
    const h = heading;
    heading = null;
    b.heading(h.level, h.parts.join("")); // parts are already entity-decoded
  };
  const emitText = (raw: string) => {
    if (templateDepth > 0) return;
    if (inHead) {
      if (isBlank(raw)) return;
      inHead = false; // stray text: the body has begun
    }
    const t = decodeEntities(raw);
    if (heading) heading.parts.push(t);
    else parts.push(t);
  };
  const blockBreak = () => {
    if (preDepth > 0) return;
    if (heading) heading.parts.push(" ");
    else flushPara();
  };

  const startTag = (name: string) => {
    if (inHead && !HEAD_OK.has(name)) inHead = false;
    if (name === "head") {
      inHead = true;
      return;
    }
    if (name === "template") {
      templateDepth++;
      return;
    }
    if (templateDepth > 0) return;
    const lvl = headingLevel(name);
    if (lvl) {
      finishHeading();
      flushPara();
      heading = { level: lvl, parts: [] };
      return;
    }
    if (heading && ENDS_HEADING.has(name)) finishHeading();
    if (name === "pre") {
      if (preDepth === 0) flushPara();
      preDepth++;
      paraIsPre = true;
      return;
    }
    if (name === "br") {
      if (heading) heading.parts.push(" ");
      else if (preDepth > 0) parts.push("\n");
      else flushPara();
      return;
    }
    if (CELL.has(name)) {
      // Cells of one row stay in one paragraph (the row), separated by a space.
      if (heading) heading.parts.push(" ");
      else parts.push(" ");
      return;
    }
    if (BLOCK.has(name)) blockBreak();
  };

  const endTag = (name: string) => {
    if (name === "head") {
      inHead = false;
      return;
    }
    if (name === "template") {
      if (templateDepth > 0) templateDepth--;
      return;
    }
    if (templateDepth > 0) return;
    if (headingLevel(name)) {
      finishHeading();
      return;
    }
    if (name === "pre") {
      if (preDepth > 0) {
        preDepth--;
        if (preDepth === 0) flushPara();
      }
      return;
    }
    if (CELL.has(name)) {
      if (heading) heading.parts.push(" ");
      else parts.push(" ");
      return;
    }
    if (BLOCK.has(name)) blockBreak();
  };

  let i = 0;
  while (i < n) {
    let lt = src.indexOf("<", i);
    if (lt < 0) lt = n;
    if (lt > i) emitText(src.slice(i, lt));
    i = lt;
    if (i >= n) break;

    const c1 = src.charCodeAt(i + 1);
    if (c1 === 33 /* ! */ && src.startsWith("<!--", i)) {
      const e = src.indexOf("-->", i + 4);
      i = e < 0 ? n : e + 3;
      continue;
    }
    if (c1 === 33 || c1 === 63 /* ? */) {
      const e = src.indexOf(">", i + 2);
      i = e < 0 ? n : e + 1;
      continue;
    }
    if (c1 === 47 /* / */) {
      let j = i + 2;
      while (j < n && isNameChar(src.charCodeAt(j))) j++;
      const name = src.slice(i + 2, j).toLowerCase();
      const e = src.indexOf(">", j);
      i = e < 0 ? n : e + 1;
      if (name) endTag(name);
      continue;
    }
    if (!isAsciiLetter(c1)) {
      emitText("<");
      i++;
      continue;
    }
    // Start tag: name, then attributes up to '>' (quoted values may contain '>').
    let j = i + 1;
    while (j < n && isNameChar(src.charCodeAt(j))) j++;
    const name = src.slice(i + 1, j).toLowerCase();
    let prevNonWs = 0;
    let end = -1;
    while (j < n) {
      const c = src.charCodeAt(j);
      if (c === 62 /* > */) {
        end = j + 1;
        break;
      }
      if ((c === 34 || c === 39) && prevNonWs === 61 /* = */) {
        const q = src.indexOf(c === 34 ? '"' : "'", j + 1);
        if (q < 0) break;
        j = q + 1;
        prevNonWs = c;
        continue;
      }
      if (!isWs(c)) prevNonWs = c;
      j++;
    }
    if (end < 0) break; // a tag left open at end of input: drop the rest, as browsers do
    i = end;
    if (RAW_SKIP.has(name)) {
      const e = findEndTag(src, i, name);
      i = e < 0 ? n : e;
      continue;
    }
    startTag(name);
  }
  finishHeading();
  flushPara();
  return b.finish();
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0",
  copy: "\u00a9", reg: "\u00ae", trade: "\u2122", hellip: "\u2026", mdash: "\u2014", ndash: "\u2013",
  lsquo: "\u2018", rsquo: "\u2019", sbquo: "\u201a", ldquo: "\u201c", rdquo: "\u201d", bdquo: "\u201e",
  laquo: "\u00ab", raquo: "\u00bb", bull: "\u2022", middot: "\u00b7", deg: "\u00b0", plusmn: "\u00b1",
  times: "\u00d7", divide: "\u00f7", euro: "\u20ac", pound: "\u00a3", yen: "\u00a5", cent: "\u00a2",
  sect: "\u00a7", para: "\u00b6", shy: "", zwj: "\u200d", zwnj: "\u200c", ensp: "\u2002", emsp: "\u2003",
  thinsp: "\u2009", iexcl: "\u00a1", iquest: "\u00bf", larr: "\u2190", rarr: "\u2192", uarr: "\u2191",
  darr: "\u2193", harr: "\u2194", le: "\u2264", ge: "\u2265", ne: "\u2260", minus: "\u2212",
  frac12: "\u00bd", frac14: "\u00bc", frac34: "\u00be", micro: "\u00b5", check: "\u2713",
  aacute: "\u00e1", agrave: "\u00e0", acirc: "\u00e2", atilde: "\u00e3", auml: "\u00e4", aring: "\u00e5",
  aelig: "\u00e6", ccedil: "\u00e7", eacute: "\u00e9", egrave: "\u00e8", ecirc: "\u00ea", euml: "\u00eb",
  iacute: "\u00ed", igrave: "\u00ec", icirc: "\u00ee", iuml: "\u00ef", ntilde: "\u00f1", oacute: "\u00f3",
  ograve: "\u00f2", ocirc: "\u00f4", otilde: "\u00f5", ouml: "\u00f6", oslash: "\u00f8", uacute: "\u00fa",
  ugrave: "\u00f9", ucirc: "\u00fb", uuml: "\u00fc", yacute: "\u00fd", yuml: "\u00ff", szlig: "\u00df",
  Aacute: "\u00c1", Agrave: "\u00c0", Auml: "\u00c4", Aring: "\u00c5", AElig: "\u00c6", Ccedil: "\u00c7",
  Eacute: "\u00c9", Egrave: "\u00c8", Ntilde: "\u00d1", Oacute: "\u00d3", Ouml: "\u00d6", Oslash: "\u00d8",
  Uacute: "\u00da", Uuml: "\u00dc",
};

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Decode character references. Unknown named references are left as written. */
export function decodeEntities(s: string): string {
  let amp = s.indexOf("&");
  if (amp < 0) return s;
  const n = s.length;
  const out: string[] = [];
  let last = 0;
  while (amp >= 0) {
    let j = amp + 1;
    let rep: string | null = null;
    if (s.charCodeAt(j) === 35 /* # */) {
      j++;
      const hex = s.charCodeAt(j) === 120 || s.charCodeAt(j) === 88;
      if (hex) j++;
      const digitsStart = j;
      let value = 0;
      while (j < n && (hex ? isHexDigit(s.charCodeAt(j)) : s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57)) {
        if (value <= 0x10ffff) value = value * (hex ? 16 : 10) + parseInt(s[j], 16);
        j++;
      }
      if (j > digitsStart) {
        if (s.charCodeAt(j) === 59 /* ; */) j++;
        const bad = value === 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff);
        rep = bad ? "\ufffd" : String.fromCodePoint(value);
      }
    } else {
      while (j < n && j - amp <= 32 && isNameChar(s.charCodeAt(j))) j++;
      if (s.charCodeAt(j) === 59) {
        const name = s.slice(amp + 1, j);
        if (Object.prototype.hasOwnProperty.call(NAMED_ENTITIES, name)) {
          rep = NAMED_ENTITIES[name];
          j++;
        }
      }
    }
    if (rep !== null) {
      out.push(s.slice(last, amp), rep);
      last = j;
      amp = s.indexOf("&", j);
    } else {
      amp = s.indexOf("&", amp + 1);
    }
  }
  out.push(s.slice(last));
  return out.join("");
}
