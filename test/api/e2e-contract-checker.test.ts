import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../lib/http/openapi";
import { contractChecker, isApiAnswer } from "../../e2e/support/contract";

// The checker the e2e suite runs every API answer through (e2e/support/contract.ts): it must pass
// what the document allows and name each thing it does not, or a green e2e run proves nothing.
const doc = JSON.parse(JSON.stringify(openApiDocument()));
const APP = "http://127.0.0.1:3100";
const json = (status: number, body: unknown, method = "GET", path = "/api/v1/tasks/123") => ({
  method,
  url: `${APP}${path}`,
  status,
  contentType: "application/json; charset=utf-8",
  body: JSON.stringify(body),
});

describe("the e2e contract checker", () => {
  it("passes a documented answer and counts it under its operation", async () => {
    const c = await contractChecker(doc);
    expect(c.check(json(404, { error: { code: "NOT_FOUND", message: "task 123 not found" } }))).toEqual([]);
    expect(c.check({ ...json(200, null, "GET", "/api/health"), contentType: "application/json", body: null })).toEqual(
      [],
    );
    expect([...c.checked().values()].reduce((a, b) => a + b, 0)).toBe(2);
  });

  it("names a body the schema refuses, an undocumented status, a content type and a path it lacks", async () => {
    const c = await contractChecker(doc);
    expect(c.check(json(404, { error: { code: "SOMETHING_ELSE", message: "x" } })).join()).toMatch(/404/);
    expect(c.check(json(404, { error: { code: "NOT_FOUND", message: "x", extra: 1 } }))).not.toEqual([]);
    expect(c.check(json(418, { error: { code: "NOT_FOUND", message: "x" } })).join()).toMatch(/status not in/);
    expect(c.check({ ...json(404, {}), contentType: "text/html", body: "<html></html>" }).join()).toMatch(
      /content type/,
    );
    expect(c.check(json(200, {}, "GET", "/api/v1/no-such-thing")).join()).toMatch(/404 was due/);
    expect(c.check({ ...json(404, {}), body: "not json" }).join()).toMatch(/not JSON/);
  });

  it("holds answers no operation gives to the API's 404 and 405, with a true Allow", async () => {
    const c = await contractChecker(doc);
    const notFound = { error: { code: "NOT_FOUND", message: "no such route" } };
    expect(c.check(json(404, notFound, "GET", "/api/v1/no-such-thing"))).toEqual([]);
    expect(c.check(json(404, { error: { code: "OOPS", message: "x" } }, "GET", "/api/v1/nope")).join()).toMatch(/404/);
    const wrongMethod = { error: { code: "METHOD_NOT_ALLOWED", message: "DELETE is not allowed" } };
    const on = (allow: string) => ({ ...json(405, wrongMethod, "DELETE", "/api/v1/tasks"), headers: { allow } });
    expect(c.check(on("GET, HEAD, OPTIONS"))).toEqual([]);
    expect(c.check(on("OPTIONS")).join()).toMatch(/Allow "OPTIONS" lacks get/);
    expect(c.check(json(404, notFound, "DELETE", "/api/v1/tasks")).join()).toMatch(/405 was due/);
    const redirect = (location: string) => ({
      ...json(308, null, "POST", "/api/v1/tasks/"),
      contentType: "text/plain",
      headers: { location },
    });
    expect(c.check(redirect("/api/v1/tasks"))).toEqual([]);
    expect(c.check(redirect("/elsewhere")).join()).toMatch(/308/);
  });

  it("looks only at the app's /api/ answers", () => {
    expect(isApiAnswer(APP, `${APP}/api/v1/tasks`, "GET")).toBe(true);
    expect(isApiAnswer(APP, `${APP}/documents`, "GET")).toBe(false);
    expect(isApiAnswer(APP, "http://127.0.0.1:3199/v1/embeddings", "POST")).toBe(false);
    expect(isApiAnswer(APP, `${APP}/api/v1/tasks`, "HEAD")).toBe(false);
  });
});
