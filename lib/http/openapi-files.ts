import openapiTS, { astToString } from "openapi-typescript";
import { openApiDocument } from "./openapi";

// The files `npm run openapi` writes and test/api/openapi-files.test.ts compares with the
// committed ones: the document's JSON snapshot and the TypeScript types the typed client
// (lib/client) is checked against. Build-time only: openapi-typescript is a dev dependency.

export const OPENAPI_JSON = "lib/client/openapi.json";
export const OPENAPI_TYPES = "lib/client/openapi-types.ts";

const HEADER = `// Generated from lib/client/openapi.json by \`npm run openapi\` (openapi-typescript); do not edit.
// test/api/openapi-files.test.ts fails when this file is older than the API.

`;

export async function renderOpenApiFiles(): Promise<{ json: string; types: string }> {
  const doc = openApiDocument();
  const json = `${JSON.stringify(doc, null, 2)}\n`;
  // A deep copy: openapi-typescript annotates the object it is given.
  const ast = await openapiTS(JSON.parse(json), { alphabetize: false, exportType: true });
  return { json, types: HEADER + astToString(ast) };
}
