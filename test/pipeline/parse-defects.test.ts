// One focused case per known way markup used to leak into chunk text (or a readable document used
// to be refused). Each asserts the exact text a reader should find in the index.
import { describe, it, expect } from "vitest";
import { parseDocument, parseDocumentAsync, PipelineError, type Section } from "../../lib/pipeline/parse";
import { makePdf } from "../helpers/make-pdf";

const enc = (s: string) => new TextEncoder().encode(s);
const md = (s: string) => parseDocument("text/markdown", enc(s));
const html = (s: string) => parseDocument("text/html", enc(s));
const allText = (ss: Section[]) => ss.map((s) => s.text).join("\n\n");
/** Latin-1 bytes of a string whose characters are all below U+0100. */
const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PipelineError);
    return (e as PipelineError).code;
  }
  return undefined;
}

describe("markdown", () => {
  it("a GFM table becomes one 'Header: value' line per row, without pipes or delimiter rows", () => {
    const out = md(
      "# Pricing\n\n| Plan | Price | Seats |\n|------|------:|:-----:|\n| Basic | $5 | 1 |\n| Team | $20 \\| month | 10 |\n",
    );
    expect(out).toEqual([
      { headingPath: ["Pricing"], text: "Plan: Basic; Price: $5; Seats: 1\nPlan: Team; Price: $20 | month; Seats: 10" },
    ]);
  });

  it("reference-link definitions are not text; references become their label", () => {
    const out = md(
      'See [the guide][guide] and [Setup].\n\n[guide]: https://example.com/guide "The Guide"\n[setup]: <https://example.com/setup>\n',
    );
    expect(allText(out)).toBe("See the guide and Setup.");
  });

  it("raw HTML blocks give their text, not their tags", () => {
    const out = md(
      '<div align="center">\n  <img src="logo.png" alt="Logo">\n  <p><b>Fast</b> indexing</p>\n</div>\n\n<details>\n<summary>More options</summary>\n\nDetail text.\n\n</details>\n',
    );
    expect(allText(out)).toBe("Fast indexing\n\nMore options\n\nDetail text.");
  });

  it("entities are decoded", () => {
    expect(allText(md("Copyright &copy; 2024 &mdash; R&amp;D&nbsp;team, &frac12; done &#x2713;"))).toBe(
      "Copyright © 2024 — R&D team, ½ done ✓",
    );
  });

  it("indented code is kept verbatim (no emphasis or link stripping, relative indentation kept)", () => {
    const out = md("Example:\n\n    def f(*args, **kwargs):\n        return [x](y)\n\nAfter.");
    expect(allText(out)).toBe("Example:\n\ndef f(*args, **kwargs):\n    return [x](y)\n\nAfter.");
  });

  it("a heading inside a block quote is quoted text, not '## ' in the chunk", () => {
    const out = md("# Ops\n\n> ## Note\n> Keep **backups**.\n\nBody.");
    expect(out).toEqual([{ headingPath: ["Ops"], text: "Note\n\nKeep backups.\n\nBody." }]);
  });

  it("a link whose URL contains parentheses leaves no ')' behind", () => {
    expect(allText(md("Read [Foo](https://en.wikipedia.org/wiki/Foo_(bar)) now."))).toBe("Read Foo now.");
  });

  it("template and script blocks in Markdown are not text", () => {
    expect(
      allText(md("<template>\n<p>template only</p>\n</template>\n\n<script>\nalert(1)\n</script>\n\nVisible.")),
    ).toBe("Visible.");
  });
});

describe("html", () => {
  it("decodes every named entity of HTML5", () => {
    expect(allText(html("<p>&hearts; &lambda; &Omega; &there4; &rarrw; &NotEqualTilde; &bigstar; &fjlig;</p>"))).toBe(
      "♥ λ Ω ∴ ↝ ≂̸ ★ fj",
    );
  });

  it("skips hidden, aria-hidden and display:none content", () => {
    const out = html(
      '<div hidden><p>secret one</p></div><p aria-hidden="true">secret two</p><p aria-hidden="false">shown one</p>' +
        '<span style="display: none">secret three</span><p hidden="until-found">shown two</p><p>shown three</p>',
    );
    expect(allText(out)).toBe("shown one\n\nshown two\n\nshown three");
  });

  it("skips template content even when markup inside tries to close outer elements", () => {
    expect(allText(html("<div><template><h2>Tpl</h2></div><p>tpl text</p></template><p>after</p></div>"))).toBe(
      "after",
    );
  });
});

describe("charsets", () => {
  it("text/html; charset=iso-8859-1 is decoded, not refused", () => {
    const out = parseDocument(
      "text/html; charset=iso-8859-1",
      latin1("<h1>Caf\u00e9</h1><p>cr\u00e8me br\u00fbl\u00e9e \u00e0 la carte</p>"),
    );
    expect(out).toEqual([{ headingPath: ["Caf\u00e9"], text: "cr\u00e8me br\u00fbl\u00e9e \u00e0 la carte" }]);
  });

  it("HTML without a charset parameter is sniffed from <meta> in the first 1024 bytes", () => {
    const page =
      '<!doctype html><html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"></head><body><p>na\u00efve \u0080</p></body></html>';
    const bytes = latin1(page.replace("\u0080", "\u0080"));
    expect(allText(parseDocument("text/html", bytes))).toBe("na\u00efve \u20ac");
  });

  it("markdown and plain text in other declared charsets", () => {
    expect(parseDocument("text/plain; charset=ISO-8859-1", latin1("gr\u00fc\u00dfe"))).toEqual([
      { headingPath: [], text: "gr\u00fc\u00dfe" },
    ]);
    const sjis = Uint8Array.from([0x93, 0xfa, 0x96, 0x7b]); // 日本 in Shift_JIS
    expect(parseDocument('text/markdown; charset="Shift_JIS"', sjis)).toEqual([{ headingPath: [], text: "日本" }]);
  });

  it("a charset the decoder does not know is UNSUPPORTED_DOCUMENT (not retried)", () => {
    expect(codeOf(() => parseDocument("text/plain; charset=x-klingon", enc("hello")))).toBe("UNSUPPORTED_DOCUMENT");
  });
});

describe("pdf", () => {
  it("headings come from the document outline", async () => {
    // Headings in 18 pt, body in 12 pt (makePdf steps 1.25 × the size down the page from y=720):
    // "Introduction" 720, body 697.5 and 682.5, "Scope" 667.5, its body 645.
    const pdf = makePdf(
      [
        [
          { text: "Introduction", size: 18 },
          "Why the index exists.",
          "It keeps search in step.",
          { text: "Scope", size: 18 },
          "What is covered.",
        ],
        [{ text: "Operations", size: 18 }, "Run the worker."],
      ],
      {
        outline: [
          { title: "Introduction", page: 1, children: [{ title: "Scope", page: 1, y: 680 }] },
          { title: "Operations", page: 2, named: true },
        ],
      },
    );
    const out = await parseDocumentAsync("application/pdf", pdf);
    expect(out).toEqual([
      { headingPath: ["Introduction"], text: "Why the index exists. It keeps search in step." },
      { headingPath: ["Introduction", "Scope"], text: "What is covered." },
      { headingPath: ["Operations"], text: "Run the worker." },
    ]);
  });
});
