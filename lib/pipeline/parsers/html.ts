// HTML -> heading-aware sections.
//
// Tokens come from htmlparser2's Tokenizer: the part of HTML parsing that is easy to get wrong
// (raw-text elements such as <script> and <style>, comments, attribute quoting, and every named
// character reference of HTML5 through the `entities` package) is the library's. The open-element
// stack is kept here rather than by htmlparser2's Parser, whose stack grows at the front
// (Array#unshift): 100,000 nested <div>s cost it ~20 s. This one pushes and pops at the end and
// counts open elements by name, so a stray end tag costs O(1) and the whole parse is linear.
//
// Not indexed: <script>, <style>, <noscript>, <template>, <title>, <textarea>, <iframe>,
// <noembed>, <noframes>, <xmp>, <svg>; navigation menus (<nav>, role="navigation": the same
// links on every page, noise in every search); and any element that is hidden — the `hidden`
// attribute (except hidden="until-found", whose content a reader can find on the page),
// aria-hidden="true", or an inline style of display:none / visibility:hidden. <h1>–<h6> start
// sections.
//
// The same extractor reads the raw HTML inside Markdown (blocks and inline tags), keeping its
// element state across them, so `<div hidden>` … Markdown … `</div>` hides what is between.

import { Tokenizer } from "htmlparser2";
import { SectionBuilder, collapseWs, isBlank, type Section } from "./common";

/** Elements whose content is never text for the index. */
const SKIP = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "title",
  "textarea",
  "iframe",
  "noembed",
  "noframes",
  "xmp",
  "svg",
  "nav",
]);
const VOID = new Set([
  "area",
  "base",
  "basefont",
  "br",
  "col",
  "command",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "isindex",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
/** Elements that may appear in <head>; any other start tag implies the body has begun. */
const HEAD_OK = new Set(["head", "title", "meta", "link", "base", "style", "script", "noscript", "template"]);
/** Elements that start/end a paragraph. */
const BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "header",
  "hgroup",
  "hr",
  "html",
  "legend",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "section",
  "summary",
  "table",
  "tbody",
  "tfoot",
  "thead",
  "tr",
  "ul",
  "option",
  "select",
]);
/** Block starts that end an unclosed heading (a <div> inside <h2> does not). */
const ENDS_HEADING = new Set([
  "p",
  "ul",
  "ol",
  "li",
  "table",
  "tr",
  "section",
  "article",
  "blockquote",
  "hr",
  "dl",
  "dt",
  "dd",
  "nav",
  "aside",
  "footer",
  "header",
  "main",
  "figure",
  "form",
  "details",
  "pre",
]);

// Start tags that close the current element first (htmlparser2's table, itself a simplification
// of the HTML tree-construction rules).
const P = new Set(["p"]);
const HEADINGS_P = new Set(["h1", "h2", "h3", "h4", "h5", "h6", "p"]);
const FORM = new Set(["input", "option", "optgroup", "select", "button", "datalist", "textarea"]);
const DDT = new Set(["dd", "dt"]);
const IMPLIES_CLOSE = new Map<string, Set<string>>([
  ["tr", new Set(["tr", "th", "td"])],
  ["th", new Set(["th", "td"])],
  ["td", new Set(["thead", "th", "td"])],
  ["body", new Set(["head", "link", "script"])],
  ["a", new Set(["a"])],
  ["li", new Set(["li"])],
  ["p", P],
  ["h1", HEADINGS_P],
  ["h2", HEADINGS_P],
  ["h3", HEADINGS_P],
  ["h4", HEADINGS_P],
  ["h5", HEADINGS_P],
  ["h6", HEADINGS_P],
  ["select", FORM],
  ["input", FORM],
  ["output", FORM],
  ["button", FORM],
  ["datalist", FORM],
  ["textarea", FORM],
  ["option", new Set(["option"])],
  ["optgroup", new Set(["optgroup", "option"])],
  ["dd", DDT],
  ["dt", DDT],
  ["address", P],
  ["article", P],
  ["aside", P],
  ["blockquote", P],
  ["details", P],
  ["div", P],
  ["dl", P],
  ["fieldset", P],
  ["figcaption", P],
  ["figure", P],
  ["footer", P],
  ["form", P],
  ["header", P],
  ["hr", P],
  ["main", P],
  ["nav", P],
  ["ol", P],
  ["pre", P],
  ["section", P],
  ["table", P],
  ["ul", P],
  ["tbody", new Set(["thead", "tbody"])],
  ["tfoot", new Set(["thead", "tbody"])],
]);

export function headingLevel(name: string): number {
  if (name.length === 2 && name.charCodeAt(0) === 104 /* h */) {
    const d = name.charCodeAt(1) - 48;
    if (d >= 1 && d <= 6) return d;
  }
  return 0;
}

type Attrs = Record<string, string>;

/** Hidden from readers, or a navigation menu (the same links on every page of a site). */
function isHidden(attrs: Attrs): boolean {
  if ((attrs.role ?? "").trim().toLowerCase() === "navigation") return true;
  if (Object.hasOwn(attrs, "hidden") && attrs.hidden.trim().toLowerCase() !== "until-found") return true;
  if ((attrs["aria-hidden"] ?? "").trim().toLowerCase() === "true") return true;
  const style = attrs.style;
  return (
    style !== undefined &&
    /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!\s*important\s*)?(?:;|$)/i.test(style)
  );
}

/**
 * One table row as text. With a header row, each cell is labelled: "Plan: Basic; Price: $5", so a
 * row found on its own still says what its values mean. Cells without a header name are joined
 * by "; " as they are.
 */
export function tableRowText(headers: readonly string[] | null, cells: readonly string[]): string {
  const parts: string[] = [];
  cells.forEach((cell, i) => {
    if (!cell) return;
    const h = headers?.[i];
    parts.push(h ? `${h}: ${cell}` : cell);
  });
  return parts.join("; ");
}

type Element = { name: string; skip: boolean };
type Table = {
  headers: string[] | null;
  rows: number;
  bodyRows: number;
  pendingHeader: string | null;
  row: RowState | null;
};
type RowState = {
  cells: string[];
  allHeader: boolean;
  col: number;
  cell: { start: number; header: boolean; span: number } | null;
};

/** Where the extractor's text goes: a SectionBuilder, or Markdown's block writer. */
export type TextSink = { heading(level: number, text: string): void; paragraph(text: string): void };

/**
 * Streams HTML into a sink. `feed` may be called many times (each call holds whole tags); the
 * element stack carries over between calls.
 */
export class HtmlExtractor {
  private readonly stack: Element[] = [];
  /** Open elements by name, one map per <template> scope (end tags do not reach out of one). */
  private readonly counts: Map<string, number>[] = [new Map()];
  private skipFrom = -1; // stack index of the outermost skipped element, or -1
  private parts: string[] = [];
  private paraIsPre = false;
  private preDepth = 0;
  private heading: { level: number; parts: string[] } | null = null;
  private inHead = false;
  private readonly tables: Table[] = [];

  constructor(private readonly b: TextSink) {}

  /** Inside an element whose content is not indexed (for Markdown text between HTML tags). */
  get hidden(): boolean {
    return this.skipFrom >= 0;
  }

  feed(src: string): void {
    let tag = "";
    let attrs: Attrs = {};
    let attrName = "";
    let attrValue = "";
    const tokenizer = new Tokenizer(
      { xmlMode: false, decodeEntities: true },
      {
        ontext: (start, end) => this.text(src.slice(start, end)),
        ontextentity: (cp) => this.text(String.fromCodePoint(cp)),
        onopentagname: (start, end) => {
          tag = src.slice(start, end).toLowerCase();
          attrs = {};
        },
        onattribname: (start, end) => {
          attrName = src.slice(start, end).toLowerCase();
          attrValue = "";
        },
        onattribdata: (start, end) => {
          attrValue += src.slice(start, end);
        },
        onattribentity: (cp) => {
          attrValue += String.fromCodePoint(cp);
        },
        onattribend: () => {
          if (!Object.hasOwn(attrs, attrName)) attrs[attrName] = attrValue;
        },
        onopentagend: () => this.open(tag, attrs, false),
        onselfclosingtag: () => this.open(tag, attrs, true),
        onclosetag: (start, end) => this.close(src.slice(start, end).toLowerCase()),
        oncdata: noop,
        oncomment: noop,
        ondeclaration: noop,
        onprocessinginstruction: noop,
        onend: noop,
      },
    );
    tokenizer.write(src);
    tokenizer.end();
  }

  /** End the current paragraph (Markdown calls this between its own blocks). */
  flushParagraph(): void {
    this.finishHeading();
    this.flushPara();
  }

  // --- text -----------------------------------------------------------------------------------

  private text(t: string): void {
    if (this.skipFrom >= 0) return;
    if (this.inHead) {
      if (isBlank(t)) return;
      this.inHead = false; // stray text: the body has begun
    }
    if (this.heading) this.heading.parts.push(t);
    else this.parts.push(t);
  }

  private flushPara(): void {
    if (this.parts.length) {
      const raw = this.parts.join("");
      if (this.paraIsPre) {
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
        this.b.paragraph(s.slice(lineStart).trimEnd());
      } else {
        this.b.paragraph(collapseWs(raw));
      }
    }
    this.parts = [];
    this.paraIsPre = this.preDepth > 0;
  }

  private finishHeading(): void {
    if (!this.heading) return;
    const h = this.heading;
    this.heading = null;
    this.b.heading(h.level, h.parts.join(""));
  }

  private blockBreak(): void {
    if (this.preDepth > 0) return;
    if (this.heading) this.heading.parts.push(" ");
    else this.flushPara();
  }

  private inline(s: string): void {
    if (this.heading) this.heading.parts.push(s);
    else this.parts.push(s);
  }

  // --- elements -------------------------------------------------------------------------------

  private open(name: string, attrs: Attrs, selfClosing: boolean): void {
    if (!name) return;
    const closes = IMPLIES_CLOSE.get(name);
    if (closes) while (this.stack.length > 0 && closes.has(this.stack[this.stack.length - 1].name)) this.pop();
    if (VOID.has(name)) {
      if (this.skipFrom < 0 && !isHidden(attrs)) this.startEffects(name, attrs);
      return;
    }
    const skip = this.skipFrom >= 0 || SKIP.has(name) || isHidden(attrs);
    if (skip && this.skipFrom < 0) {
      // A skipped element still ends the text before it, as any element would that is not inline.
      if (this.inHead && !HEAD_OK.has(name)) this.inHead = false;
      if (BLOCK.has(name)) this.blockBreak();
      this.skipFrom = this.stack.length;
    }
    this.stack.push({ name, skip });
    const scope = this.counts[this.counts.length - 1];
    scope.set(name, (scope.get(name) ?? 0) + 1);
    if (name === "template") this.counts.push(new Map());
    if (!skip) this.startEffects(name, attrs);
    // `<script/>`: the tokenizer does not enter raw text, so neither may the skipping here.
    if (selfClosing && SKIP.has(name)) this.pop();
  }

  private close(name: string): void {
    if (VOID.has(name)) {
      if (name === "br" && this.skipFrom < 0) this.startEffects("br", {}); // </br> acts as <br>
      return;
    }
    // A <template> is counted in the scope around it; everything else in the innermost one.
    const depth = name === "template" && this.counts.length > 1 ? this.counts.length - 2 : this.counts.length - 1;
    const scope = this.counts[depth];
    if ((scope.get(name) ?? 0) > 0) {
      // Present in this scope: pop up to and including the innermost one.
      for (;;) {
        const top = this.stack[this.stack.length - 1];
        this.pop();
        if (top.name === name) break;
      }
    } else if (name === "p" && this.skipFrom < 0) {
      this.blockBreak(); // </p> without <p> acts as <p></p>
    }
  }

  private pop(): void {
    const el = this.stack.pop()!;
    if (el.name === "template" && this.counts.length > 1) this.counts.pop();
    const scope = this.counts[this.counts.length - 1];
    const n = (scope.get(el.name) ?? 1) - 1;
    if (n > 0) scope.set(el.name, n);
    else scope.delete(el.name);
    if (this.skipFrom === this.stack.length) {
      this.skipFrom = -1;
      if (BLOCK.has(el.name)) this.blockBreak();
      return;
    }
    if (!el.skip) this.endEffects(el.name);
  }

  private startEffects(name: string, attrs: Attrs): void {
    if (this.inHead && !HEAD_OK.has(name)) this.inHead = false;
    if (name === "head") {
      this.inHead = true;
      return;
    }
    const lvl = headingLevel(name);
    if (lvl) {
      this.finishHeading();
      this.flushPara();
      this.heading = { level: lvl, parts: [] };
      return;
    }
    if (this.heading && ENDS_HEADING.has(name)) this.finishHeading();
    switch (name) {
      case "pre":
        if (this.preDepth === 0) this.flushPara();
        this.preDepth++;
        this.paraIsPre = true;
        return;
      case "br":
        if (this.heading) this.heading.parts.push(" ");
        else if (this.preDepth > 0) this.parts.push("\n");
        else this.flushPara();
        return;
      case "table":
        this.blockBreak();
        this.tables.push({ headers: null, rows: 0, bodyRows: 0, pendingHeader: null, row: null });
        return;
      case "tr": {
        this.blockBreak();
        const t = this.tables[this.tables.length - 1];
        if (t) {
          t.pendingHeader = null; // a header row followed by a row: its names label the cells
          t.row = { cells: [], allHeader: true, col: 0, cell: null };
        }
        return;
      }
      case "td":
      case "th": {
        const t = this.tables[this.tables.length - 1];
        const row = t?.row;
        if (!t || !row || this.heading) {
          this.inline(" ");
          return;
        }
        this.endCell(row);
        if (row.cells.length > 0) this.parts.push(t.headers ? "; " : " ");
        const label = t.headers?.[row.col];
        if (label && name === "td") this.parts.push(`${label}: `);
        if (name === "td") row.allHeader = false;
        const span = Math.min(1000, Math.max(1, parseInt(attrs.colspan ?? "1", 10) || 1));
        row.cell = { start: this.parts.length, header: name === "th", span };
        return;
      }
    }
    if (BLOCK.has(name)) this.blockBreak();
  }

  private endCell(row: RowState): void {
    if (!row.cell) return;
    row.cells.push(collapseWs(this.parts.slice(row.cell.start).join("")));
    row.col += row.cell.span;
    for (let k = 1; k < row.cell.span; k++) row.cells.push("");
    row.cell = null;
  }

  private endEffects(name: string): void {
    if (headingLevel(name)) {
      this.finishHeading();
      return;
    }
    switch (name) {
      case "head":
        this.inHead = false;
        return;
      case "pre":
        if (this.preDepth > 0) {
          this.preDepth--;
          if (this.preDepth === 0) this.flushPara();
        }
        return;
      case "td":
      case "th": {
        const row = this.tables[this.tables.length - 1]?.row;
        if (row) this.endCell(row);
        else this.inline(" ");
        return;
      }
      case "tr": {
        const t = this.tables[this.tables.length - 1];
        const row = t?.row;
        if (t && row) {
          this.endCell(row);
          t.row = null;
          t.rows++;
          if (t.rows === 1 && row.allHeader && row.cells.length > 0) {
            // The header row: its names label the following rows; on its own only if none follow.
            t.headers = row.cells;
            t.pendingHeader = collapseWs(this.parts.join(""));
            this.parts = [];
            return;
          }
          t.bodyRows++;
        }
        this.blockBreak();
        return;
      }
      case "table": {
        const t = this.tables.pop();
        if (t?.pendingHeader && t.bodyRows === 0) {
          this.flushPara();
          this.b.paragraph(t.pendingHeader);
        }
        this.blockBreak();
        return;
      }
    }
    if (BLOCK.has(name)) this.blockBreak();
  }

  /** Close everything still open and flush the last paragraph. */
  finish(): void {
    while (this.stack.length > 0) this.pop();
    this.finishHeading();
    this.flushPara();
  }
}

const noop = () => {};

export function parseHtml(src: string): Section[] {
  const b = new SectionBuilder();
  const x = new HtmlExtractor(b);
  x.feed(src);
  x.finish();
  return b.finish();
}
