// PDF -> sections, from the text layer only, via unpdf's bundled serverless PDF.js build (no
// canvas, no native code). Scanned pages without a text layer yield nothing (no OCR).
//
// Headings come from the document outline (bookmarks) when it has one: each outline entry that
// resolves to a page (explicit or named destination) starts a section at its position on that
// page, nested entries give deeper heading paths (levels past 6 stay at 6), and the paragraph
// that merely repeats the entry's title is dropped. Pages before the first outline entry — and
// every page of a PDF without a usable outline — get one section each, headed "Page N", as
// before. Paragraphs are split on large vertical gaps.

import {
  CancellableJob,
  PipelineError,
  SectionBuilder,
  collapseWs,
  errorSummary,
  loadLibrary,
  yieldToEventLoop,
  type Section,
} from "./common";

export type PdfParseOptions = {
  maxPages: number;
  onTruncated?: (info: { totalPages: number; parsedPages: number }) => void;
};

type PdfTextItem = { str: string; transform: number[]; width: number; height: number; hasEOL: boolean };
type PdfLine = { text: string; y: number; size: number };
type PdfParagraph = { text: string; y: number };
type OutlineHeading = { title: string; level: number; page: number; top: number | null };

/** Outline entries read at most: a hostile outline must not cost more than its pages. */
const MAX_OUTLINE_ENTRIES = 10_000;

export async function parsePdf(content: Uint8Array, options: PdfParseOptions, job: CancellableJob): Promise<Section[]> {
  if (content.length === 0) throw new PipelineError("PARSE_ERROR", "the PDF file is empty (0 bytes)");
  const maxPages = options.maxPages;
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
    const outline = byPage(await readOutline(doc, pages, job));
    const b = new SectionBuilder();
    let outlineStarted = false;
    let pageErrors = 0;
    let firstPageError: unknown;
    for (let n = 1; n <= pages; n++) {
      // PDF.js's in-thread worker answers through microtasks only, so without this a long document
      // would hold the event loop (timers, heartbeats, the time budget) until its last page.
      await yieldToEventLoop();
      job.check();
      const headings = outline.get(n) ?? [];
      let items: PdfTextItem[] = [];
      try {
        const page = await doc.getPage(n);
        const tc = await page.getTextContent();
        page.cleanup();
        items = tc.items.filter((it) => "str" in it) as unknown as PdfTextItem[];
      } catch (e) {
        // One damaged page does not lose the rest of the document.
        pageErrors++;
        firstPageError ??= e;
        if (headings.length === 0) continue;
      }
      const paras = pdfParagraphs(items);
      if (paras.length === 0 && headings.length === 0) continue;
      let h = 0;
      let pageHeaded = false;
      let justHeaded: string | null = null;
      for (const p of paras) {
        // An entry aimed at or above this paragraph's first baseline starts before it.
        while (h < headings.length && (headings[h].top === null || headings[h].top! >= p.y)) {
          const e = headings[h++];
          b.heading(e.level, e.title);
          outlineStarted = true;
          justHeaded = sameText(e.title);
        }
        if (!outlineStarted && !pageHeaded) {
          b.heading(1, `Page ${n}`);
          pageHeaded = true;
        }
        if (justHeaded !== null && sameText(p.text) === justHeaded) {
          justHeaded = null; // the heading's own line on the page
          continue;
        }
        justHeaded = null;
        b.paragraph(p.text);
      }
      for (; h < headings.length; h++) {
        b.heading(headings[h].level, headings[h].title);
        outlineStarted = true;
      }
    }
    if (total > pages) options.onTruncated?.({ totalPages: total, parsedPages: pages });
    const sections = b.finish();
    if (sections.length === 0) {
      if (pageErrors > 0)
        throw new PipelineError("PARSE_ERROR", `could not read the PDF's pages: ${errorSummary(firstPageError)}`);
      throw new PipelineError(
        "EMPTY_DOCUMENT",
        "the PDF has no extractable text (scanned images without a text layer?)",
      );
    }
    return sections;
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

function sameText(s: string): string {
  return collapseWs(s).toLowerCase();
}

type OutlineNode = { title?: unknown; dest?: unknown; items?: unknown };
type PdfDoc = {
  getOutline(): Promise<OutlineNode[] | null>;
  getDestination(id: string): Promise<unknown[] | null>;
  getPageIndex(ref: never): Promise<number>;
};

/**
 * The outline entries, in document order, that resolve to one of the first `pages` pages. A
 * missing or damaged outline, or an entry without a page destination (a URL, a script action),
 * is simply not a heading.
 */
async function readOutline(doc: PdfDoc, pages: number, job: CancellableJob): Promise<OutlineHeading[]> {
  let roots: OutlineNode[] | null;
  try {
    roots = await doc.getOutline();
  } catch {
    return [];
  }
  if (!Array.isArray(roots) || roots.length === 0) return [];
  const out: OutlineHeading[] = [];
  // Depth-first, in order, without recursion (outlines may nest deeply).
  const stack: { items: OutlineNode[]; i: number; level: number }[] = [{ items: roots, i: 0, level: 1 }];
  let seen = 0;
  while (stack.length > 0 && seen < MAX_OUTLINE_ENTRIES) {
    const top = stack[stack.length - 1];
    if (top.i >= top.items.length) {
      stack.pop();
      continue;
    }
    const node = top.items[top.i++];
    seen++;
    job.check();
    const title = typeof node?.title === "string" ? collapseWs(cleanPdfText(node.title)) : "";
    const target = title ? await resolveDest(doc, node.dest) : null;
    if (target && target.page >= 1 && target.page <= pages)
      out.push({ title, level: Math.min(6, top.level), page: target.page, top: target.top });
    if (Array.isArray(node?.items) && node.items.length > 0)
      stack.push({ items: node.items as OutlineNode[], i: 0, level: top.level + 1 });
  }
  return out;
}

/** A destination (name or explicit array) -> 1-based page and the top coordinate it aims at. */
async function resolveDest(doc: PdfDoc, dest: unknown): Promise<{ page: number; top: number | null } | null> {
  try {
    let explicit = dest;
    if (typeof dest === "string") explicit = await doc.getDestination(dest);
    if (!Array.isArray(explicit) || explicit.length === 0) return null;
    const ref = explicit[0];
    const index =
      typeof ref === "number" ? ref : ref && typeof ref === "object" ? await doc.getPageIndex(ref as never) : -1;
    if (!Number.isInteger(index) || index < 0) return null;
    const kind = (explicit[1] as { name?: unknown } | undefined)?.name;
    // [page /XYZ left top zoom], [page /FitH top], [page /FitBH top]; other kinds aim at the page.
    const raw = kind === "XYZ" ? explicit[3] : kind === "FitH" || kind === "FitBH" ? explicit[2] : null;
    return { page: index + 1, top: typeof raw === "number" && Number.isFinite(raw) ? raw : null };
  } catch {
    return null;
  }
}

/** Headings grouped by page, each page's in reading order (top down; no position = the top). */
function byPage(list: OutlineHeading[]): Map<number, OutlineHeading[]> {
  const m = new Map<number, OutlineHeading[]>();
  for (const h of list) {
    const a = m.get(h.page);
    if (a) a.push(h);
    else m.set(h.page, [h]);
  }
  for (const a of m.values()) a.sort((x, y) => (y.top ?? Infinity) - (x.top ?? Infinity) || 0);
  return m;
}

function pdfOpenError(e: unknown): PipelineError {
  const name = e && typeof e === "object" && "name" in e ? String((e as { name: unknown }).name) : "";
  if (name === "PasswordException")
    return new PipelineError("PARSE_ERROR", "the PDF is password-protected (encrypted)");
  if (name === "InvalidPDFException")
    return new PipelineError("PARSE_ERROR", `not a valid PDF file: ${errorSummary(e)}`);
  return new PipelineError("PARSE_ERROR", `could not open the PDF: ${errorSummary(e)}`);
}

/** Strip characters that only mean "no glyph mapping" (NUL, other C0 controls, noncharacters). */
function cleanPdfText(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f\ufffe\uffff]/g, "");
}

/**
 * Text items of one page -> paragraphs, each with the baseline of its first line. Items join
 * into lines (PDF.js marks line ends; a change of baseline also ends a line); lines join into
 * paragraphs unless the gap to the next baseline is clearly larger than the page's usual line
 * spacing, the text moves up (a new column), or the font size changes markedly (a heading).
 */
function pdfParagraphs(items: PdfTextItem[]): PdfParagraph[] {
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

  const paras: PdfParagraph[] = [];
  let para: string[] = [];
  let paraY = 0;
  const flush = () => {
    if (para.length) paras.push({ text: para.join(""), y: paraY });
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
    if (para.length === 0) {
      para.push(l.text);
      paraY = l.y;
    } else {
      const prev = para[para.length - 1];
      // A line ending in "letter-" continues the word on the next line; otherwise a space.
      para.push(/\p{L}-$/u.test(prev) ? l.text : " " + l.text);
    }
  }
  flush();
  return paras;
}
