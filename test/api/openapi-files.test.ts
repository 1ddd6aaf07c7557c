import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { OPENAPI_JSON, OPENAPI_TYPES, renderOpenApiFiles } from "../../lib/http/openapi-files";

// The committed OpenAPI snapshot and the typed client's types are what `npm run openapi` writes
// from the zod schemas now: a schema or route change without regenerating them fails here.

const root = path.resolve(import.meta.dirname, "../..");
const committed = (file: string) => readFileSync(path.join(root, file), "utf8");

describe("the committed OpenAPI files", () => {
  it("the JSON snapshot and the client's types are current (run npm run openapi)", async () => {
    const { json, types } = await renderOpenApiFiles();
    expect(committed(OPENAPI_JSON), `${OPENAPI_JSON} is stale: run npm run openapi`).toBe(json);
    expect(committed(OPENAPI_TYPES), `${OPENAPI_TYPES} is stale: run npm run openapi`).toBe(types);
  });

  it("the snapshot is an OpenAPI 3.1 document with the types' paths", async () => {
    const doc = JSON.parse(committed(OPENAPI_JSON)) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    const types = committed(OPENAPI_TYPES);
    for (const p of Object.keys(doc.paths)) expect(types, p).toContain(`"${p}": {`);
  });
});
