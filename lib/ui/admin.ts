// Admin console (API tokens and users): answer types, fetchers, React Query hooks and the
// small validators the dialogs share. Only import from client components.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ROLES, type Role } from "@/lib/domain/constants";
import type { Schemas } from "../client";
import { api, isApiError } from "./api";
import { queryKeys } from "./hooks";
import type { Capability } from "./trust";

// ---------- types and fetchers (typed client) ----------

export type AdminToken = Schemas["Token"];
export type CreatedToken = Schemas["TokenCreated"];
export type AdminUser = Schemas["User"];

export async function fetchTokens(signal?: AbortSignal): Promise<AdminToken[]> {
  return (await api.GET("/api/v1/admin/tokens", { signal })).data!.items;
}

export type NewTokenInput =
  | { kind: "application"; name: string; role: Role; tenants: string[]; capabilities: Capability[] }
  | { kind: "person"; name: string; role: Role; tenants: string[]; userId: string };

export async function createToken(input: NewTokenInput): Promise<CreatedToken> {
  const body = {
    name: input.name.trim(),
    role: input.role,
    tenants: input.tenants,
    kind: input.kind,
    ...(input.kind === "person"
      ? { userId: input.userId }
      : input.capabilities.length > 0
        ? { capabilities: input.capabilities }
        : {}),
  };
  return (await api.POST("/api/v1/admin/tokens", { body })).data!;
}

export async function revokeToken(id: string): Promise<{ id: string; revoked: boolean }> {
  return (await api.DELETE("/api/v1/admin/tokens/{id}", { params: { path: { id } } })).data!;
}

export async function fetchUsers(signal?: AbortSignal): Promise<AdminUser[]> {
  return (await api.GET("/api/v1/admin/users", { signal })).data!.items;
}

export type NewUserInput = { email: string; password: string | null; role: Role; tenants: string[]; groups: string[] };

export async function createUser(input: NewUserInput) {
  const body = {
    email: input.email.trim(),
    role: input.role,
    tenants: input.tenants,
    ...(input.password !== null ? { password: input.password } : {}),
    ...(input.groups.length > 0 ? { groups: input.groups } : {}),
  };
  return (await api.POST("/api/v1/admin/users", { body })).data!;
}

export type UserPatch = {
  role?: Role;
  tenants?: string[];
  groups?: string[];
  disabled?: boolean;
  password?: string;
  signOut?: true;
};

export async function updateUser(id: string, patch: UserPatch) {
  return (await api.PATCH("/api/v1/admin/users/{id}", { params: { path: { id } }, body: patch })).data!;
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
    onSuccess: () =>
      void Promise.all([qc.invalidateQueries({ queryKey: key }), qc.invalidateQueries({ queryKey: queryKeys.audit })]),
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
