import { describe, it, expect } from "vitest";
import {
  charsetParameter,
  decodeDocumentText,
  prepareTextContent,
  resolveCharset,
  sniffMetaCharset,
} from "../../lib/pipeline/charset";
import { PipelineError } from "../../lib/pipeline/parse";

const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0)); // Latin-1 / raw bytes
const utf8 = (s: string) => new TextEncoder().encode(s);

describe("charset parameter", () => {
  it("reads plain and quoted values, case-insensitively, among other parameters", () => {
    expect(charsetParameter("text/html")).toBeNull();
    expect(charsetParameter("text/html; charset=ISO-8859-1")).toBe("ISO-8859-1");
    expect(charsetParameter('text/plain; format=flowed; Charset="windows-1252"; x=1')).toBe("windows-1252");
    expect(charsetParameter('text/plain; title="a;charset=koi8-r"; charset=utf-8')).toBe("utf-8");
    expect(charsetParameter("text/plain; charset=")).toBeNull();
  });
});

describe("which encoding", () => {
  it("a byte order mark wins over the parameter and the <meta>", () => {
    expect(resolveCharset("text/html; charset=iso-8859-1", new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toEqual({
      encoding: "utf-8",
      source: "bom",
    });
    expect(resolveCharset("text/plain", new Uint8Array([0xff, 0xfe, 0x41, 0x00]))).toEqual({
      encoding: "utf-16le",
      source: "bom",
    });
    expect(decodeDocumentText("text/plain", new Uint8Array([0xfe, 0xff, 0x00, 0x48, 0x00, 0x69]))).toBe("Hi");
  });

  it("the parameter wins over the <meta>; the <meta> is read for HTML only", () => {
    const page = bytes('<meta charset="koi8-r"><p>x</p>');
    expect(resolveCharset("text/html; charset=utf-8", page)).toEqual({ encoding: "utf-8", source: "parameter" });
    expect(resolveCharset("text/html", page)).toEqual({ encoding: "koi8-r", source: "meta" });
    expect(resolveCharset("text/markdown", page)).toEqual({ encoding: "utf-8", source: "default" });
  });

  it("reads <meta> the way the HTML prescan does", () => {
    expect(sniffMetaCharset(bytes("<META HTTP-EQUIV='content-type' CONTENT='text/html; Charset=Shift_JIS'>"))).toBe(
      "shift_jis",
    );
    expect(sniffMetaCharset(bytes('<!-- <meta charset="koi8-r"> --><meta charset=windows-1251>'))).toBe("windows-1251");
    expect(sniffMetaCharset(bytes('<meta charset="utf-16le">'))).toBe("utf-8"); // cannot be true of ASCII bytes
    expect(sniffMetaCharset(bytes('<meta charset="no-such-thing"><meta charset="latin1">'))).toBe("windows-1252");
    expect(sniffMetaCharset(bytes(" ".repeat(1024) + '<meta charset="koi8-r">'))).toBeNull(); // past the first 1024 bytes
    expect(sniffMetaCharset(bytes('<p title="<meta charset=koi8-r>">x</p>'))).toBeNull(); // inside an attribute
  });
});

describe("decoding", () => {
  it("windows-1252 bytes 0x80-0x9F are the WHATWG characters, not C1 controls", () => {
    const all = Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i);
    const text = decodeDocumentText("text/plain; charset=iso-8859-1", all);
    expect(text).toBe("€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ");
  });

  it("strict: invalid bytes in the chosen encoding are PARSE_ERROR", () => {
    expect(() => decodeDocumentText("text/plain; charset=shift_jis", new Uint8Array([0x82]))).toThrow(PipelineError);
    expect(() => decodeDocumentText("text/plain", new Uint8Array([0xc3]))).toThrow(/not valid UTF-8/);
  });
});

describe("publish-time content type", () => {
  it("names the charset only when the worker would otherwise read the bytes differently", () => {
    const latin = bytes("caf\u00e9");
    expect(prepareTextContent("text/plain; charset=latin1", latin, { sentAsString: false })).toMatchObject({
      contentType: "text/plain; charset=windows-1252",
      text: "café",
    });
    expect(prepareTextContent("Text/Markdown; charset=UTF-8", utf8("café"), { sentAsString: false })).toMatchObject({
      contentType: "text/markdown",
      text: "café",
    });
    const page = bytes('<meta charset="windows-1252"><p>caf\u00e9</p>');
    expect(prepareTextContent("text/html", page, { sentAsString: false }).contentType).toBe("text/html");
    const pasted = utf8('<meta charset="windows-1252"><p>café</p>');
    expect(prepareTextContent("text/html; charset=windows-1252", pasted, { sentAsString: true })).toMatchObject({
      contentType: "text/html; charset=utf-8",
      text: '<meta charset="windows-1252"><p>café</p>',
    });
  });
});
