import { AsyncLocalStorage } from "node:async_hooks";

/** What a request's log line says about the caller, filled in while the route handler runs. */
export type RequestContext = { subject: string | null };

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
