// A tiny hand-written PDF 1.4 generator for tests: Helvetica text, one or more pages, a correct
// cross-reference table. No dependencies, so fixtures are generated instead of checked in.
//
// Each page is a list of lines drawn top-down (`BT /F1 12 Tf x y Td (text) Tj ET`). An empty
// string leaves a blank line (a large vertical gap, i.e. a paragraph break for the parser).

export type PdfLine = string | { text: string; x?: number; y?: number; size?: number };

export type MakePdfOptions = {
  /** Font size of lines that do not give their own (default 12). */
  fontSize?: number;
  /** Baseline-to-baseline distance (default fontSize * 1.25). */
  leading?: number;
  /**
   * Add a Standard security handler (RC4, revision 2) whose check values match no password,
   * so a reader sees a password-protected file. The text is left unencrypted: nobody can open
   * it anyway.
   */
  encrypted?: boolean;
  /** Extra entries written verbatim into the catalog dictionary (e.g. "/PageMode /UseNone"). */
  catalogExtra?: string;
  /**
   * A document outline (bookmarks). Each entry points at a page (1-based) and optionally a
   * vertical position on it (PDF units from the bottom, default the top of the page); `named`
   * makes the entry refer to a named destination (catalog /Dests) instead of an explicit one.
   */
  outline?: PdfOutlineEntry[];
};

export type PdfOutlineEntry = {
  title: string;
  page: number;
  y?: number;
  named?: boolean;
  children?: PdfOutlineEntry[];
};

const PAGE_W = 612;
const PAGE_H = 792;

/** Escape a string for a PDF literal string; only Latin-1 is representable here. */
function pdfString(s: string): string {
  let out = "(";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c > 0xff) throw new Error(`makePdf: character U+${c.toString(16)} is outside Latin-1`);
    if (ch === "(" || ch === ")" || ch === "\\") out += "\\" + ch;
    else if (c < 32 || c > 126) out += "\\" + c.toString(8).padStart(3, "0");
    else out += ch;
  }
  return out + ")";
}

function contentStream(lines: PdfLine[], opts: MakePdfOptions): string {
  const size0 = opts.fontSize ?? 12;
  const leading = opts.leading ?? size0 * 1.25;
  const ops: string[] = [];
  let y = PAGE_H - 72;
  for (const line of lines) {
    const l = typeof line === "string" ? { text: line } : line;
    const size = l.size ?? size0;
    const x = l.x ?? 72;
    const yy = l.y ?? y;
    if (l.text !== "") ops.push(`BT /F1 ${size} Tf ${x} ${yy} Td ${pdfString(l.text)} Tj ET`);
    y = yy - (l.size ? l.size * 1.25 : leading);
  }
  return ops.join("\n") + "\n";
}

/**
 * Build a PDF whose pages hold the given lines. `makePdf([[]])` is a valid one-page PDF with no
 * text at all.
 */
export function makePdf(pages: PdfLine[][], opts: MakePdfOptions = {}): Uint8Array {
  if (pages.length === 0) throw new Error("makePdf: at least one page");
  // Object numbers: 1 catalog, 2 page tree, 3 font, then (page, content) pairs, then encrypt.
  const objects: string[] = [];
  const pageRefs: string[] = [];
  const firstPage = 4;
  objects[1] = `<< /Type /Catalog /Pages 2 0 R${opts.catalogExtra ? " " + opts.catalogExtra : ""} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  pages.forEach((lines, i) => {
    const pageObj = firstPage + 2 * i;
    const contentObj = pageObj + 1;
    pageRefs.push(`${pageObj} 0 R`);
    objects[pageObj] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_W} ${PAGE_H}] ` +
      `/Resources << /Font << /F1 3 0 R >> >> /Contents ${contentObj} 0 R >>`;
    const stream = contentStream(lines, opts);
    objects[contentObj] = `<< /Length ${latin1Length(stream)} >>\nstream\n${stream}endstream`;
  });
  objects[2] = `<< /Type /Pages /Kids [${pageRefs.join(" ")}] /Count ${pages.length} >>`;
  if (opts.outline?.length) {
    const { outlinesRef, dests } = addOutline(objects, opts.outline, pageRefs);
    const extra = ` /Outlines ${outlinesRef} /PageMode /UseOutlines` + (dests ? ` /Dests << ${dests} >>` : "");
    objects[1] = objects[1].replace(/ >>$/, `${extra} >>`);
  }
  let encryptRef = "";
  if (opts.encrypted) {
    const n = objects.length;
    const hex32 = (b: number) =>
      "<" + Array.from({ length: 32 }, (_, i) => ((b + i * 7) & 0xff).toString(16).padStart(2, "0")).join("") + ">";
    objects[n] = `<< /Filter /Standard /V 1 /R 2 /O ${hex32(0x11)} /U ${hex32(0x5a)} /P -44 >>`;
    encryptRef = ` /Encrypt ${n} 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]`;
  }

  // The header's second line holds bytes >= 128 so tools treat the file as binary.
  let out = "%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n";
  const offsets: number[] = [];
  for (let i = 1; i < objects.length; i++) {
    offsets[i] = latin1Length(out);
    out += `${i} 0 obj\n${objects[i]}\nendobj\n`;
  }
  const xrefAt = latin1Length(out);
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let i = 1; i < objects.length; i++) out += `${String(offsets[i]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R${encryptRef} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return latin1Bytes(out);
}

/**
 * Outline items as objects appended to `objects`: one /Outlines root, then every entry with its
 * /Parent, /Prev, /Next, /First, /Last and /Count links. Returns the root's reference and the
 * catalog /Dests entries for named destinations.
 */
function addOutline(
  objects: string[],
  entries: PdfOutlineEntry[],
  pageRefs: string[],
): { outlinesRef: string; dests: string } {
  const destNames: string[] = [];
  const rootNum = objects.length;
  objects[rootNum] = ""; // filled in below, once the children have numbers
  const dest = (e: PdfOutlineEntry) => {
    const ref = pageRefs[e.page - 1];
    if (!ref) throw new Error(`makePdf: outline entry "${e.title}" points at missing page ${e.page}`);
    return `[${ref} /XYZ 0 ${e.y ?? PAGE_H} 0]`;
  };
  const count = (list: PdfOutlineEntry[]): number => list.reduce((n, e) => n + 1 + count(e.children ?? []), 0);
  const place = (list: PdfOutlineEntry[], parentNum: number): number[] => {
    const nums = list.map(() => {
      const n = objects.length;
      objects[n] = "";
      return n;
    });
    list.forEach((e, i) => {
      const kids = place(e.children ?? [], nums[i]);
      let target: string;
      if (e.named) {
        const name = `d${destNames.length}`;
        destNames.push(`/${name} ${dest(e)}`);
        target = `/Dest /${name}`;
      } else target = `/Dest ${dest(e)}`;
      const links = [
        `/Parent ${parentNum} 0 R`,
        i > 0 ? `/Prev ${nums[i - 1]} 0 R` : "",
        i < nums.length - 1 ? `/Next ${nums[i + 1]} 0 R` : "",
        kids.length ? `/First ${kids[0]} 0 R /Last ${kids[kids.length - 1]} 0 R /Count ${count(e.children ?? [])}` : "",
      ].filter(Boolean);
      objects[nums[i]] = `<< /Title ${pdfString(e.title)} ${target} ${links.join(" ")} >>`;
    });
    return nums;
  };
  const top = place(entries, rootNum);
  objects[rootNum] =
    `<< /Type /Outlines /First ${top[0]} 0 R /Last ${top[top.length - 1]} 0 R /Count ${count(entries)} >>`;
  return { outlinesRef: `${rootNum} 0 R`, dests: destNames.join(" ") };
}

function latin1Length(s: string): number {
  return s.length; // every character written is < 256 (pdfString enforces it for text)
}

function latin1Bytes(s: string): Uint8Array {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
  return b;
}
