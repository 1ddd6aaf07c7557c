import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Highlight } from "../../components/search/Highlight";

const html = (text: string, query: string) => renderToStaticMarkup(createElement(Highlight, { text, query }));

describe("search hit highlighting", () => {
  it("marks a part code's one-letter part only where it stands alone", () => {
    expect(html("Before servicing, fit seal kit XQ-7731-B and check the bearing.", "XQ-7731-B")).toBe(
      "Before servicing, fit seal kit <mark>XQ</mark>-<mark>7731</mark>-<mark>B</mark> and check the bearing.",
    );
  });

  it("marks longer words inside other words, case-insensitively", () => {
    expect(html("Refunds and refunding", "refund")).toBe("<mark>Refund</mark>s and <mark>refund</mark>ing");
  });
});
