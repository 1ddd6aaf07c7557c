import { z } from "zod";
import { KEY_PATTERN, TENANT_PATTERN, DOCUMENT_STATE } from "../domain/constants";

export { SUPPORTED_CONTENT_TYPES as SUPPORTED_TYPES } from "../pipeline/parse";

export const tenantParam = z.string().regex(TENANT_PATTERN, "tenant must match [a-z0-9][a-z0-9._-]{0,63}");
export const keyParam = z.string().regex(KEY_PATTERN, "key must match [a-z0-9][a-z0-9._-]{0,127}");

export const publishBody = z
  .object({
    title: z.string().trim().min(1).max(500),
    contentType: z.string().min(1).max(100),
    content: z.string(),
    /** Binary formats (PDF, DOCX) travel as base64 in JSON, or as a multipart file. */
    contentEncoding: z.enum(["utf8", "base64"]).optional(),
    acl: z.array(z.string().trim().min(1).max(200)).max(100).optional(),
    abstract: z.string().max(20_000).nullish(),
    overview: z.string().max(50_000).nullish(),
  })
  .strict();
export type PublishBody = z.infer<typeof publishBody>;

export const searchBody = z
  .object({
    query: z.string().trim().min(1).max(4000),
    topK: z.number().int().min(1).max(100).optional(),
    principals: z.array(z.string().min(1).max(200)).max(100).optional(),
    level: z.number().int().min(0).max(2).optional(),
  })
  .strict();
export type SearchBody = z.infer<typeof searchBody>;

export const documentListQuery = z.object({
  tenant: tenantParam.optional(),
  state: z.enum(Object.values(DOCUMENT_STATE) as [string, ...string[]]).optional(),
  q: z.string().max(200).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
