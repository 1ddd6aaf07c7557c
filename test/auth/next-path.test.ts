import { describe, expect, it } from "vitest";
import { safeNext } from "../../lib/auth/next-path";

// After sign-in (password or SSO callback) only our own dashboard paths are followed.
describe("safeNext", () => {
  it.each([
    ["/tasks?status=DEAD", "/tasks?status=DEAD"],
    ["/documents/acme/refund-policy#versions", "/documents/acme/refund-policy#versions"],
    ["/search?q=%2F%2Fnot-a-host", "/search?q=%2F%2Fnot-a-host"],
    ["/%2F%2Fevil.example", "/%2F%2Fevil.example"], // an encoded slash stays a path segment
    ["/a/../tasks", "/tasks"],
  ])("keeps the same-origin path %s", (raw, expected) => {
    expect(safeNext(raw)).toBe(expected);
  });

  it.each([
    "//evil.example",
    "/\t/evil.example", // what next=/%09/evil.example decodes to; browsers drop the tab
    "/\n/evil.example",
    "/\r\n/evil.example",
    "/\\evil.example",
    "/\\/evil.example",
    "\\\\evil.example",
    "https://evil.example/",
    "http:/evil.example",
    "javascript:alert(1)",
    "/\u0000/evil.example",
    " /tasks",
    "evil.example",
    "/signin",
    "/signin?next=/tasks",
    "/api/v1/documents",
    "",
    "/" + "a".repeat(3000),
  ])("falls back to the overview for %j", (raw) => {
    expect(safeNext(raw)).toBe("/overview");
  });

  it("takes the first of repeated parameters and treats absence as the overview", () => {
    expect(safeNext(["/tasks", "//evil.example"])).toBe("/tasks");
    expect(safeNext(undefined)).toBe("/overview");
    expect(safeNext(null)).toBe("/overview");
  });
});
