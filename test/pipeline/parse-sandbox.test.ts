import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from "../../lib/pipeline/parsers/limits";
import { ParsePool } from "../../lib/pipeline/parsers/sandbox";
import { DOCX_CONTENT_TYPE, PipelineError } from "../../lib/pipeline/parse";
import { honestHugeDocx, markdownBracketFlood, docxBomb, pdfFlateBomb, zip64Docx } from "../helpers/hostile-files";

// The parse pool on its own: each limit ends a parse with PARSE_LIMIT_EXCEEDED naming it, a
// process that was killed is replaced, and the caller's event loop keeps running meanwhile.
const pools: ParsePool[] = [];
const poolWith = (limits: Partial<ParseLimits>) => {
  const p = new ParsePool({ ...DEFAULT_PARSE_LIMITS, processes: 1, ...limits });
  pools.push(p);
  return p;
};
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});
const enc = (s: string) => new TextEncoder().encode(s);
async function failure(p: Promise<unknown>): Promise<PipelineError> {
  try {
    await p;
  } catch (e) {
    return e as PipelineError;
  }
  throw new Error("expected the parse to fail");
}

describe("parse process pool", () => {
  it("a parse over the heap limit kills only its process, which is replaced; the next parse works", async () => {
    // The inflated-size limit raised past the file, so only the heap can stop it.
    const pool = poolWith({ heapMb: 64, maxInflatedBytes: 1024 * 1024 * 1024, timeoutMs: 120_000 });
    const err = await failure(pool.parse(DOCX_CONTENT_TYPE, await honestHugeDocx()));
    expect(err.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(err.message).toMatch(
      /^limit heap: parsing needed more than the parse process's 64 MiB heap \(PARSE_MAX_HEAP_MB\); retrying will not help/,
    );
    expect(await pool.parse("text/markdown", enc("# After\n\nstill parsing"))).toEqual([
      { headingPath: ["After"], text: "still parsing" },
    ]);
    expect(pool.started).toBe(2);
    expect(pool.alive).toBe(1);
  }, 120_000);

  it("the wall-clock limit terminates a parse stuck in one synchronous step while the caller's event loop runs on", async () => {
    const pool = poolWith({ timeoutMs: 1500 });
    let maxLag = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      maxLag = Math.max(maxLag, now - last - 20);
      last = now;
    }, 20);
    const t0 = performance.now();
    const err = await failure(pool.parse("text/markdown", markdownBracketFlood()));
    const took = performance.now() - t0;
    clearInterval(tick);
    expect(err.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(err.message).toMatch(/^limit time: parsing took longer than 1500 ms \(PARSE_TIMEOUT_MS\)/);
    expect(took).toBeLessThan(10_000);
    expect(maxLag).toBeLessThan(500);
    expect(await pool.parse("text/plain", enc("fine"))).toEqual([{ headingPath: [], text: "fine" }]);
  }, 60_000);

  it("output limits: extracted text bytes and sections", async () => {
    const pool = poolWith({ maxOutputBytes: 64 * 1024, maxSections: 10 });
    const big = await failure(pool.parse("text/plain", enc("word ".repeat(20_000))));
    expect(big.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(big.message).toMatch(/^limit output: the extracted text is larger than 0\.1 MiB \(PARSE_MAX_OUTPUT_BYTES\)/);
    const many = await failure(
      pool.parse("text/markdown", enc(Array.from({ length: 11 }, (_, i) => `# H${i}\n\nbody ${i}`).join("\n\n"))),
    );
    expect(many.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(many.message).toMatch(
      /^limit sections: the document has more than 10 sections \(PARSE_MAX_SECTIONS\) \(11\)/,
    );
    expect(
      await pool.parse("text/markdown", enc(Array.from({ length: 10 }, (_, i) => `# H${i}\n\nbody ${i}`).join("\n\n"))),
    ).toHaveLength(10);
  });

  it("DOCX: real inflated bytes are counted, whatever the archive declares", async () => {
    const pool = poolWith({ maxInflatedBytes: 8 * 1024 * 1024 });
    const err = await failure(pool.parse(DOCX_CONTENT_TYPE, await docxBomb(64 * 1024 * 1024)));
    expect(err.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(err.message).toMatch(
      /^limit inflated size: the DOCX archive inflates to more than 8 MiB \(DOCX_MAX_INFLATED_BYTES\); retrying/,
    );
  });

  it("DOCX in ZIP64 form: the sizes in its ZIP64 fields are not trusted either", async () => {
    const pool = poolWith({ maxInflatedBytes: 8 * 1024 * 1024 });
    const err = await failure(pool.parse(DOCX_CONTENT_TYPE, await docxBomb(64 * 1024 * 1024, { zip64: true })));
    expect(err.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(err.message).toMatch(/^limit inflated size: /);
    expect(err.message).not.toMatch(/declares/); // counted while inflating, not refused by declared sizes
    // The same archive, small and honest, is read: the ZIP64 form itself is not refused.
    const sections = await pool.parse(DOCX_CONTENT_TYPE, await zip64Docx());
    expect(sections[0].text).toMatch(/^Hello from a ZIP64 archive\./);
  });

  it("PDF: FlateDecode streams are decoded and counted before PDF.js reads the file", async () => {
    const pdf = await pdfFlateBomb(2 * 1024 * 1024);
    const pool = poolWith({ maxDecodedBytes: 1024 * 1024 });
    const err = await failure(pool.parse("application/pdf", pdf));
    expect(err.code).toBe("PARSE_LIMIT_EXCEEDED");
    expect(err.message).toMatch(
      /^limit decoded size: the PDF's compressed streams decode to more than 1 MiB \(PDF_MAX_DECODED_BYTES\)/,
    );
    // Under the limit the same compressed file is read as usual.
    expect(await poolWith({}).parse("application/pdf", pdf)).toEqual([{ headingPath: ["Page 1"], text: "x" }]);
  });

  it("an abort ends a running parse at once (its process replaced) and a queued one without starting it", async () => {
    const pool = poolWith({ timeoutMs: 60_000 });
    const running = new AbortController();
    const queued = new AbortController();
    const a = pool.parse("text/markdown", markdownBracketFlood(), { signal: running.signal });
    const b = pool.parse("text/plain", enc("never parsed"), { signal: queued.signal });
    await new Promise((r) => setTimeout(r, 300));
    const why = new Error("lease lost");
    queued.abort(why);
    running.abort(why);
    await expect(b).rejects.toBe(why);
    await expect(a).rejects.toBe(why);
    expect(await pool.parse("text/plain", enc("next"))).toEqual([{ headingPath: [], text: "next" }]);
    expect(pool.alive).toBe(1);
  }, 30_000);

  it("warm().ready() starts and loads every process before the first parse (the worker awaits it before claiming)", async () => {
    const pool = poolWith({ processes: 2 });
    expect(pool.loaded).toBe(0);
    await pool.warm().ready();
    expect({ alive: pool.alive, loaded: pool.loaded }).toEqual({ alive: 2, loaded: 2 });
    await Promise.all([pool.parse("text/plain", enc("a")), pool.parse("text/plain", enc("b"))]);
    expect(pool.started).toBe(2);
  });

  it("processes are reused between parses", async () => {
    const pool = poolWith({ processes: 2 });
    for (let i = 0; i < 6; i++) await pool.parse("text/plain", enc(`doc ${i}`));
    await Promise.all([0, 1, 2, 3].map((i) => pool.parse("text/plain", enc(`doc ${i}`))));
    expect(pool.started).toBe(2);
  });
});

describe("the document page's hint", () => {
  it("reads the limit back from every PARSE_LIMIT_EXCEEDED message, and nothing from other messages", async () => {
    const { limitExceeded, parseLimitOf, LIMIT_HINTS } = await import("../../lib/pipeline/parsers/limits");
    for (const kind of Object.keys(LIMIT_HINTS) as (keyof typeof LIMIT_HINTS)[]) {
      expect(parseLimitOf(limitExceeded(kind, DEFAULT_PARSE_LIMITS).message)).toEqual({
        kind,
        hint: LIMIT_HINTS[kind],
      });
    }
    expect(parseLimitOf("could not read the PDF: bad xref")).toBeNull();
    expect(parseLimitOf(null)).toBeNull();
  });
});
