import { z } from "zod";
import { KEY_PATTERN, TENANT_PATTERN, DOCUMENT_STATE } from "../domain/constants";
import { searchMode } from "../search/modes";

export { SUPPORTED_CONTENT_TYPES as SUPPORTED_TYPES } from "../pipeline/parsers/content-types";

// Text that reaches PostgreSQL and readers. PostgreSQL cannot store NUL in text (it would fail the
// insert with a 500), and other control characters have no place in a title, a principal or a
// summary. Text meant to be read keeps tab, newline, carriage return and form feed, as content does.
const ANY_CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;
export const noControl = (s: string) => !ANY_CONTROL.test(s);
export const readableText = (s: string) => !CONTROL_IN_TEXT.test(s);
export const NO_CONTROL = "must not contain control characters";
export const TEXT_CONTROL =
  "must not contain control characters (tab, newline, carriage return and form feed are allowed)";
const aclPrincipal = z.string().trim().min(1).max(200).refine(noControl, NO_CONTROL);

export const tenantParam = z.string().regex(TENANT_PATTERN, "tenant must match [a-z0-9][a-z0-9._-]{0,63}");
export const keyParam = z.string().regex(KEY_PATTERN, "key must match [a-z0-9][a-z0-9._-]{0,127}");

/** A publish's claim class (docs/decisions/040-fair-claim.md). */
export const PUBLISH_PRIORITIES = ["interactive", "bulk"] as const;

export const publishBody = z
  .object({
    title: z.string().trim().min(1).max(500).refine(noControl, NO_CONTROL),
    contentType: z.string().min(1).max(100),
    content: z.string(),
    /** Binary formats (PDF, DOCX) travel as base64 in JSON, or as a multipart file. */
    contentEncoding: z.enum(["utf8", "base64"]).optional(),
    acl: z.array(aclPrincipal).max(100).optional().meta({
      description:
        "Principals that may find the document in search. Absent: the latest version's ACL is kept (a new document: the whole tenant), so a re-publish never opens a restricted document by leaving the field out. [] opens it to the whole tenant.",
    }),
    abstract: z.string().max(20_000).refine(readableText, TEXT_CONTROL).nullish(),
    overview: z.string().max(50_000).refine(readableText, TEXT_CONTROL).nullish(),
    priority: z.enum(PUBLISH_PRIORITIES).optional().meta({
      description:
        "The build's class in the claim: interactive (the default) is claimed ahead of bulk; bulk is for syncs and backfills, which then never delay what people publish now. Either way tenants take turns within a class.",
    }),
  })
  .strict();
export type PublishBody = z.infer<typeof publishBody>;

export const searchBody = z
  .object({
    query: z.string().trim().min(1).max(4000).refine(readableText, TEXT_CONTROL),
    topK: z.number().int().min(1).max(100).optional(),
    principals: z.array(z.string().min(1).max(200).refine(noControl, NO_CONTROL)).max(100).optional(),
    level: z.number().int().min(0).max(2).optional(),
    mode: searchMode.optional(),
  })
  .strict();
export type SearchBody = z.infer<typeof searchBody>;

export const documentListQuery = z.object({
  tenant: tenantParam.optional(),
  state: z.enum(Object.values(DOCUMENT_STATE) as [string, ...string[]]).optional(),
  q: z.string().max(200).refine(noControl, NO_CONTROL).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
