// Browser-side API access. The dashboard's reads and actions go through the typed OpenAPI client
// (openapi-fetch over lib/client/openapi-types.ts, the types the CLI uses too): paths, parameters,
// bodies and answers are checked against the document the server serves. The session cookie
// travels automatically.
import type { z } from "zod";
import createClient from "openapi-fetch";
import type { paths, Schemas } from "../client";
import {
  apiErrorBodySchema,
  documentDetailSchema,
  type DocumentDetail,
  type PublishInput,
  type PublishResult,
} from "./schemas";

/** An error answer from the API, or a network/shape failure (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Per-field messages when the backend names the offending fields (keys are field names). */
  readonly fieldErrors: Record<string, string>;
  /** The error's `details` as the API sent them (e.g. the counts a MIGRATION_NOT_READY carries). */
  readonly details: unknown;

  constructor(
    status: number,
    code: string,
    message: string,
    fieldErrors: Record<string, string> = {},
    details: unknown = undefined,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
    this.details = details;
  }

  get isNotFound(): boolean {
    return this.status === 404;
  }
  get isUnauthorized(): boolean {
    return this.status === 401;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** Human text for any thrown value. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message || e.code;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** Accepts the shapes a validation error might use: [{path, message}], {field: message}, {field: [messages]}. */
function collectFieldErrors(...candidates: unknown[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of candidates) {
    if (!c) continue;
    if (Array.isArray(c)) {
      for (const item of c) {
        if (item && typeof item === "object") {
          const rec = item as { path?: unknown; field?: unknown; message?: unknown };
          const path = Array.isArray(rec.path) ? rec.path.join(".") : (rec.path ?? rec.field);
          if (typeof path === "string" && path && typeof rec.message === "string") out[path] ??= rec.message;
        }
      }
    } else if (typeof c === "object") {
      const rec = c as Record<string, unknown>;
      const nested = rec.fieldErrors ?? rec.fields ?? rec.issues;
      if (nested && nested !== c) Object.assign(out, collectFieldErrors(nested));
      for (const [k, v] of Object.entries(rec)) {
        if (k === "fieldErrors" || k === "fields" || k === "issues" || k === "formErrors") continue;
        if (typeof v === "string") out[k] ??= v;
        else if (Array.isArray(v) && typeof v[0] === "string") out[k] ??= v[0];
      }
    }
  }
  return out;
}

export async function errorFrom(res: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  const parsed = apiErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { code, message, details, issues, fields } = parsed.data.error;
    const fieldErrors = collectFieldErrors(details, issues, fields);
    // Validation messages may name the field as a prefix: "title: Too small: expected string to have >=1 characters".
    const prefixed = message ? /^([A-Za-z_][\w.]*): (.+)$/s.exec(message) : null;
    if (Object.keys(fieldErrors).length === 0 && prefixed && res.status >= 400 && res.status < 500)
      fieldErrors[prefixed[1]] = prefixed[2];
    return new ApiError(res.status, code, message || defaultMessage(res.status), fieldErrors, details);
  }
  return new ApiError(res.status, `HTTP_${res.status}`, defaultMessage(res.status));
}

function defaultMessage(status: number): string {
  if (status === 401) return "Your session has expired. Sign in again.";
  if (status === 403) return "You do not have permission to do that.";
  if (status === 404) return "Not found.";
  if (status >= 500) return `The server failed to answer (HTTP ${status}). Try again.`;
  return `Request failed (HTTP ${status}).`;
}

/**
 * fetch for the dashboard: a network failure is an ApiError with status 0, a non-2xx answer the
 * API's error (code, message, field errors), and a 2xx answer that is not JSON a BAD_RESPONSE.
 */
async function dashboardFetch(input: Request): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(input);
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "NETWORK_ERROR", "Could not reach the server. Check your connection and try again.");
  }
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return res;
  const text = await res.text();
  try {
    JSON.parse(text);
  } catch {
    throw new ApiError(res.status, "BAD_RESPONSE", "The server sent a response that is not JSON.");
  }
  return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** The typed client the dashboard calls the API with (same origin). */
export const api = createClient<paths>({
  baseUrl: "",
  headers: { accept: "application/json" },
  credentials: "same-origin",
  cache: "no-store",
  fetch: dashboardFetch,
});

type Outcome<T> = { data?: T; response: Response };

/** The answer's data; errors were already thrown by dashboardFetch. */
async function answer<T>(call: Promise<Outcome<T>>): Promise<T> {
  return (await call).data as T;
}

export function parse<S extends z.ZodType>(schema: S, json: unknown, what: string): z.output<S> {
  const r = schema.safeParse(json);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first ? ` (${first.path.join(".") || "root"}: ${first.message})` : "";
    throw new ApiError(0, "BAD_RESPONSE", `Unexpected ${what} response from the server${where}.`);
  }
  return r.data;
}

const seg = encodeURIComponent;

export function documentHref(tenant: string, key: string): string {
  return `/documents/${seg(tenant)}/${seg(key)}`;
}

export function taskHref(taskId: string): string {
  return `/tasks/${seg(taskId)}`;
}

export type DocumentFilters = { tenant?: string; state?: string; q?: string };
export type DocumentPage = Schemas["DocumentPage"];
export type DocumentSummary = Schemas["DocumentSummary"];
export type Tenant = Schemas["Tenant"];

/** Empty filters are left out of the query string, as the forms leave them empty. */
export const given = <T extends Record<string, string | number | null | undefined>>(filters: T) =>
  Object.fromEntries(
    Object.entries(filters).filter(([, v]) => v !== undefined && v !== null && v !== ""),
  ) as Partial<T>;

export async function fetchDocuments(
  filters: DocumentFilters,
  cursor: string | null,
  signal?: AbortSignal,
  limit = 50,
): Promise<DocumentPage> {
  const { tenant, state, q } = filters;
  const query = { ...given({ tenant, state, q }), ...(cursor ? { cursor } : {}), limit } as NonNullable<
    paths["/api/v1/documents"]["get"]["parameters"]["query"]
  >;
  return answer(api.GET("/api/v1/documents", { params: { query }, signal }));
}

export async function fetchTenants(signal?: AbortSignal): Promise<Tenant[]> {
  return (await answer(api.GET("/api/v1/tenants", { signal }))).items;
}

const docPath = (tenant: string, key: string) => ({ path: { tenant, key } });

export async function fetchDocument(tenant: string, key: string, signal?: AbortSignal): Promise<DocumentDetail> {
  return parse(
    documentDetailSchema,
    await answer(api.GET("/api/v1/tenants/{tenant}/documents/{key}", { params: docPath(tenant, key), signal })),
    "document",
  );
}

export async function publishDocument(input: PublishInput): Promise<PublishResult> {
  const body = {
    title: input.title,
    contentType: input.contentType,
    content: input.content,
    ...(input.acl && input.acl.length > 0 ? { acl: input.acl } : {}),
  };
  const { data, response } = await api.POST("/api/v1/tenants/{tenant}/documents/{key}/versions", {
    params: docPath(input.tenant, input.key),
    body,
  });
  return { ...(data as Schemas["PublishResult"]), unchanged: response.status === 200 };
}

// ---------- operations ----------

export type TaskFilters = { status?: string; errorCode?: string; type?: string; tenant?: string };
export type OpsTask = Schemas["Task"];
export type TaskPage = Schemas["TaskPage"];
export type TaskDetail = Schemas["TaskDetail"];
export type TaskEvent = Schemas["TaskEvent"];
export type TaskActionResult = Schemas["TaskActionResult"];
export type WorkerInfo = Schemas["Worker"];
export type AuditEntry = Schemas["AuditEntry"];
export type AuditPage = Schemas["AuditPage"];
export type RollbackResult = Schemas["RollbackResult"];
export type UnpinResult = Schemas["UnpinResult"];

export async function fetchTasks(
  filters: TaskFilters,
  cursor: string | null,
  signal?: AbortSignal,
  limit = 50,
): Promise<TaskPage> {
  const { status, errorCode, type, tenant } = filters;
  const query = { ...given({ status, errorCode, type, tenant }), ...(cursor ? { cursor } : {}), limit } as NonNullable<
    paths["/api/v1/tasks"]["get"]["parameters"]["query"]
  >;
  return answer(api.GET("/api/v1/tasks", { params: { query }, signal }));
}

const taskPath = (taskId: string) => ({ path: { taskId } });

export async function fetchTask(taskId: string, signal?: AbortSignal): Promise<TaskDetail> {
  return answer(api.GET("/api/v1/tasks/{taskId}", { params: taskPath(taskId), signal }));
}

const trimmedReason = (reason?: string) => (reason && reason.trim() ? { reason: reason.trim() } : {});

/** DEAD → PENDING with a fresh attempt budget. */
export async function retryTask(taskId: string, reason?: string): Promise<TaskActionResult> {
  return answer(api.POST("/api/v1/tasks/{taskId}/retry", { params: taskPath(taskId), body: trimmedReason(reason) }));
}

/** DEAD → RESOLVED (operator force-close; not a success). */
export async function forceDoneTask(taskId: string, reason: string): Promise<TaskActionResult> {
  return answer(
    api.POST("/api/v1/tasks/{taskId}/force-done", { params: taskPath(taskId), body: { reason: reason.trim() } }),
  );
}

export type BulkRetryInput = { errorCode?: string; tenant?: string; type?: string; reason?: string };

export async function bulkRetryTasks(input: BulkRetryInput): Promise<{ retried: number; skipped: number }> {
  const { errorCode, tenant, type } = input;
  const body = { status: "DEAD", ...given({ errorCode, tenant, type }), ...trimmedReason(input.reason) } as NonNullable<
    paths["/api/v1/tasks/retry"]["post"]["requestBody"]
  >["content"]["application/json"];
  return answer(api.POST("/api/v1/tasks/retry", { body }));
}

export async function fetchWorkers(signal?: AbortSignal): Promise<WorkerInfo[]> {
  return (await answer(api.GET("/api/v1/workers", { signal }))).items;
}

export async function fetchAudit(cursor: string | null, signal?: AbortSignal, limit = 50): Promise<AuditPage> {
  return answer(api.GET("/api/v1/audit", { params: { query: { ...(cursor ? { cursor } : {}), limit } }, signal }));
}

export type DocumentRef = { tenant: string; key: string };

export async function rollbackDocument(doc: DocumentRef, toVersion: number, reason: string): Promise<RollbackResult> {
  return answer(
    api.POST("/api/v1/tenants/{tenant}/documents/{key}/rollback", {
      params: docPath(doc.tenant, doc.key),
      body: { toVersion, reason: reason.trim() },
    }),
  );
}

/** Releases a rollback pin; repeating it is a harmless no-op (still audited). */
export async function unpinDocument(doc: DocumentRef): Promise<UnpinResult> {
  return answer(api.POST("/api/v1/tenants/{tenant}/documents/{key}/unpin", { params: docPath(doc.tenant, doc.key) }));
}

export async function reindexDocument(doc: DocumentRef): Promise<{ taskId: string }> {
  return answer(api.POST("/api/v1/tenants/{tenant}/documents/{key}/reindex", { params: docPath(doc.tenant, doc.key) }));
}

export async function deleteDocument(doc: DocumentRef): Promise<{ taskId: string }> {
  return answer(api.DELETE("/api/v1/tenants/{tenant}/documents/{key}", { params: docPath(doc.tenant, doc.key) }));
}

/** Either a machine/person access token, or a person's email and password. */
export type SignInCredentials = { token: string } | { email: string; password: string };

export async function signIn(credentials: string | SignInCredentials): Promise<{ role: string | null }> {
  const body = typeof credentials === "string" ? { token: credentials } : credentials;
  const data = await answer(api.POST("/api/auth/signin", { body }));
  return { role: data && typeof data === "object" && "role" in data ? String(data.role) : null };
}

export async function signOut(): Promise<void> {
  await api.POST("/api/auth/signout");
}

/** "a, b ,, c" → ["a","b","c"] (deduplicated, order kept). */
export function splitList(text: string): string[] {
  const seen = new Set<string>();
  for (const part of text.split(/[,\n]/)) {
    const t = part.trim();
    if (t) seen.add(t);
  }
  return [...seen];
}
