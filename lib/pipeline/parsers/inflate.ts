// Decompression bombs, measured rather than believed: what an archive or a PDF says about its
// sizes is written by whoever made the file, so both checks inflate the data (discarding it as
// it comes) and count the bytes that really come out, stopping at the limit. Memory stays at one
// chunk; the parse process's heap and time limits remain the backstop for what slips past.

import { createInflate, createInflateRaw } from "node:zlib";
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { PipelineError, errorSummary } from "./common";

/** Counts bytes from `stream`, destroying it once the count passes `budget`; resolves with the count. */
function countStream(stream: Readable, budget: number): Promise<{ bytes: number; over: boolean; error?: unknown }> {
  return new Promise((resolve) => {
    let bytes = 0;
    let done = false;
    const end = (over: boolean, error?: unknown) => {
      if (done) return;
      done = true;
      resolve({ bytes, over, error });
    };
    stream.on("data", (c: Buffer) => {
      bytes += c.length;
      if (bytes > budget) {
        end(true);
        stream.destroy();
      }
    });
    stream.on("end", () => end(false));
    stream.on("error", (e) => end(false, e));
    stream.on("close", () => end(false));
  });
}

/**
 * DOCX: inflate every entry of the ZIP archive (yauzl, ZIP64 included) and sum what comes out;
 * returns the total, or `null` when it passes `max`. Declared sizes are not trusted: yauzl's size
 * validation is off so an entry that declares 1 KB and inflates to 1 GB is counted to the limit,
 * not refused as "corrupt" (it is a bomb, and the code says so).
 */
export async function zipInflatedBytes(content: Uint8Array, max: number): Promise<number | null> {
  const buffer = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(
      buffer,
      { lazyEntries: true, validateEntrySizes: false, decodeStrings: true, strictFileNames: false },
      (err, z) => (err ? reject(err) : resolve(z)),
    ),
  ).catch((e: unknown) => {
    throw new PipelineError("PARSE_ERROR", `not a valid DOCX file: ${errorSummary(e)}`);
  });
  let total = 0;
  try {
    return await new Promise<number | null>((resolve, reject) => {
      zip.on("error", (e) => reject(new PipelineError("PARSE_ERROR", `not a valid DOCX file: ${errorSummary(e)}`)));
      zip.on("end", () => resolve(total));
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith("/")) return zip.readEntry();
        zip.openReadStream(entry, (err, stream) => {
          if (err) return reject(new PipelineError("PARSE_ERROR", `not a valid DOCX file: ${errorSummary(err)}`));
          void countStream(stream, max - total).then((r) => {
            total += r.bytes;
            if (r.over) return resolve(null);
            // A damaged entry is the DOCX library's to judge (it may never read that part).
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

const STREAM = Buffer.from("stream");
const ENDSTREAM = Buffer.from("endstream");

/**
 * PDF: inflate every FlateDecode stream (content streams, object streams, fonts; not images,
 * which text extraction never decodes) and sum what comes out; returns the total, or `null` when
 * it passes `max`. Found by scanning for `stream`…`endstream` after a dictionary that names
 * /FlateDecode; a stream that fails to inflate is counted as far as it got (PDF.js judges it).
 */
export async function pdfDecodedBytes(content: Uint8Array, max: number): Promise<number | null> {
  const buf = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  let total = 0;
  let from = 0;
  for (;;) {
    const at = buf.indexOf(STREAM, from);
    if (at < 0) return total;
    from = at + STREAM.length;
    // "endstream" also contains "stream"; and the keyword must end its dictionary's line.
    if (at >= 3 && buf.subarray(at - 3, at).toString("latin1") === "end") continue;
    let start = from;
    if (buf[start] === 0x0d) start++;
    if (buf[start] === 0x0a) start++;
    if (start === from) continue; // "stream" inside a word or a string, not the keyword
    const dictFrom = buf.lastIndexOf("<<", at);
    const dict = dictFrom >= 0 ? buf.subarray(dictFrom, at).toString("latin1") : "";
    if (!/\/FlateDecode\b/.test(dict) || /\/Subtype\s*\/Image\b/.test(dict)) continue;
    const endAt = buf.indexOf(ENDSTREAM, start);
    const data = buf.subarray(start, endAt < 0 ? buf.length : endAt);
    const r = await countStream(inflating(data), max - total);
    total += r.bytes;
    if (r.over) return null;
    from = endAt < 0 ? buf.length : endAt + ENDSTREAM.length;
  }
}

/** A readable of `data` inflated: zlib-wrapped as FlateDecode is, raw deflate when the header is missing. */
function inflating(data: Buffer): Readable {
  const z = data[0] === 0x78 ? createInflate() : createInflateRaw();
  // Feed in slices so the inflater's output is pulled chunk by chunk, never buffered whole.
  let p = 0;
  const SLICE = 64 * 1024;
  const pump = () => {
    while (p < data.length) {
      const ok = z.write(data.subarray(p, (p += SLICE)));
      if (!ok) return void z.once("drain", pump);
    }
    z.end();
  };
  pump();
  return z;
}
