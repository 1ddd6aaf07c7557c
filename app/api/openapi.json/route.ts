import { publicHandler, json } from "@/lib/http/handler";
import { openApiDocument } from "@/lib/http/openapi";

/** The OpenAPI 3.1 document, generated from the same zod schemas the handlers validate with. */
export const GET = publicHandler(async () => json(openApiDocument()));

export * from "@/lib/http/method-fallback";
