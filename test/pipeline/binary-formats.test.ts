import { describe, it, expect, beforeAll, afterAll } from "vitest";
import {
  parseDocument,
  parseDocumentAsync,
  isBinaryContentType,
  PipelineError,
  SUPPORTED_CONTENT_TYPES,
  TEXT_CONTENT_TYPES,
  PDF_CONTENT_TYPE,
  DOCX_CONTENT_TYPE,
  type Section,
} from "../../lib/pipeline/parse";
import { makePdf } from "../helpers/make-pdf";
import { makeDocx, makeZip, crc32 } from "../helpers/make-docx";

const PDF = "application/pdf";
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const enc = (s: string) => new TextEncoder().encode(s);

/** The PipelineError code a promise rejects with (fails the test on anything else). */
async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PipelineError);
    return (e as PipelineError).code;
  }
  return undefined;
}
async function errorOf(p: Promise<unknown>): Promise<PipelineError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PipelineError);
    return e as PipelineError;
  }
  throw new Error("expected a rejection");
}

/** Deterministic PRNG (mulberry32), so "random" inputs are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function randomBytes(n: number, seed: number): Uint8Array {
  const r = rng(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
}

// Any rejection that escapes the parser (a library promise nobody awaited) fails this file.
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => void unhandled.push(e);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(async () => {
  await new Promise((r) => setTimeout(r, 50));
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

describe("content types", () => {
  it("lists the binary types as supported and binary", () => {
    expect(PDF_CONTENT_TYPE).toBe(PDF);
    expect(DOCX_CONTENT_TYPE).toBe(DOCX);
    expect(SUPPORTED_CONTENT_TYPES).toEqual(["text/markdown", "text/plain", "text/html", PDF, DOCX]);
    expect(TEXT_CONTENT_TYPES).toEqual(["text/markdown", "text/plain", "text/html"]);
    expect(isBinaryContentType("application/pdf")).toBe(true);
    expect(isBinaryContentType(` ${DOCX.toUpperCase()} `)).toBe(true);
    expect(isBinaryContentType("text/html")).toBe(false);
    expect(isBinaryContentType("image/png")).toBe(false);
  });

  it("the synchronous parser refuses binary types and points at parseDocumentAsync", () => {
    for (const ct of [PDF, DOCX]) {
      let err: unknown;
      try {
        parseDocument(ct, makePdf([["x"]]));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PipelineError);
      expect((err as PipelineError).code).toBe("UNSUPPORTED_DOCUMENT");
      expect((err as PipelineError).message).toContain("parseDocumentAsync");
    }
  });

  it("parseDocumentAsync rejects unknown types with UNSUPPORTED_DOCUMENT", async () => {
    expect(await codeOf(parseDocumentAsync("image/png", new Uint8Array([1, 2, 3])))).toBe("UNSUPPORTED_DOCUMENT");
    expect(await codeOf(parseDocumentAsync("application/msword", new Uint8Array([0xd0, 0xcf])))).toBe(
      "UNSUPPORTED_DOCUMENT",
    );
  });
});

describe("parseDocumentAsync for text types", () => {
  const docs: [string, string][] = [
    [
      "text/markdown",
      "---\ntitle: x\n---\n# Title\n\nIntro *para*.\n\n## Sub\n\n```\ncode\n```\n\nMore [link](http://x).",
    ],
    ["text/markdown; charset=utf-8", "Setext\n======\n\nbody"],
    ["text/html", "<h1>A</h1><p>one</p><h2>B</h2><ul><li>two</li></ul>"],
    ["text/plain", "para one\nline two\n\npara two"],
  ];
  it.each(docs)("%s gives exactly what parseDocument gives", async (ct, src) => {
    const sync = parseDocument(ct, enc(src));
    expect(sync.length).toBeGreaterThan(0);
    expect(await parseDocumentAsync(ct, enc(src))).toEqual(sync);
  });

  it("keeps the text errors (as rejections)", async () => {
    expect(await codeOf(parseDocumentAsync("text/plain", new Uint8Array([0x68, 0xff, 0xfe])))).toBe("PARSE_ERROR");
    expect(await codeOf(parseDocumentAsync("text/markdown", enc(" \n\n ")))).toBe("EMPTY_DOCUMENT");
  });
});

describe("PDF", () => {
  const twoPages = () =>
    makePdf([
      [
        "The quick brown fox jumps over the lazy dog.",
        "It was a sunny day in the valley.",
        "",
        "A second paragraph starts (here) after a gap.",
      ],
      ["Page two holds the last sentence, with a \\backslash."],
    ]);

  it("extracts the sentences of a generated two-page PDF, one section per page", async () => {
    const out = await parseDocumentAsync(PDF, twoPages());
    expect(out).toEqual<Section[]>([
      {
        headingPath: ["Page 1"],
        text: "The quick brown fox jumps over the lazy dog. It was a sunny day in the valley.\n\nA second paragraph starts (here) after a gap.",
      },
      { headingPath: ["Page 2"], text: "Page two holds the last sentence, with a \\backslash." },
    ]);
  });

  it("accepts a parameterised content type and leaves the caller's bytes intact", async () => {
    const bytes = twoPages();
    const copy = bytes.slice();
    const out = await parseDocumentAsync("Application/PDF; name=x.pdf", bytes);
    expect(out.map((s) => s.headingPath)).toEqual([["Page 1"], ["Page 2"]]);
    expect(bytes.byteLength).toBe(copy.byteLength); // not detached by the PDF library
    expect(bytes).toEqual(copy);
  });

  it("splits paragraphs on font-size changes and joins words and hyphenated line breaks", async () => {
    const out = await parseDocumentAsync(
      PDF,
      makePdf([
        [
          { text: "Big Heading", size: 20, y: 720 },
          { text: "Body text that is hyphen-", y: 690 },
          { text: "ated across lines.", y: 675 },
          { text: "Left", x: 72, y: 600 },
          { text: "right", x: 200, y: 600 },
        ],
      ]),
    );
    expect(out).toEqual([
      { headingPath: ["Page 1"], text: "Big Heading\n\nBody text that is hyphen-ated across lines.\n\nLeft right" },
    ]);
  });

  it("skips pages without text and reports only pages that have some", async () => {
    const out = await parseDocumentAsync(PDF, makePdf([[], ["only page two"], []]));
    expect(out).toEqual([{ headingPath: ["Page 2"], text: "only page two" }]);
  });

  it("a PDF without any text is EMPTY_DOCUMENT", async () => {
    expect(await codeOf(parseDocumentAsync(PDF, makePdf([[]])))).toBe("EMPTY_DOCUMENT");
    expect(await codeOf(parseDocumentAsync(PDF, makePdf([[], [], ["   "]])))).toBe("EMPTY_DOCUMENT");
  });

  it("stops at the page cap, keeps the pages read and says so", async () => {
    const pages = Array.from({ length: 7 }, (_, i) => [`Sentence on page ${i + 1}.`]);
    const seen: unknown[] = [];
    const out = await parseDocumentAsync(PDF, makePdf(pages), { maxPages: 3, onTruncated: (info) => seen.push(info) });
    expect(out.map((s) => s.text)).toEqual(["Sentence on page 1.", "Sentence on page 2.", "Sentence on page 3."]);
    expect(seen).toEqual([{ totalPages: 7, parsedPages: 3 }]);

    const all: unknown[] = [];
    expect(await parseDocumentAsync(PDF, makePdf(pages), { onTruncated: (i) => all.push(i) })).toHaveLength(7);
    expect(all).toEqual([]); // under the default cap of 2,000
  });

  it("an empty file, random bytes, a bare header and truncated files are PARSE_ERROR", async () => {
    const good = twoPages();
    const inputs: [string, Uint8Array][] = [
      ["empty", new Uint8Array()],
      ["random", randomBytes(4096, 1)],
      ["header only", enc("%PDF-1.4\n")],
      ["header + random", new Uint8Array([...enc("%PDF-1.7\n"), ...randomBytes(2000, 2)])],
      ["text", enc("just some text, not a PDF")],
      ["first half", good.slice(0, Math.floor(good.length / 2))],
      ["missing trailer", good.slice(0, good.length - 40)],
    ];
    for (const [name, bytes] of inputs) {
      const err = await errorOf(parseDocumentAsync(PDF, bytes));
      expect(err.code, name).toBe("PARSE_ERROR");
      expect(err.message.length, name).toBeGreaterThan(5);
    }
    expect((await errorOf(parseDocumentAsync(PDF, new Uint8Array()))).message).toMatch(/empty/);
    expect((await errorOf(parseDocumentAsync(PDF, randomBytes(100, 3)))).message).toMatch(/not a valid PDF/);
  });

  it("a password-protected PDF is PARSE_ERROR saying so", async () => {
    const err = await errorOf(parseDocumentAsync(PDF, makePdf([["secret text"]], { encrypted: true })));
    expect(err.code).toBe("PARSE_ERROR");
    expect(err.message).toMatch(/password/);
  });

  it("randomly damaged PDFs give sections or a PipelineError, never anything else", async () => {
    const good = twoPages();
    const r = rng(42);
    for (let k = 0; k < 40; k++) {
      const bad = good.slice();
      const flips = 1 + Math.floor(r() * 8);
      for (let f = 0; f < flips; f++) bad[Math.floor(r() * bad.length)] = Math.floor(r() * 256);
      try {
        const out = await parseDocumentAsync(PDF, bad);
        expect(out.length).toBeGreaterThan(0);
      } catch (e) {
        expect(e).toBeInstanceOf(PipelineError);
        expect(["PARSE_ERROR", "EMPTY_DOCUMENT"]).toContain((e as PipelineError).code);
      }
    }
  });

  it("gives up with PARSE_LIMIT_EXCEEDED (time) when the time budget runs out", async () => {
    const long = makePdf(Array.from({ length: 300 }, (_, i) => [`Line on page ${i + 1}.`]));
    let timerFired = false;
    const t = setTimeout(() => (timerFired = true), 0);
    const err = await errorOf(parseDocumentAsync(PDF, long, { timeoutMs: 1 }));
    clearTimeout(t);
    expect(err.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(err.message).toMatch(
      /^limit time: parsing took longer than 1 ms \(PARSE_TIMEOUT_MS\); retrying will not help/,
    );
    expect(timerFired).toBe(true); // the event loop kept running during the parse
    // The abandoned parse must not break the next one.
    expect(await parseDocumentAsync(PDF, twoPages())).toHaveLength(2);
  });

  it("an abort signal rejects with its reason", async () => {
    const ac = new AbortController();
    const reason = new Error("shutting down");
    const p = parseDocumentAsync(PDF, twoPages(), { signal: ac.signal });
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    const pre = new AbortController();
    pre.abort(reason);
    await expect(parseDocumentAsync(PDF, twoPages(), { signal: pre.signal })).rejects.toBe(reason);
  });
});

describe("DOCX", () => {
  const sample = () =>
    makeDocx([
      { text: "Title", style: "Heading1" },
      { text: "Sub", style: "Heading2" },
      "First sentence under the subheading & some <markup>.",
      "Second paragraph.",
      { text: "Other", style: "Heading2" },
      "Body of other.",
      { text: "Next chapter", style: "Heading1" },
      "Chapter text.",
    ]);

  it("the ZIP writer's CRC-32 is the standard one", () => {
    expect(crc32(enc("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array())).toBe(0);
  });

  it("Word headings become heading paths", async () => {
    expect(await parseDocumentAsync(DOCX, sample())).toEqual<Section[]>([
      {
        headingPath: ["Title", "Sub"],
        text: "First sentence under the subheading & some <markup>.\n\nSecond paragraph.",
      },
      { headingPath: ["Title", "Other"], text: "Body of other." },
      { headingPath: ["Next chapter"], text: "Chapter text." },
    ]);
  });

  it("text before any heading has an empty heading path", async () => {
    const out = await parseDocumentAsync(DOCX, makeDocx(["Preamble.", { text: "H", style: "Heading1" }, "Body."]));
    expect(out).toEqual([
      { headingPath: [], text: "Preamble." },
      { headingPath: ["H"], text: "Body." },
    ]);
  });

  it("a DOCX without text is EMPTY_DOCUMENT", async () => {
    expect(await codeOf(parseDocumentAsync(DOCX, makeDocx([])))).toBe("EMPTY_DOCUMENT");
    expect(await codeOf(parseDocumentAsync(DOCX, makeDocx(["", "   "])))).toBe("EMPTY_DOCUMENT");
  });

  it("corrupt, truncated and random inputs are PARSE_ERROR", async () => {
    const good = sample();
    const docXml = (s: string) => [
      { name: "[Content_Types].xml", data: "<Types/>" },
      { name: "word/document.xml", data: s },
    ];
    const corruptDeflate = makeZip([{ name: "word/document.xml", data: "<w:document/>".repeat(50) }]);
    corruptDeflate.fill(0xff, 60, 80); // inside the compressed data
    const inputs: [string, Uint8Array][] = [
      ["empty", new Uint8Array()],
      ["random", randomBytes(4096, 7)],
      ["a PDF", makePdf([["x"]])],
      ["zip header + random", new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...randomBytes(3000, 8)])],
      ["first half", good.slice(0, Math.floor(good.length / 2))],
      ["last byte missing", good.slice(0, good.length - 1)],
      ["zip without document.xml", makeZip([{ name: "hello.txt", data: "hi" }])],
      ["malformed document.xml", makeZip(docXml("<w:document><w:body><w:p>"))],
      ["corrupt deflate stream", corruptDeflate],
    ];
    for (const [name, bytes] of inputs) {
      const err = await errorOf(parseDocumentAsync(DOCX, bytes));
      expect(err.code, name).toBe("PARSE_ERROR");
      expect(err.message.length, name).toBeGreaterThan(5);
    }
  });

  it("refuses an archive that declares too many unpacked bytes (zip-bomb guard)", async () => {
    const err = await errorOf(parseDocumentAsync(DOCX, sample(), { maxUnpackedBytes: 100 }));
    expect(err.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(err.message).toMatch(/^limit inflated size: .*DOCX_MAX_INFLATED_BYTES/);
    expect(await parseDocumentAsync(DOCX, sample(), { maxUnpackedBytes: 1_000_000 })).toHaveLength(3);
  });

  it("randomly damaged DOCX files give sections or a PipelineError, never anything else", async () => {
    const good = sample();
    const r = rng(7);
    for (let k = 0; k < 40; k++) {
      const bad = good.slice();
      const flips = 1 + Math.floor(r() * 6);
      for (let f = 0; f < flips; f++) bad[Math.floor(r() * bad.length)] = Math.floor(r() * 256);
      try {
        const out = await parseDocumentAsync(DOCX, bad);
        expect(out.length).toBeGreaterThan(0);
      } catch (e) {
        expect(e).toBeInstanceOf(PipelineError);
        expect(["PARSE_ERROR", "EMPTY_DOCUMENT"]).toContain((e as PipelineError).code);
      }
    }
  });
});
