import { describe, it, expect } from "vitest";
import {
  parseDocument,
  PipelineError,
  TEXT_CONTENT_TYPES,
  decodeEntities,
  type Section,
} from "../../lib/pipeline/parse";

const enc = (s: string) => new TextEncoder().encode(s);
const md = (s: string) => parseDocument("text/markdown", enc(s));
const html = (s: string) => parseDocument("text/html", enc(s));
const paths = (ss: Section[]) => ss.map((s) => s.headingPath.join(" > "));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PipelineError);
    return (e as PipelineError).code;
  }
  return undefined;
}

describe("content types", () => {
  it("lists the three text types", () => {
    expect(TEXT_CONTENT_TYPES).toEqual(["text/markdown", "text/plain", "text/html"]);
  });

  it("rejects unsupported types with UNSUPPORTED_DOCUMENT", () => {
    expect(codeOf(() => parseDocument("application/pdf", enc("%PDF-1.7")))).toBe("UNSUPPORTED_DOCUMENT");
    expect(codeOf(() => parseDocument("image/png", new Uint8Array([1, 2, 3])))).toBe("UNSUPPORTED_DOCUMENT");
  });

  it("parses with a parameterised content type", () => {
    expect(parseDocument("text/markdown; charset=utf-8", enc("# T\n\nbody"))).toEqual([
      { headingPath: ["T"], text: "body" },
    ]);
  });
});

describe("decoding and errors", () => {
  it("invalid UTF-8 is PARSE_ERROR with a readable message", () => {
    let err: unknown;
    try {
      parseDocument("text/plain", new Uint8Array([0x68, 0x69, 0xff, 0xfe, 0x80]));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PipelineError);
    expect((err as PipelineError).code).toBe("PARSE_ERROR");
    expect((err as PipelineError).message).toMatch(/UTF-8/);
    expect((err as PipelineError).name).toBe("PipelineError");
  });

  it("truncated multi-byte sequence is PARSE_ERROR", () => {
    const bytes = enc("café");
    expect(codeOf(() => parseDocument("text/markdown", bytes.slice(0, bytes.length - 1)))).toBe("PARSE_ERROR");
  });

  it("binary content with NUL bytes is PARSE_ERROR", () => {
    expect(codeOf(() => parseDocument("text/plain", new Uint8Array([0x61, 0x00, 0x62])))).toBe("PARSE_ERROR");
  });

  it("empty and whitespace-only documents are EMPTY_DOCUMENT", () => {
    for (const ct of TEXT_CONTENT_TYPES) {
      expect(codeOf(() => parseDocument(ct, new Uint8Array()))).toBe("EMPTY_DOCUMENT");
      expect(codeOf(() => parseDocument(ct, enc(" \n\t\r\n  \n")))).toBe("EMPTY_DOCUMENT");
    }
    expect(codeOf(() => md("---\ntitle: x\n---\n\n<!-- nothing -->\n"))).toBe("EMPTY_DOCUMENT");
    expect(
      codeOf(() => html("<html><head><title>T</title><script>x()</script></head><body> &nbsp; </body></html>")),
    ).toBe("EMPTY_DOCUMENT");
  });

  it("strips a UTF-8 BOM and normalises CRLF", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc("# Title\r\n\r\nline one\r\nline two\r\n\r\nsecond")]);
    expect(parseDocument("text/markdown", bytes)).toEqual([
      { headingPath: ["Title"], text: "line one\nline two\n\nsecond" },
    ]);
  });

  it("the error code is visible as err.code (what the queue classifier reads)", () => {
    const e = new PipelineError("EMPTY_DOCUMENT", "x");
    expect(e).toBeInstanceOf(Error);
    expect((e as { code?: unknown }).code).toBe("EMPTY_DOCUMENT");
  });
});

describe("plain text", () => {
  it("is one section with paragraphs split on blank lines", () => {
    const out = parseDocument("text/plain", enc("First para\r\nstill first  \r\n\r\n\r\n  Second para\n \t \nThird"));
    expect(out).toEqual([{ headingPath: [], text: "First para\nstill first\n\nSecond para\n\nThird" }]);
  });

  it("keeps markdown-looking syntax literally", () => {
    const out = parseDocument("text/plain", enc("# not a heading\n\n**bold**"));
    expect(out).toEqual([{ headingPath: [], text: "# not a heading\n\n**bold**" }]);
  });
});

describe("markdown", () => {
  it("builds nested heading paths and resets on a new h1", () => {
    const out = md(
      [
        "intro text",
        "# Guide",
        "guide body",
        "## Install",
        "install body",
        "### Linux",
        "linux body",
        "## Configure",
        "configure body",
        "# Reference",
        "ref body",
        "### Deep without h2",
        "deep body",
      ].join("\n\n"),
    );
    expect(out.map((s) => [s.headingPath, s.text])).toEqual([
      [[], "intro text"],
      [["Guide"], "guide body"],
      [["Guide", "Install"], "install body"],
      [["Guide", "Install", "Linux"], "linux body"],
      [["Guide", "Configure"], "configure body"],
      [["Reference"], "ref body"],
      [["Reference", "Deep without h2"], "deep body"],
    ]);
  });

  it("drops sections with no body of their own (heading followed directly by a sub-heading)", () => {
    const out = md("# A\n## B\n\nb text\n\n## C\n\nc text");
    expect(out).toEqual([
      { headingPath: ["A", "B"], text: "b text" },
      { headingPath: ["A", "C"], text: "c text" },
    ]);
  });

  it("supports setext headings and closing # sequences", () => {
    const out = md("Top Title\n=========\n\nbody 1\n\nSub *Title*\n---\n\nbody 2\n\n## Closed ##\n\nbody 3");
    expect(out).toEqual([
      { headingPath: ["Top Title"], text: "body 1" },
      { headingPath: ["Top Title", "Sub Title"], text: "body 2" },
      { headingPath: ["Top Title", "Closed"], text: "body 3" },
    ]);
  });

  it("does not treat #hashtags, indented or quoted # lines as headings; --- alone is a break", () => {
    const out = md("# H\n\n#hashtag here\n\n    # indented code\n\n---\n\nafter break");
    expect(paths(out)).toEqual(["H"]);
    expect(out[0].text).toBe("#hashtag here\n\n# indented code\n\nafter break");
  });

  it("keeps fenced code verbatim and ignores headings inside fences", () => {
    const src = [
      "# Code",
      "",
      "Before **code**.",
      "",
      "```ts",
      "# not a heading",
      "const a = `x` * 2; // **kept**",
      "",
      "  indented();",
      "```",
      "",
      "~~~~",
      "## also not",
      "```",
      "~~~~",
      "",
      "After.",
    ].join("\n");
    const out = md(src);
    expect(out).toHaveLength(1);
    expect(out[0].headingPath).toEqual(["Code"]);
    expect(out[0].text).toBe(
      [
        "Before code.",
        "# not a heading\nconst a = `x` * 2; // **kept**\n\n  indented();",
        "## also not\n```",
        "After.",
      ].join("\n\n"),
    );
  });

  it("an unclosed fence runs to the end", () => {
    const out = md("# A\n\ntext\n\n```\n# B\nmore");
    expect(out).toEqual([{ headingPath: ["A"], text: "text\n\n# B\nmore" }]);
  });

  it("strips YAML front matter only at the very start", () => {
    const out = md("---\ntitle: Hello\ntags: [a, b]\n---\n# Real\n\nbody");
    expect(out).toEqual([{ headingPath: ["Real"], text: "body" }]);
  });

  it("cleans inline markup: emphasis, code spans, links, images, comments, escapes", () => {
    const out = md(
      [
        "# The **Bold** _Way_",
        "",
        "Use **strong**, __also strong__, *em* and _em_ with `inline_code **raw**`.",
        "See [the docs](https://example.com/docs?a=1) and ![a diagram](img/d.png).",
        "Keep snake_case, 2 * 3 and a*b as they are; \\*literal\\* stars.",
        "Hidden <!-- secret --> text.",
        "<!-- multi",
        "line comment -->Visible again.",
      ].join("\n"),
    );
    expect(out).toHaveLength(1);
    expect(out[0].headingPath).toEqual(["The Bold Way"]);
    expect(out[0].text).toBe(
      [
        "Use strong, also strong, em and em with inline_code **raw**.",
        "See the docs and a diagram.",
        "Keep snake_case, 2 * 3 and a*b as they are; *literal* stars.",
        "Hidden  text.",
      ].join("\n") +
        // A line opening an HTML comment starts an HTML block (CommonMark): its text is its own paragraph.
        "\n\nVisible again.",
    );
  });

  it("keeps list markers (a new bullet character starts a new list) and strips blockquote markers", () => {
    const out = md("- one\n- two\n* three\n\n> quoted line\n> > nested");
    expect(out[0].text).toBe("- one\n- two\n\n* three\n\nquoted line\n\nnested");
  });

  it("nested and ordered lists keep their markers and indentation", () => {
    const out = md("1. first\n2. second\n   - inner *a*\n   - inner b\n3. third\n\n   more of third\n");
    expect(out[0].text).toBe("1. first\n2. second\n  - inner a\n  - inner b\n3. third\n  more of third");
  });

  it("unmatched brackets and backticks are left alone", () => {
    const out = md("a [b c] d ``e ` f ) [g](h");
    expect(out[0].text).toBe("a [b c] d ``e ` f ) [g](h");
  });
});

describe("html", () => {
  it("builds heading paths from h1-h6 and paragraphs from block elements", () => {
    const out = html(`<!doctype html>
      <html><head><title>Ignored title</title><meta charset="utf-8">
      <style>body { color: red }</style><script>var x = "<h1>no</h1>";</script></head>
      <body>
        <p>Lead paragraph.</p>
        <h1>Policies</h1>
        <p>Intro to   policies.</p>
        <h2 id="r">Refunds <small>(EU)</small></h2>
        <div>Refunds are issued<br>within 14 days.</div>
        <ul><li>Item one</li><li>Item two</li></ul>
        <h3>Exceptions</h3><p>None.</p>
        <h2>Shipping</h2><p>Ships weekly.</p>
        <h1>Other</h1><section><article><p>Deep text</p></article></section>
      </body></html>`);
    expect(out.map((s) => [s.headingPath, s.text])).toEqual([
      [[], "Lead paragraph."],
      [["Policies"], "Intro to policies."],
      [["Policies", "Refunds (EU)"], "Refunds are issued\n\nwithin 14 days.\n\nItem one\n\nItem two"],
      [["Policies", "Refunds (EU)", "Exceptions"], "None."],
      [["Policies", "Shipping"], "Ships weekly."],
      [["Other"], "Deep text"],
    ]);
  });

  it("decodes entities", () => {
    // A bare "&amp" is decoded, as HTML5 decodes the legacy forms without ';'.
    const out = html(
      "<h1>Q&amp;A</h1><p>a &lt;b&gt; &quot;c&quot; &#39;d&#39; &apos;e&apos; f&nbsp;g &#123; &#x1F600; &eacute;t&eacute; &mdash; &unknown; &amp</p>",
    );
    expect(out).toEqual([{ headingPath: ["Q&A"], text: "a <b> \"c\" 'd' 'e' f g { \u{1F600} été \u2014 &unknown; &" }]);
    expect(decodeEntities("&#0; &#xD800; &#99999999; &#65")).toBe("\ufffd \ufffd \ufffd A");
    expect(decodeEntities("&amp;lt;")).toBe("&lt;");
  });

  it("drops script, style, noscript, template, head content and comments", () => {
    const out = html(
      "<head><title>T</title><link rel=x></head><p>keep 1</p><script type='a'>if (a < b) { x('</p>') }</SCRIPT >" +
        "<STYLE>p{}</style><noscript>enable js</noscript><template><p>tpl <template>inner</template> still tpl</p></template>" +
        "<!-- <p>commented</p> --><p>keep 2</p>",
    );
    expect(out).toEqual([{ headingPath: [], text: "keep 1\n\nkeep 2" }]);
  });

  it("preserves whitespace inside pre and collapses it elsewhere", () => {
    const out = html("<p>  a \n\t b  </p><pre>\n  line 1\n    line 2 &lt;x&gt;\n</pre><p>c</p>");
    expect(out[0].text).toBe("a b\n\n  line 1\n    line 2 <x>\n\nc");
  });

  it("treats a table row as one paragraph, labelled with the header row's names", () => {
    const out = html(
      "<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>$5</td></tr><tr><th>Pro</th><td>$9</td></tr></table>",
    );
    expect(out[0].text).toBe("Plan: Basic; Price: $5\n\nPro; Price: $9");
    expect(html("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>")[0].text).toBe(
      "a b\n\nc d",
    );
    expect(html("<table><thead><tr><th>Only</th><th>Header</th></tr></thead></table><p>x</p>")[0].text).toBe(
      "Only Header\n\nx",
    );
  });

  it("tolerates unclosed and broken markup", () => {
    const out = html(
      "<h2>Open heading<p>para one<p>para two <b>bold <i>it</p><div>x < y and a<3</div><p attr='a>b'>quoted gt</p><span",
    );
    expect(out).toEqual([
      { headingPath: ["Open heading"], text: "para one\n\npara two bold it\n\nx < y and a<3\n\nquoted gt" },
    ]);
  });

  it("leaves navigation menus out", () => {
    const out = html(
      '<nav><a href="/">Home</a> <a href="/a">About</a></nav><div role="navigation"><a>Next</a></div><p>Body text.</p><footer>Contact: 01 23</footer>',
    );
    expect(out).toEqual([{ headingPath: [], text: "Body text.\n\nContact: 01 23" }]);
  });

  it("ignores empty headings", () => {
    const out = html("<h1>A</h1><p>a</p><h2>  </h2><p>still a</p>");
    expect(out).toEqual([{ headingPath: ["A"], text: "a\n\nstill a" }]);
  });
});

describe("hostile input", () => {
  it("100k nested divs and unclosed tags are parsed correctly", () => {
    const depth = 100_000;
    const src = "<div>".repeat(depth) + "<h1>Deep</h1><p>bottom" + "</div>".repeat(depth);
    const out = html(src);
    expect(out).toEqual([{ headingPath: ["Deep"], text: "bottom" }]);

    const out2 = html("<b><i><u>".repeat(50_000) + "text" + "<a href='x'".repeat(1));
    expect(out2).toEqual([{ headingPath: [], text: "text" }]);
  });

  it("a 2 MB single paragraph and 5 MB of pathological markdown parse in linear time", () => {
    const words = "lorem ipsum dolor sit amet consectetur ".repeat(52_000); // ~2 MB, no blank lines
    const out = parseDocument("text/plain", enc(words));
    expect(out).toHaveLength(1);
    expect(out[0].text.length).toBeGreaterThan(2_000_000);

    // markdown-it is linear but slow on bracket floods (~5 µs a "["), so this stays near 1 MB.
    const evil = "[".repeat(250_000) + "](" + "`".repeat(125_000) + "*_".repeat(125_000) + "<!--" + "!".repeat(250_000);
    const out2 = md(evil);
    expect(out2).toHaveLength(1);

    const manyLt = "a < b <c <!x <? ".repeat(300_000); // ~5 MB
    html(manyLt);

    const manyAmp = "&#".repeat(1_000_000) + "&amp".repeat(500_000);
    expect(decodeEntities(manyAmp).length).toBe(2_000_000 + 500_000); // "&#" stays, "&amp" is "&"
  });
});
