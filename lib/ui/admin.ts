// Admin console (API tokens and users): client-side schemas, fetchers, React Query hooks and the
// small validators the dialogs share. Only import from client components.
import { z } from "zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ROLES, type Role } from "@/lib/domain/constants";
import { isApiError, parse, request } from "./api";
import { queryKeys } from "./hooks";
import { CAPABILITIES, type Capability } from "./trust";

// ---------- schemas ----------

const nullableStr = z
  .string()
  .nullish()
  .transform((v) => v ?? null);
/** A stored grant: ["*"] = all tenants, [] = none at all, otherwise the list. */
const tenantList = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);
const stringList = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);
const roleSchema = z.enum(ROLES);
const tokenKind = z
  .enum(["application", "person"])
  .nullish()
  .transform((v) => v ?? "application");
const capabilityList = z
  .array(z.string())
  .nullish()
  .transform((v) => (v ?? []).filter((c): c is Capability => (CAPABILITIES as readonly string[]).includes(c)));

export const adminTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** "person": acts as the user (never more than their role and tenants); "application": a machine. */
  kind: tokenKind,
  userId: nullableStr,
  userEmail: nullableStr,
  role: roleSchema,
  tenants: tenantList,
  capabilities: capabilityList,
  createdBy: z.string().nullish().transform((v) => v ?? ""),
  createdAt: z.string(),
  lastUsedAt: nullableStr,
  revokedAt: nullableStr,
});
export type AdminToken = z.infer<typeof adminTokenSchema>;

export const createdTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: tokenKind,
  userId: nullableStr,
  role: roleSchema,
  tenants: tenantList,
  capabilities: capabilityList,
  token: z.string().min(1),
});
export type CreatedToken = z.infer<typeof createdTokenSchema>;

export const adminUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  tenants: tenantList,
  /** Assigned by an admin (editable here). */
  groups: stringList,
  /** From the identity provider's groups claim at the last single sign-on (read-only here). */
  ssoGroups: stringList,
  createdAt: z.string().nullish().transform((v) => v ?? null),
  disabledAt: nullableStr,
  sso: z.boolean().optional().default(false),
  activeSessions: z.number().int().nonnegative().optional().default(0),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

const tokensSchema = z.object({ items: z.array(adminTokenSchema) });
const usersSchema = z.object({ items: z.array(adminUserSchema) });
const revokedSchema = z.object({ id: z.string(), revoked: z.boolean() });
const createdUserSchema = adminUserSchema.omit({ createdAt: true, disabledAt: true, sso: true, activeSessions: true, ssoGroups: true });
const updatedUserSchema = adminUserSchema.omit({ createdAt: true, sso: true, activeSessions: true }).extend({ sessionsEnded: z.number().int().optional().default(0) });

// ---------- fetchers ----------

const seg = encodeURIComponent;

export async function fetchTokens(signal?: AbortSignal): Promise<AdminToken[]> {
  const { json } = await request("/api/v1/admin/tokens", { signal });
  return parse(tokensSchema, json, "token list").items;
}

export type NewTokenInput =
  | { kind: "application"; name: string; role: Role; tenants: string[]; capabilities: Capability[] }
  | { kind: "person"; name: string; role: Role; tenants: string[]; userId: string };

export async function createToken(input: NewTokenInput): Promise<CreatedToken> {
  const body: Record<string, unknown> = { name: input.name.trim(), role: input.role, tenants: input.tenants, kind: input.kind };
  if (input.kind === "person") body.userId = input.userId;
  else if (input.capabilities.length > 0) body.capabilities = input.capabilities;
  const { json } = await request("/api/v1/admin/tokens", { method: "POST", body });
  return parse(createdTokenSchema, json, "new token");
}

export async function revokeToken(id: string): Promise<{ id: string; revoked: boolean }> {
  const { json } = await request(`/api/v1/admin/tokens/${seg(id)}`, { method: "DELETE" });
  return parse(revokedSchema, json, "revoke");
}

export async function fetchUsers(signal?: AbortSignal): Promise<AdminUser[]> {
  const { json } = await request("/api/v1/admin/users", { signal });
  return parse(usersSchema, json, "user list").items;
}

export type NewUserInput = { email: string; password: string | null; role: Role; tenants: string[]; groups: string[] };

export async function createUser(input: NewUserInput) {
  const body: Record<string, unknown> = { email: input.email.trim(), role: input.role, tenants: input.tenants };
  if (input.password !== null) body.password = input.password;
  if (input.groups.length > 0) body.groups = input.groups;
  const { json } = await request("/api/v1/admin/users", { method: "POST", body });
  return parse(createdUserSchema, json, "new user");
}

export type UserPatch = { role?: Role; tenants?: string[]; groups?: string[]; disabled?: boolean; password?: string; signOut?: true };

export async function updateUser(id: string, patch: UserPatch) {
  const { json } = await request(`/api/v1/admin/users/${seg(id)}`, { method: "PATCH", body: patch });
  return parse(updatedUserSchema, json, "user update");
}

// ---------- hooks ----------

export const adminKeys = {
  all: ["admin"] as const,
  tokens: ["admin", "tokens"] as const,
  users: ["admin", "users"] as const,
};

export function useAdminTokens() {
  return useQuery({ queryKey: adminKeys.tokens, queryFn: ({ signal }) => fetchTokens(signal) });
}

export function useAdminUsers() {
  return useQuery({ queryKey: adminKeys.users, queryFn: ({ signal }) => fetchUsers(signal) });
}

function useAdminMutation<TInput, TResult>(fn: (input: TInput) => Promise<TResult>, key: readonly unknown[]) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    // Refetch the table behind the dialog, and the audit log that now has one more entry.
    onSuccess: () => void Promise.all([qc.invalidateQueries({ queryKey: key }), qc.invalidateQueries({ queryKey: queryKeys.audit })]),
  });
}

export function useCreateToken() {
  return useAdminMutation(createToken, adminKeys.tokens);
}

export function useRevokeToken() {
  return useAdminMutation((id: string) => revokeToken(id), adminKeys.tokens);
}

export function useCreateUser() {
  return useAdminMutation(createUser, adminKeys.users);
}

export function useUpdateUser() {
  return useAdminMutation(({ id, patch }: { id: string; patch: UserPatch }) => updateUser(id, patch), adminKeys.users);
}

// ---------- shared form rules ----------

export const ROLE_OPTIONS: readonly Role[] = ROLES;

/** What each role may do, in one line (shown under role pickers). */
export const ROLE_HINT: Record<Role, string> = {
  viewer: "Read only: documents, tasks, workers and search.",
  maintainer: "Viewer, plus publish, reindex and delete documents.",
  operator: "Maintainer, plus retry and force-close tasks, roll back, and read the audit log.",
  admin: "Everything, including managing API tokens and users.",
};

export const MIN_PASSWORD = 12;

export function passwordProblem(password: string): string | null {
  if (password.length === 0) return "Enter a password.";
  if (password.length < MIN_PASSWORD) return `Use at least ${MIN_PASSWORD} characters (${password.length} so far).`;
  if (password.length > 500) return "Keep the password under 500 characters.";
  return null;
}

export function emailProblem(email: string): string | null {
  const t = email.trim();
  if (!t) return "Enter an email address.";
  if (!/^[^\s@]+@[^\s@]+$/.test(t)) return "Enter an email address like name@example.com.";
  return null;
}

/** The dialog field a refusal of a grant belongs to (the message says what exceeded what). */
export type GrantField = "role" | "tenants" | "capabilities" | "user";

/**
 * Maps the API's refusals of a grant to the field to fix: 403 GRANT_EXCEEDS_OWN (nobody grants more
 * than they hold), 400 CAPABILITY_NOT_ALLOWED, 409 USER_DISABLED and 404 for a person token's user.
 */
export function grantErrorField(error: unknown): { field: GrantField; message: string } | null {
  if (!isApiError(error)) return null;
  const m = error.message;
  if (error.code === "CAPABILITY_NOT_ALLOWED") return { field: "capabilities", message: m };
  if (error.code === "USER_DISABLED") return { field: "user", message: m };
  if (error.code !== "GRANT_EXCEEDS_OWN") return null;
  if (/metrics:read|capabilit/i.test(m)) return { field: "capabilities", message: m };
  if (/\brole\b|cannot be (viewer|maintainer|operator|admin)\b/i.test(m)) return { field: "role", message: m };
  return { field: "tenants", message: m };
}

/** A random password that satisfies the minimum comfortably (for the reset dialog's "Generate"). */
export function generatePassword(length = 20): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789-_";
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}
