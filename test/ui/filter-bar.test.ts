import { describe, expect, it } from "vitest";
import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { FilterBar, FilterField, FilterSelect, TenantFilter } from "../../components/FilterBar";

// The markup the list views' filter bars render, server-side: the e2e journeys find these fields
// by label and test id, and the accessibility audit by the landmark and the label/control pairs.

const render = (el: Parameters<typeof renderToStaticMarkup>[0]) => renderToStaticMarkup(el).replace(/<!-- -->/g, "");
const options = (html: string) =>
  [...html.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1], m[2]]);

describe("filter bar", () => {
  it("is a named search landmark; Clear filters only while filtered; the Live dot only on live lists", () => {
    const field = h(FilterField, { id: "f", label: "Actor", children: h("input", { id: "f" }) });
    const idle = render(
      h(FilterBar, { label: "Filter tasks", filtered: false, onClear: () => undefined, children: field }),
    );
    expect(idle).toMatch(/^<form class="toolbar" role="search" aria-label="Filter tasks">/);
    expect(idle).not.toContain("Clear filters");
    expect(idle).not.toContain("live-dot");

    const busy = render(
      h(FilterBar, {
        label: "Filter the audit log",
        filtered: true,
        onClear: () => undefined,
        fetching: true,
        testId: "audit-filters",
        clearTestId: "audit-filters-clear",
        children: field,
      }),
    );
    expect(busy).toContain('data-testid="audit-filters"');
    expect(busy).toContain(
      '<button type="button" class="btn btn--ghost btn--sm toolbar__clear" data-testid="audit-filters-clear">Clear filters</button>',
    );
    expect(busy).toContain('class="live-dot live-dot--busy"');
    // The fields first, then Clear, then Live: the order the toolbar's layout expects.
    expect(busy.indexOf('<input id="f"/>')).toBeLessThan(busy.indexOf("Clear filters"));
    expect(busy.indexOf("Clear filters")).toBeLessThan(busy.indexOf("live-dot"));
  });

  it("a field's label names its control; the width is a field modifier", () => {
    const html = render(
      h(FilterField, { id: "from", label: "From", width: "time", children: h("input", { id: "from" }) }),
    );
    expect(html).toBe(
      '<div class="field field--inline field--time"><label for="from" class="field__label">From</label><input id="from"/></div>',
    );
  });

  it("a select: its label points at it, empty is all, then the options with their labels, then extra children", () => {
    const html = render(
      h(FilterSelect<string>, {
        label: "Status",
        value: "DEAD",
        onChange: () => undefined,
        all: "All statuses",
        options: ["PENDING", "DEAD"],
        optionLabel: (s: string) => s.toLowerCase(),
        width: "narrow",
        testId: "filter-status",
        children: h("option", { value: "X" }, "X"),
      }),
    );
    const id = /<label for="([^"]+)"/.exec(html)?.[1];
    expect(id).toBeTruthy();
    expect(html).toContain(`<select id="${id}" class="select" data-testid="filter-status">`);
    expect(html).toMatch(
      /^<div class="field field--inline field--narrow"><label for="[^"]+" class="field__label">Status<\/label>/,
    );
    expect(options(html)).toEqual([
      ["", "All statuses"],
      ["PENDING", "pending"],
      ["DEAD", "dead"],
      ["X", "X"],
    ]);
  });

  it("the tenant select names tenants by name and id, and keeps an unknown tenant from the URL first", () => {
    const tenants = [
      { id: "acme", name: "Acme Corp" },
      { id: "globex", name: "globex" },
    ];
    const html = render(
      h(TenantFilter, { value: "initech", tenants, onChange: () => undefined, testId: "filter-tenant" }),
    );
    expect(html).toContain(">Tenant</label>");
    expect(html).toContain('data-testid="filter-tenant"');
    expect(options(html)).toEqual([
      ["", "All tenants"],
      ["initech", "initech"],
      ["acme", "Acme Corp (acme)"],
      ["globex", "globex"],
    ]);
    expect(options(render(h(TenantFilter, { value: "", tenants: undefined, onChange: () => undefined })))).toEqual([
      ["", "All tenants"],
    ]);
  });
});
