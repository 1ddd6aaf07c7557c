import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";

/**
 * What a request's log line says about the caller, filled in while the route handler runs, and the
 * W3C traceparent of its server span when tracing is on (what a publish stores with its task).
 */
export type RequestContext = {
  subject: string | null;
  traceparent?: string | null;
  /** Where this request's reads go (lib/db/replica.ts chooseReadPool); unset: the primary. */
  read?: { source: "primary" | "replica"; pool: pg.Pool };
};

const store = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return store.run(ctx, fn);
}

/**
 * Records who is calling, for the request's log line (lib/http/handler.ts): the principal's subject
 * ("user:<email>", "token:<name>"), never a token or a session value. Outside a request it does
 * nothing.
 */
export function noteSubject(subject: string): void {
  const ctx = store.getStore();
  if (ctx) ctx.subject = subject;
}

/** The traceparent of the current request's span; null outside a request or with tracing off. */
export function requestTraceparent(): string | null {
  return store.getStore()?.traceparent ?? null;
}

/** The pool chosen for this request's reads, or undefined (outside a request, or a request that writes). */
export function requestReadPool(): pg.Pool | undefined {
  return store.getStore()?.read?.pool;
}

/** Where this request's reads go: "replica" only when a replica was chosen for it. */
export function requestReadSource(): "primary" | "replica" {
  return store.getStore()?.read?.source ?? "primary";
}

/** Sets where the current request's reads go (the handler does, before the route's code runs). */
export function setRequestRead(read: NonNullable<RequestContext["read"]>): void {
  const ctx = store.getStore();
  if (ctx) ctx.read = read;
}
