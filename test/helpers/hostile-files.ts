// Hostile files, built in the test itself (nothing checked in): decompression bombs stream through
// zlib so a 1 GB payload never exists in memory, only its ~1 MB of deflate output.

import { createDeflate, createDeflateRaw, crc32 } from "node:zlib";

const MiB = 1024 * 1024;

/** Deflates `total` bytes produced by repeating `unit` (zlib-wrapped or raw), with the CRC-32 of what went in. */
async function deflateRepeated(
  unit: Uint8Array,
  total: number,
  raw: boolean,
  head = new Uint8Array(),
  tail = new Uint8Array(),
): Promise<{ body: Uint8Array; size: number; crc: number }> {
  const z = raw ? createDeflateRaw({ level: 9, memLevel: 9 }) : createDeflate({ level: 9, memLevel: 9 });
  const out: Buffer[] = [];
  z.on("data", (c: Buffer) => out.push(c));
  const done = new Promise<void>((resolve, reject) => {
    z.on("end", resolve);
    z.on("error", reject);
  });
  let crc = 0;
  let size = 0;
  const write = async (b: Uint8Array) => {
    crc = crc32(b, crc);
    size += b.length;
    if (!z.write(b)) await new Promise((r) => z.once("drain", r));
  };
  await write(head);
  const block = new Uint8Array(Math.ceil(MiB / unit.length) * unit.length);
  for (let i = 0; i < block.length; i += unit.length) block.set(unit, i);
  // Whole units only, so the repeated markup stays well-formed.
  let left = Math.floor((total - head.length - tail.length) / unit.length) * unit.length;
  while (left > 0) {
    const n = Math.min(left, block.length);
    await write(block.subarray(0, n));
    left -= n;
  }
  await write(tail);
  z.end();
  await done;
  return { body: new Uint8Array(Buffer.concat(out)), size, crc };
}

type RawEntry = { name: string; body: Uint8Array; method: 0 | 8; crc: number; declaredSize: number };

/**
 * A ZIP of pre-compressed entries whose central directory and local headers say `declaredSize`.
 * `zip64`: every size and offset is 0xFFFFFFFF in the classic fields and given in ZIP64 extra
 * fields, with a ZIP64 end record and locator, as archivers write past 4 GiB.
 */
function zipOf(entries: RawEntry[], zip64 = false): Uint8Array {
  const M32 = 0xffffffff;
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = enc.encode(e.name);
    const localExtra = zip64 ? 20 : 0;
    const local = new Uint8Array(30 + name.length + localExtra);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, zip64 ? 45 : 20, true);
    lv.setUint16(8, e.method, true);
    lv.setUint16(12, 0x21, true);
    lv.setUint32(14, e.crc, true);
    lv.setUint32(18, zip64 ? M32 : e.body.length, true);
    lv.setUint32(22, zip64 ? M32 : e.declaredSize, true);
    lv.setUint16(26, name.length, true);
    lv.setUint16(28, localExtra, true);
    local.set(name, 30);
    if (zip64) {
      const x = 30 + name.length;
      lv.setUint16(x, 0x0001, true);
      lv.setUint16(x + 2, 16, true);
      lv.setBigUint64(x + 4, BigInt(e.declaredSize), true);
      lv.setBigUint64(x + 12, BigInt(e.body.length), true);
    }
    const cdExtra = zip64 ? 28 : 0;
    const cd = new Uint8Array(46 + name.length + cdExtra);
    const cv = new DataView(cd.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, zip64 ? 45 : 20, true);
    cv.setUint16(6, zip64 ? 45 : 20, true);
    cv.setUint16(10, e.method, true);
    cv.setUint16(14, 0x21, true);
    cv.setUint32(16, e.crc, true);
    cv.setUint32(20, zip64 ? M32 : e.body.length, true);
    cv.setUint32(24, zip64 ? M32 : e.declaredSize, true);
    cv.setUint16(28, name.length, true);
    cv.setUint16(30, cdExtra, true);
    cv.setUint32(42, zip64 ? M32 : offset, true);
    cd.set(name, 46);
    if (zip64) {
      const x = 46 + name.length;
      cv.setUint16(x, 0x0001, true);
      cv.setUint16(x + 2, 24, true);
      cv.setBigUint64(x + 4, BigInt(e.declaredSize), true);
      cv.setBigUint64(x + 12, BigInt(e.body.length), true);
      cv.setBigUint64(x + 20, BigInt(offset), true);
    }
    parts.push(local, e.body);
    central.push(cd);
    offset += local.length + e.body.length;
  }
  const cdSize = central.reduce((n, c) => n + c.length, 0);
  const tail: Uint8Array[] = [];
  if (zip64) {
    const rec = new Uint8Array(56);
    const rv = new DataView(rec.buffer);
    rv.setUint32(0, 0x06064b50, true);
    rv.setBigUint64(4, 44n, true);
    rv.setUint16(12, 45, true);
    rv.setUint16(14, 45, true);
    rv.setBigUint64(24, BigInt(entries.length), true);
    rv.setBigUint64(32, BigInt(entries.length), true);
    rv.setBigUint64(40, BigInt(cdSize), true);
    rv.setBigUint64(48, BigInt(offset), true);
    const loc = new Uint8Array(20);
    const lv = new DataView(loc.buffer);
    lv.setUint32(0, 0x07064b50, true);
    lv.setBigUint64(8, BigInt(offset + cdSize), true);
    lv.setUint32(16, 1, true);
    tail.push(rec, loc);
  }
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, zip64 ? 0xffff : entries.length, true);
  ev.setUint16(10, zip64 ? 0xffff : entries.length, true);
  ev.setUint32(12, zip64 ? M32 : cdSize, true);
  ev.setUint32(16, zip64 ? M32 : offset, true);
  return new Uint8Array(Buffer.concat([...parts, ...central, ...tail, end]));
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const enc = (s: string) => new TextEncoder().encode(s);

async function docxWithBody(
  unit: string,
  bytes: number,
  declaredSize: number | "honest",
  open = "",
  close = "",
  zip64 = false,
): Promise<Uint8Array> {
  const head = enc(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>${open}`);
  const tail = enc(`${close}</w:body></w:document>`);
  const doc = await deflateRepeated(enc(unit), bytes, true, head, tail);
  const small = async (name: string, s: string): Promise<RawEntry> => {
    const d = await deflateRepeated(enc(s), enc(s).length, true);
    return { name, body: d.body, method: 8, crc: d.crc, declaredSize: d.size };
  };
  return zipOf(
    [
      await small("[Content_Types].xml", CONTENT_TYPES),
      await small("_rels/.rels", RELS),
      {
        name: "word/document.xml",
        body: doc.body,
        method: 8,
        crc: doc.crc,
        declaredSize: declaredSize === "honest" ? doc.size : declaredSize,
      },
    ],
    zip64,
  );
}

/** A DOCX whose word/document.xml inflates to `bytes` (1 GiB) while its headers declare 1 KB. */
export function docxBomb(bytes = 1024 * MiB, opts: { zip64?: boolean } = {}): Promise<Uint8Array> {
  // One endless run of text: deflate's longest matches, so 1 GiB is ~1 MB of archive.
  return docxWithBody("0".repeat(1024), bytes, 1024, "<w:p><w:r><w:t>", "</w:t></w:r></w:p>", opts.zip64);
}

/** An honest DOCX: word/document.xml is `bytes` (200 MB) of real paragraphs, sizes declared truly. */
export function honestHugeDocx(bytes = 200 * 1000 * 1000): Promise<Uint8Array> {
  return docxWithBody(
    "<w:p><w:r><w:t>The quarterly report repeats this sentence about revenue, costs and staffing.</w:t></w:r></w:p>",
    bytes,
    "honest",
  );
}

/** A one-page PDF whose content stream is `bytes` (1 GiB) of spaces behind /FlateDecode. */
export async function pdfFlateBomb(bytes = 1024 * MiB): Promise<Uint8Array> {
  const stream = await deflateRepeated(enc(" ".repeat(1024)), bytes, false, enc("BT /F1 12 Tf 72 720 Td (x) Tj ET"));
  const objs = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    null,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  const chunks: Buffer[] = [];
  let len = 0;
  const push = (b: Buffer) => {
    chunks.push(b);
    len += b.length;
  };
  push(Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1"));
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(len);
    if (o === null) {
      push(Buffer.from(`${i + 1} 0 obj\n<< /Length ${stream.body.length} /Filter /FlateDecode >>\nstream\n`, "latin1"));
      push(Buffer.from(stream.body));
      push(Buffer.from("\nendstream\nendobj\n", "latin1"));
    } else push(Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, "latin1"));
  });
  const xref = len;
  let x = `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) x += `${String(o).padStart(10, "0")} 00000 n \n`;
  push(Buffer.from(`${x}trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`, "latin1"));
  return new Uint8Array(Buffer.concat(chunks));
}

/** 10 MiB (less a little, to stay within MAX_CONTENT_BYTES) of "[": markdown-it's slowest input. */
export function markdownBracketFlood(bytes = 10 * MiB - 1024): Uint8Array {
  return new Uint8Array(Buffer.alloc(bytes, "["));
}

/** A small, honest DOCX written in ZIP64 form (sizes only in the ZIP64 fields). */
export function zip64Docx(): Promise<Uint8Array> {
  return docxWithBody("<w:p><w:r><w:t>Hello from a ZIP64 archive.</w:t></w:r></w:p>", 4000, "honest", "", "", true);
}
