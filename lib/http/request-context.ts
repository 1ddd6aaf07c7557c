import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What a request's log line says about the caller, filled in while the route handler runs, and the
 * W3C traceparent of its server span when tracing is on (what a publish stores with its task).
 */
export type RequestContext = { subject: string | null; traceparent?: string | null };

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
