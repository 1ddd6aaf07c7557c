// Which character encoding a text document's bytes are in, and decoding them.
//
// The order is the one browsers use (WHATWG Encoding / HTML "determining the character
// encoding"), cut down to what a stored document has:
//   1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE) wins over everything;
//   2. the content type's `charset` parameter;
//   3. HTML only: a <meta charset> / <meta http-equiv="Content-Type" content="...charset=...">
//      within the first 1024 bytes (a label there that names UTF-16 means UTF-8, one nobody
//      knows is skipped, as browsers do);
//   4. UTF-8.
// Labels are resolved by TextDecoder (the WHATWG label table, so "latin1" and "iso-8859-1" read
// as windows-1252, exactly as a browser reads such a page). Decoding is strict: bytes that are
// not valid in the chosen encoding are a PARSE_ERROR, never silently replaced by U+FFFD. A
// declared charset TextDecoder does not know is UNSUPPORTED_DOCUMENT: both are non-retryable,
// since the same bytes will fail the same way on every attempt.

import { Tokenizer } from "htmlparser2";
import { PipelineError } from "./parsers/common";

export type CharsetSource = "bom" | "parameter" | "meta" | "default";
export type ResolvedCharset = { encoding: string; source: CharsetSource };

const PRESCAN_BYTES = 1024;
const noop = () => {};

/** Lower-case media type without parameters ("Text/HTML; charset=utf-8" -> "text/html"). */
export function normaliseContentType(ct: string): string {
  const semi = ct.indexOf(";");
  return (semi >= 0 ? ct.slice(0, semi) : ct).trim().toLowerCase();
}

/** The raw `charset` parameter of a content type (unquoted, trimmed), or null when there is none. */
export function charsetParameter(contentType: string): string | null {
  const semi = contentType.indexOf(";");
  if (semi < 0) return null;
  // Parameters are `name=value` or `name="quoted value"`; a quoted value may hold ';'.
  const re = /;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  re.lastIndex = semi;
  for (let m = re.exec(contentType); m; m = re.exec(contentType)) {
    if (m[1].toLowerCase() !== "charset") continue;
    let v = m[2].trim();
    if (v.startsWith('"')) v = v.slice(1, -1).replace(/\\(.)/g, "$1");
    v = v.trim();
    return v === "" ? null : v;
  }
  return null;
}

/** The WHATWG encoding name of a label ("Latin1" -> "windows-1252"), or null if unknown. */
export function encodingForLabel(label: string): string | null {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

function bomEncoding(b: Uint8Array): string | null {
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return "utf-8";
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return "utf-16be";
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return "utf-16le";
  return null;
}

/**
 * The encoding a `<meta>` in the first 1024 bytes names, or null. The prefix is read as
 * windows-1252 (every byte is a character, and the markup that matters is ASCII) through
 * htmlparser2's tokenizer, so comments, quoting and attribute syntax are handled as in the page.
 */
export function sniffMetaCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder("windows-1252").decode(bytes.subarray(0, PRESCAN_BYTES));
  if (!/<meta/i.test(head)) return null;
  let found: string | null = null;
  let inMeta = false;
  let attrName = "";
  let attrValue = "";
  let attrs = new Map<string, string>();
  const tokenizer = new Tokenizer(
    { xmlMode: false, decodeEntities: true },
    {
      onopentagname(start, end) {
        inMeta = head.slice(start, end).toLowerCase() === "meta";
        attrs = new Map();
      },
      onattribname(start, end) {
        attrName = head.slice(start, end).toLowerCase();
        attrValue = "";
      },
      onattribdata(start, end) {
        attrValue += head.slice(start, end);
      },
      onattribentity(cp) {
        attrValue += String.fromCodePoint(cp);
      },
      onattribend() {
        if (inMeta && !attrs.has(attrName)) attrs.set(attrName, attrValue);
      },
      onopentagend() {
        if (inMeta && found === null) found = metaEncoding(attrs);
        inMeta = false;
      },
      onselfclosingtag() {
        if (inMeta && found === null) found = metaEncoding(attrs);
        inMeta = false;
      },
      oncdata: noop,
      onclosetag: noop,
      oncomment: noop,
      ondeclaration: noop,
      onend: noop,
      onprocessinginstruction: noop,
      ontext: noop,
      ontextentity: noop,
    },
  );
  tokenizer.write(head);
  tokenizer.end();
  return found;
}

/** What one <meta>'s attributes say about the encoding (WHATWG prescan rules), or null. */
function metaEncoding(attrs: Map<string, string>): string | null {
  let label: string | null = null;
  if (attrs.has("charset")) label = attrs.get("charset")!;
  else if ((attrs.get("http-equiv") ?? "").trim().toLowerCase() === "content-type") {
    const m = /charset\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s;"']+))/i.exec(attrs.get("content") ?? "");
    if (m) label = m[1] ?? m[2] ?? m[3] ?? null;
  }
  if (label === null) return null;
  const enc = label.trim().toLowerCase() === "x-user-defined" ? "windows-1252" : encodingForLabel(label);
  if (enc === null) return null;
  // A page cannot declare itself UTF-16 in ASCII-compatible bytes: browsers take it as UTF-8.
  return enc === "utf-16le" || enc === "utf-16be" ? "utf-8" : enc;
}

/**
 * The encoding to read `bytes` with. Throws UNSUPPORTED_DOCUMENT when the content type declares
 * a charset TextDecoder does not know.
 */
export function resolveCharset(contentType: string, bytes: Uint8Array): ResolvedCharset {
  const declared = charsetParameter(contentType);
  let fromParameter: string | null = null;
  if (declared !== null) {
    fromParameter = encodingForLabel(declared);
    if (fromParameter === null) {
      throw new PipelineError(
        "UNSUPPORTED_DOCUMENT",
        `the document's charset "${declared.slice(0, 60)}" is not one this server can decode`,
      );
    }
  }
  const bom = bomEncoding(bytes);
  if (bom) return { encoding: bom, source: "bom" };
  if (fromParameter) return { encoding: fromParameter, source: "parameter" };
  if (normaliseContentType(contentType) === "text/html") {
    const meta = sniffMetaCharset(bytes);
    if (meta) return { encoding: meta, source: "meta" };
  }
  return { encoding: "utf-8", source: "default" };
}

// Bytes 0x80–0x9F in windows-1252 (the WHATWG index; five bytes map to themselves). Node 20.18.3
// and later decode windows-1252 — and so every "latin1"/"iso-8859-1" label — as ISO-8859-1,
// giving C1 controls for these bytes (nodejs/node#56542, #60888); this table puts right what it
// returns. On a Node that decodes correctly no C1 characters but the five identities come back,
// so the repair changes nothing there.
const WINDOWS_1252_C1 =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

function repairWindows1252(s: string): string {
  return s.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]);
}

/** Strict decode in `encoding`; a byte order mark of that encoding is dropped. */
export function decodeStrict(bytes: Uint8Array, encoding: string): string {
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new PipelineError(
      "PARSE_ERROR",
      encoding === "utf-8" ? "the document is not valid UTF-8 text" : `the document is not valid ${encoding} text`,
    );
  }
  return encoding === "windows-1252" ? repairWindows1252(text) : text;
}

/** The document's text: `resolveCharset`, then a strict decode. */
export function decodeDocumentText(contentType: string, bytes: Uint8Array): string {
  return decodeStrict(bytes, resolveCharset(contentType, bytes).encoding);
}

/**
 * Publish-time view of a text document: its text exactly as the parser will read it, and the
 * content type to store with the bytes so that it does.
 *
 * `sentAsString`: the content arrived as a JSON string, so its bytes are UTF-8 whatever charset
 * the content type names (that label described bytes the client had, not the ones stored).
 *
 * The stored type carries a `charset` parameter only when the parser would otherwise pick a
 * different encoding (a Latin-1 upload, or UTF-8 HTML whose <meta> claims another charset), and
 * then with the WHATWG name of the encoding used; otherwise the bare media type, as before.
 */
export function prepareTextContent(
  contentType: string,
  bytes: Uint8Array,
  opts: { sentAsString: boolean },
): { contentType: string; text: string; encoding: string } {
  const type = normaliseContentType(contentType);
  const encoding = opts.sentAsString ? "utf-8" : resolveCharset(contentType, bytes).encoding;
  const text = decodeStrict(bytes, encoding);
  const implied = resolveCharset(type, bytes).encoding;
  return { contentType: implied === encoding ? type : `${type}; charset=${encoding}`, text, encoding };
}
