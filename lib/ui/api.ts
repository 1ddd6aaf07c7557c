// Browser-side fetch helpers for the same-origin JSON API. The session cookie travels automatically.
import type { z } from "zod";
import {
  apiErrorBodySchema,
  auditPageSchema,
  bulkRetryResultSchema,
  rollbackResultSchema,
  taskActionResultSchema,
  unpinResultSchema,
  taskCreatedSchema,
  taskDetailSchema,
  taskPageSchema,
  workersSchema,
  type AuditPage,
  type RollbackResult,
  type TaskActionResult,
  type TaskDetail,
  type TaskPage,
  type UnpinResult,
  type WorkerInfo,
  documentDetailSchema,
  documentPageSchema,
  publishResultSchema,
  tenantsSchema,
  type DocumentDetail,
  type DocumentPage,
  type PublishInput,
  type PublishResult,
  type Tenant,
} from "./schemas";

/** An error answer from the API, or a network/shape failure (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Per-field messages when the backend names the offending fields (keys are field names). */
  readonly fieldErrors: Record<string, string>;

  constructor(status: number, code: string, message: string, fieldErrors: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
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
    if (Object.keys(fieldErrors).length === 0 && prefixed && res.status >= 400 && res.status < 500) fieldErrors[prefixed[1]] = prefixed[2];
    return new ApiError(res.status, code, message || defaultMessage(res.status), fieldErrors);
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

type RequestOptions = { method?: "GET" | "POST" | "PATCH" | "DELETE"; body?: unknown; signal?: AbortSignal };

export async function request(url: string, opts: RequestOptions = {}): Promise<{ res: Response; json: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: opts.method ?? "GET",
      headers: opts.body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: "same-origin",
      cache: "no-store",
      signal: opts.signal,
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "NETWORK_ERROR", "Could not reach the server. Check your connection and try again.");
  }
  if (!res.ok) throw await errorFrom(res);
  let json: unknown = null;
  if (res.status !== 204) {
    try {
      json = await res.json();
    } catch {
      throw new ApiError(res.status, "BAD_RESPONSE", "The server sent a response that is not JSON.");
    }
  }
  return { res, json };
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

export async function fetchDocuments(
  filters: DocumentFilters,
  cursor: string | null,
  signal?: AbortSignal,
  limit = 50,
): Promise<DocumentPage> {
  const qs = new URLSearchParams();
  if (filters.tenant) qs.set("tenant", filters.tenant);
  if (filters.state) qs.set("state", filters.state);
  if (filters.q) qs.set("q", filters.q);
  if (cursor) qs.set("cursor", cursor);
  qs.set("limit", String(limit));
  const { json } = await request(`/api/v1/documents?${qs}`, { signal });
  return parse(documentPageSchema, json, "document list");
}

export async function fetchTenants(signal?: AbortSignal): Promise<Tenant[]> {
  const { json } = await request("/api/v1/tenants", { signal });
  return parse(tenantsSchema, json, "tenant list").items;
}

export async function fetchDocument(tenant: string, key: string, signal?: AbortSignal): Promise<DocumentDetail> {
  const { json } = await request(`/api/v1/tenants/${seg(tenant)}/documents/${seg(key)}`, { signal });
  return parse(documentDetailSchema, json, "document");
}

export async function publishDocument(input: PublishInput): Promise<PublishResult> {
  const body: Record<string, unknown> = { title: input.title, contentType: input.contentType, content: input.content };
  if (input.acl && input.acl.length > 0) body.acl = input.acl;
  const { res, json } = await request(`/api/v1/tenants/${seg(input.tenant)}/documents/${seg(input.key)}/versions`, {
    method: "POST",
    body,
  });
  return { ...parse(publishResultSchema, json, "publish"), unchanged: res.status === 200 };
}

// ---------- operations ----------

export type TaskFilters = { status?: string; errorCode?: string; type?: string; tenant?: string };

export async function fetchTasks(filters: TaskFilters, cursor: string | null, signal?: AbortSignal, limit = 50): Promise<TaskPage> {
  const qs = new URLSearchParams();
  if (filters.status) qs.set("status", filters.status);
  if (filters.errorCode) qs.set("errorCode", filters.errorCode);
  if (filters.type) qs.set("type", filters.type);
  if (filters.tenant) qs.set("tenant", filters.tenant);
  if (cursor) qs.set("cursor", cursor);
  qs.set("limit", String(limit));
  const { json } = await request(`/api/v1/tasks?${qs}`, { signal });
  return parse(taskPageSchema, json, "task list");
}

export async function fetchTask(taskId: string, signal?: AbortSignal): Promise<TaskDetail> {
  const { json } = await request(`/api/v1/tasks/${seg(taskId)}`, { signal });
  return parse(taskDetailSchema, json, "task");
}

/** DEAD → PENDING with a fresh attempt budget. */
export async function retryTask(taskId: string, reason?: string): Promise<TaskActionResult> {
  const body: Record<string, unknown> = {};
  if (reason && reason.trim()) body.reason = reason.trim();
  const { json } = await request(`/api/v1/tasks/${seg(taskId)}/retry`, { method: "POST", body });
  return parse(taskActionResultSchema, json, "retry");
}

/** DEAD → RESOLVED (operator force-close; not a success). */
export async function forceDoneTask(taskId: string, reason: string): Promise<TaskActionResult> {
  const { json } = await request(`/api/v1/tasks/${seg(taskId)}/force-done`, { method: "POST", body: { reason: reason.trim() } });
  return parse(taskActionResultSchema, json, "force-done");
}

export type BulkRetryInput = { errorCode?: string; tenant?: string; type?: string; reason?: string };

export async function bulkRetryTasks(input: BulkRetryInput): Promise<{ retried: number; skipped: number }> {
  const body: Record<string, unknown> = { status: "DEAD" };
  if (input.errorCode) body.errorCode = input.errorCode;
  if (input.tenant) body.tenant = input.tenant;
  if (input.type) body.type = input.type;
  if (input.reason && input.reason.trim()) body.reason = input.reason.trim();
  const { json } = await request("/api/v1/tasks/retry", { method: "POST", body });
  return parse(bulkRetryResultSchema, json, "bulk retry");
}

export async function fetchWorkers(signal?: AbortSignal): Promise<WorkerInfo[]> {
  const { json } = await request("/api/v1/workers", { signal });
  return parse(workersSchema, json, "worker list").items;
}

export async function fetchAudit(cursor: string | null, signal?: AbortSignal, limit = 50): Promise<AuditPage> {
  const qs = new URLSearchParams();
  if (cursor) qs.set("cursor", cursor);
  qs.set("limit", String(limit));
  const { json } = await request(`/api/v1/audit?${qs}`, { signal });
  return parse(auditPageSchema, json, "audit log");
}

export type DocumentRef = { tenant: string; key: string };

export async function rollbackDocument(doc: DocumentRef, toVersion: number, reason: string): Promise<RollbackResult> {
  const { json } = await request(`/api/v1/tenants/${seg(doc.tenant)}/documents/${seg(doc.key)}/rollback`, {
    method: "POST",
    body: { toVersion, reason: reason.trim() },
  });
  return parse(rollbackResultSchema, json, "rollback");
}

/** Releases a rollback pin; repeating it is a harmless no-op (still audited). */
export async function unpinDocument(doc: DocumentRef): Promise<UnpinResult> {
  const { json } = await request(`/api/v1/tenants/${seg(doc.tenant)}/documents/${seg(doc.key)}/unpin`, { method: "POST", body: {} });
  return parse(unpinResultSchema, json, "unpin");
}

export async function reindexDocument(doc: DocumentRef): Promise<{ taskId: string }> {
  const { json } = await request(`/api/v1/tenants/${seg(doc.tenant)}/documents/${seg(doc.key)}/reindex`, { method: "POST", body: {} });
  return parse(taskCreatedSchema, json, "reindex");
}

export async function deleteDocument(doc: DocumentRef): Promise<{ taskId: string }> {
  const { json } = await request(`/api/v1/tenants/${seg(doc.tenant)}/documents/${seg(doc.key)}`, { method: "DELETE" });
  return parse(taskCreatedSchema, json, "delete");
}

/** Either a machine/person access token, or a person's email and password. */
export type SignInCredentials = { token: string } | { email: string; password: string };

export async function signIn(credentials: string | SignInCredentials): Promise<{ role: string | null }> {
  const body = typeof credentials === "string" ? { token: credentials } : credentials;
  const { json } = await request("/api/auth/signin", { method: "POST", body });
  const role = json && typeof json === "object" && "role" in json ? String((json as { role: unknown }).role) : null;
  return { role };
}

export async function signOut(): Promise<void> {
  await request("/api/auth/signout", { method: "POST" });
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
