import { writeFileSync } from "node:fs";
import path from "node:path";
import { OPENAPI_JSON, OPENAPI_TYPES, renderOpenApiFiles } from "../lib/http/openapi-files";

// npm run openapi: writes the OpenAPI snapshot and the typed client's types from the zod schemas.
const root = path.resolve(import.meta.dirname, "..");
const { json, types } = await renderOpenApiFiles();
writeFileSync(path.join(root, OPENAPI_JSON), json);
writeFileSync(path.join(root, OPENAPI_TYPES), types);
process.stdout.write(`wrote ${OPENAPI_JSON} and ${OPENAPI_TYPES}\n`);
