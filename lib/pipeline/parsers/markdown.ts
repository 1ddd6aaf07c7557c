// Markdown -> heading-aware sections, from markdown-it's token stream (CommonMark + GFM tables
// and strikethrough).
//
// markdown-it does the parsing that used to leak markup into chunks: reference-link definitions
// are consumed, entities decoded, link destinations with balanced parentheses, indented code,
// block quotes holding headings, and tables. What each token becomes:
//   * top-level ATX/setext headings start sections; a heading inside a quote or list item is a
//     paragraph of its text (the quote's structure is not the document's);
//   * paragraphs: inline text with emphasis, link and image syntax removed (a link is its label,
//     an image its alt text), code spans verbatim, line breaks kept;
//   * fenced and indented code: verbatim, one paragraph;
//   * lists: one paragraph per outermost list, one line per item with its marker ("- ", "1. "),
//     nested items indented;
//   * GFM tables: one paragraph per table, one line per body row, each cell labelled with its
//     column header ("Plan: Basic; Price: $5"), so no pipe or `|---|` row reaches a chunk and a
//     row found on its own still says what its values mean;
//   * raw HTML (blocks and inline tags) goes through the HTML extractor, which keeps its element
//     state across the document: text inside <script>, <template>, hidden elements … is dropped
//     whether it is HTML or Markdown between the tags;
//   * YAML front matter at the very start is dropped.

import MarkdownIt, { type Token } from "markdown-it";
import { SectionBuilder, collapseWs, type Section } from "./common";
import { HtmlExtractor, tableRowText, type TextSink } from "./html";

const md = new MarkdownIt("default", { html: true, linkify: false, typographer: false });

/** Front matter: "---" on the very first line up to the next "---" or "..." line. */
function stripFrontMatter(text: string): string {
  if (!text.startsWith("---")) return text;
  const lines = text.split("\n");
  if (lines.length < 2 || lines[0].trimEnd() !== "---") return text;
  for (let j = 1; j < lines.length; j++) {
    const t = lines[j].trimEnd();
    if (t === "---" || t === "...") return lines.slice(j + 1).join("\n");
  }
  return text;
}

type ListState = { ordered: boolean; indent: string };

export function parseMarkdown(text: string): Section[] {
  const tokens = md.parse(stripFrontMatter(text), {});
  const b = new SectionBuilder();
  let quoteDepth = 0;
  const lists: ListState[] = [];
  let listLines: string[] | null = null; // the outermost open list's lines
  let marker: string | null = null; // the marker the current list item's first line still needs
  let itemIndent = "";

  const nested = () => quoteDepth > 0 || lists.length > 0;
  const block = (text: string) => {
    if (!text.trim() || html.hidden) return;
    if (listLines) {
      const lines = text.split("\n");
      lines.forEach((line, i) => {
        if (i === 0 && marker !== null) {
          listLines!.push(itemIndent + marker + line);
          marker = null;
        } else listLines!.push(itemIndent + "  " + line);
      });
    } else b.paragraph(text);
  };
  const sink: TextSink = {
    heading: (level, t) => {
      if (html.hidden) return;
      if (nested()) block(collapseWs(t));
      else b.heading(level, t);
    },
    paragraph: (t) => block(t),
  };
  const html = new HtmlExtractor(sink);

  const inline = (children: Token[] | null): string => {
    const out: string[] = [];
    for (const t of children ?? []) {
      switch (t.type) {
        case "text":
        case "code_inline":
          if (!html.hidden) out.push(t.content);
          break;
        case "softbreak":
        case "hardbreak":
          if (!html.hidden) out.push("\n");
          break;
        case "image":
          if (!html.hidden) out.push(inline(t.children));
          break;
        case "html_inline":
          html.feed(t.content);
          if (/^<br\s*\/?>$/i.test(t.content) && !html.hidden) out.push("\n");
          break;
        default:
          // link_open/close, em/strong/s markers: no text of their own
          break;
      }
    }
    // NBSP (&nbsp;) is a space to a reader and to the tokenizers downstream.
    return out.join("").replace(/\u00a0/g, " ");
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    switch (t.type) {
      case "heading_open": {
        const text = inline(tokens[i + 1]?.children ?? null);
        i += 2; // inline, heading_close
        sink.heading(Number(t.tag.slice(1)), text);
        break;
      }
      case "paragraph_open": {
        const text = inline(tokens[i + 1]?.children ?? null);
        i += 2;
        block(cleanLines(text));
        break;
      }
      case "fence":
      case "code_block":
        block(codeText(t.content));
        break;
      case "html_block":
        html.feed(t.content);
        html.flushParagraph();
        break;
      case "blockquote_open":
        quoteDepth++;
        break;
      case "blockquote_close":
        quoteDepth--;
        break;
      case "bullet_list_open":
      case "ordered_list_open":
        if (!listLines) listLines = [];
        lists.push({ ordered: t.type === "ordered_list_open", indent: "  ".repeat(lists.length) });
        break;
      case "bullet_list_close":
      case "ordered_list_close":
        lists.pop();
        if (lists.length === 0 && listLines) {
          const text = listLines.join("\n");
          listLines = null;
          block(text);
        }
        break;
      case "list_item_open": {
        const l = lists[lists.length - 1];
        itemIndent = l?.indent ?? "";
        marker = l?.ordered ? `${t.info}${t.markup} ` : `${t.markup} `;
        break;
      }
      case "list_item_close": {
        if (marker !== null && listLines && !html.hidden) listLines.push(itemIndent + marker.trimEnd()); // an empty item
        marker = null;
        const l = lists[lists.length - 1];
        itemIndent = l?.indent ?? "";
        break;
      }
      case "table_open": {
        let end = i + 1;
        while (end < tokens.length && tokens[end].type !== "table_close") end++;
        block(tableText(tokens.slice(i + 1, end), inline));
        i = end;
        break;
      }
      default:
        // hr, *_close of paragraphs handled above, tbody … : nothing to emit
        break;
    }
  }
  html.finish();
  return b.finish();
}

/** Paragraph text: each line trimmed, the whole trimmed. */
function cleanLines(s: string): string {
  return s
    .split("\n")
    .map((l) => l.trim())
    .join("\n")
    .trim();
}

/** Code as written: leading blank lines and trailing whitespace dropped, indentation kept. */
function codeText(s: string): string {
  const lines = s.split("\n");
  let k = 0;
  while (k < lines.length && lines[k].trim() === "") k++;
  return lines.slice(k).join("\n").trimEnd();
}

/** A GFM table's tokens (between table_open and table_close) as "Header: value" lines. */
function tableText(tokens: Token[], inline: (children: Token[] | null) => string): string {
  let headers: string[] | null = null;
  const rows: string[] = [];
  let cells: string[] = [];
  let inHead = false;
  for (const t of tokens) {
    if (t.type === "thead_open") inHead = true;
    else if (t.type === "thead_close") inHead = false;
    else if (t.type === "tr_open") cells = [];
    else if (t.type === "inline") cells.push(collapseWs(inline(t.children)));
    else if (t.type === "tr_close") {
      if (inHead) headers = cells;
      else rows.push(tableRowText(headers, cells));
    }
  }
  if (rows.length === 0) return (headers ?? []).filter(Boolean).join("; ");
  return rows.filter(Boolean).join("\n");
}
