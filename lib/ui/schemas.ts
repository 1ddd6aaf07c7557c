// Client-side view of the JSON API. Schemas are deliberately a little lenient (numbers may arrive as
// strings, optional fields may be missing) so a harmless backend change does not blank the dashboard;
// everything is normalised to the shapes below.
import { z } from "zod";
import { DOCUMENT_STATE, type DocumentState } from "@/lib/domain/constants";

export const DOCUMENT_STATES = Object.values(DOCUMENT_STATE) as DocumentState[];

/** States in which a document has work in flight (progress is meaningful, poll faster). */
export const BUSY_STATES: readonly DocumentState[] = [DOCUMENT_STATE.INDEXING, DOCUMENT_STATE.UPDATING];

export function isBusy(state: DocumentState): boolean {
  return BUSY_STATES.includes(state);
}

export function isDocumentState(v: unknown): v is DocumentState {
  return typeof v === "string" && (DOCUMENT_STATES as string[]).includes(v);
}

const num = z.coerce.number();
// null must be tried first: z.coerce.number() would turn null into 0.
const nullableNum = z
  .union([z.null(), num])
  .optional()
  .transform((v) => v ?? null);
const nullableStr = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

export const progressSchema = z
  .object({ done: num, total: num })
  .nullish()
  .transform((v) => v ?? null);
export type Progress = { done: number; total: number } | null;

export const lastErrorSchema = z
  .object({ code: z.string(), message: z.string().nullish().transform((v) => v ?? "") })
  .nullish()
  .transform((v) => v ?? null);
export type LastError = { code: string; message: string } | null;

export const documentStateSchema = z.enum(DOCUMENT_STATES as [DocumentState, ...DocumentState[]]);

export const documentSummarySchema = z.object({
  tenant: z.string(),
  key: z.string(),
  title: z.string().nullish().transform((v) => v ?? ""),
  state: documentStateSchema,
  businessVersion: num,
  searchVersion: nullableNum,
  lastError: lastErrorSchema,
  progress: progressSchema,
  updatedAt: z.string(),
});
export type DocumentSummary = z.infer<typeof documentSummarySchema>;

export const documentPageSchema = z.object({
  items: z.array(documentSummarySchema),
  nextCursor: nullableStr,
});
export type DocumentPage = z.infer<typeof documentPageSchema>;

export const tenantsSchema = z.object({
  items: z.array(z.object({ id: z.string(), name: z.string().nullish().transform((v) => v ?? "") })),
});
export type Tenant = z.infer<typeof tenantsSchema>["items"][number];

export const versionSchema = z.object({
  versionNumber: num,
  title: z.string().nullish().transform((v) => v ?? ""),
  contentType: z.string().nullish().transform((v) => v ?? ""),
  contentBytes: nullableNum,
  checksum: z.string().nullish().transform((v) => v ?? ""),
  acl: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
  publishedBy: z.string().nullish().transform((v) => v ?? ""),
  publishedAt: z.string(),
});
export type DocumentVersion = z.infer<typeof versionSchema>;

export const taskSchema = z.object({
  taskId: z.coerce.string(),
  versionNumber: nullableNum,
  taskType: z.string(),
  status: z.string(),
  attempts: num,
  maxAttempts: num,
  errorCode: nullableStr,
  errorMessage: nullableStr,
  progress: progressSchema,
  createdAt: z.string(),
  updatedAt: z.string().nullish().transform((v) => v ?? null),
  finishedAt: nullableStr,
});
export type DocumentTask = z.infer<typeof taskSchema>;

export const documentDetailSchema = documentSummarySchema.omit({ updatedAt: true }).extend({
  updatedAt: z.string().nullish().transform((v) => v ?? null),
  versions: z
    .array(versionSchema)
    .nullish()
    .transform((v) => v ?? []),
  tasks: z
    .array(taskSchema)
    .nullish()
    .transform((v) => v ?? []),
});
export type DocumentDetail = z.infer<typeof documentDetailSchema>;

export const CONTENT_TYPES = ["text/markdown", "text/plain", "text/html"] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export type PublishInput = {
  tenant: string;
  key: string;
  title: string;
  contentType: ContentType;
  content: string;
  acl?: string[];
};

export const publishResultSchema = z.object({
  documentId: z.coerce.string().nullish(),
  versionNumber: num,
  taskId: z.coerce.string().nullish().transform((v) => v ?? null),
  state: z.string().nullish(),
});
export type PublishResult = z.infer<typeof publishResultSchema> & { unchanged: boolean };

export const searchHitSchema = z.object({
  documentKey: z.string(),
  versionNumber: num,
  chunkId: z.coerce.string(),
  sectionPath: z
    .union([z.string(), z.array(z.string())])
    .nullish()
    .transform((v) => (Array.isArray(v) ? v.join(" › ") : (v ?? ""))),
  text: z.string(),
  score: num,
});
export type SearchHit = z.infer<typeof searchHitSchema>;

export const searchResultSchema = z.object({ hits: z.array(searchHitSchema) });

export type SearchInput = { tenant: string; query: string; topK: number; principals: string[] };

/** `{ error: { code, message } }`, with optional per-field details if the backend sends any. */
export const apiErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string().nullish(),
    details: z.unknown().optional(),
    issues: z.unknown().optional(),
    fields: z.unknown().optional(),
  }),
});
