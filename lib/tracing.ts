import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type HrTime,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

// Traces (docs/operations.md, "Traces"). This module is what the request path and the worker's hot
// path call; it holds no SDK, so it is cheap to import into every route bundle. The SDK is started
// by lib/tracing-setup.ts in the web and worker processes, only when an OTLP endpoint is set.
//
// The tracer lives on globalThis, not in a module variable: the web process starts tracing from
// cli/web.ts, while route handlers run from Next's server bundles, which hold their own copies of
// this module. Every call below first asks for it, and with tracing off does nothing else: no
// context is parsed and no span object is made.

const STATE = Symbol.for("indexwright.tracing");
type State = { tracer: Tracer };
const holder = globalThis as typeof globalThis & { [STATE]?: State };

/** The tracer when tracing is on; null (the usual case) when it is off. */
export function activeTracer(): Tracer | null {
  return holder[STATE]?.tracer ?? null;
}

/** Turns tracing on (a tracer) or off (null) for this process: lib/tracing-setup.ts and tests. */
export function setActiveTracer(tracer: Tracer | null): void {
  if (tracer) holder[STATE] = { tracer };
  else delete holder[STATE];
}

const w3c = new W3CTraceContextPropagator();

/** The W3C traceparent that names `span` as the parent of what continues its trace elsewhere. */
export function traceparentOf(span: Span): string | null {
  const carrier: Record<string, string> = {};
  w3c.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
  return carrier.traceparent ?? null;
}

/** A context whose parent is the span a stored traceparent names; the root context for none or a malformed one. */
export function contextOf(traceparent: string | null | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return w3c.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
}

/** Ends `span` as failed by `err` (the message only: no stack, no request data). */
export function failSpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * A request's server span, child of the span already active (Next's own, when Next is tracing) or
 * of the caller's `traceparent` header. Undefined when tracing is off. The route is the pattern,
 * never the URL: a query string can carry a sign-in code.
 */
export function startRequestSpan(req: Request, route: string): { span: Span; ctx: Context } | undefined {
  const tracer = activeTracer();
  if (!tracer) return undefined;
  const active = context.active();
  const parent = trace.getSpan(active)
    ? active
    : w3c.extract(active, Object.fromEntries(req.headers), defaultTextMapGetter);
  const span = tracer.startSpan(
    `${req.method} ${route}`,
    { kind: SpanKind.SERVER, attributes: { "http.request.method": req.method, "http.route": route } },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Runs `fn` with `ctx` active, so spans started inside (by us or a library) are its children. */
export function withContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

// The SDK turns a performance.now() reading into wall time with an offset it takes from Date.now()
// as each span is made, so spans recorded after the fact move by up to a millisecond against each
// other and a trace shows steps out of the order they ran. Readings go in as absolute times on one
// origin taken at start instead (whole seconds and the rest kept apart, so no nanosecond is lost
// to a double's precision at 1.8e12 ms).
const ORIGIN_MS = Date.now() - performance.now();
const ORIGIN_S = Math.floor(ORIGIN_MS / 1000);
const ORIGIN_REST_MS = ORIGIN_MS - ORIGIN_S * 1000;

/** A performance.now() reading as an absolute time on this process's one origin. */
export function hrTimeAt(ms: number): HrTime {
  const rest = ORIGIN_REST_MS + ms;
  const s = Math.floor(rest / 1000);
  const ns = Math.min(999_999_999, Math.round((rest - s * 1000) * 1e6));
  return [ORIGIN_S + s, ns];
}

/**
 * Spans of one held task in the worker, recorded after the fact with the times the pipeline
 * measured (performance.now() values): a batch's steps are shared by its tasks, which belong to
 * different traces, so each task gets its own copy of a shared step under its own task span.
 */
export type TaskTrace = {
  span(name: string, start: number, end: number, attributes?: Attributes, error?: unknown): void;
};

/** The task span (child of the publisher's span when the task carries its traceparent) and its step recorder. */
export function startTaskSpan(
  tracer: Tracer,
  traceparent: string | null | undefined,
  name: string,
  attributes: Attributes,
  startTime?: number,
): { span: Span; steps: TaskTrace } {
  const span = tracer.startSpan(
    name,
    { kind: SpanKind.CONSUMER, attributes, startTime: hrTimeAt(startTime ?? performance.now()) },
    contextOf(traceparent),
  );
  const parent = trace.setSpan(ROOT_CONTEXT, span);
  return {
    span,
    steps: {
      span(step, start, end, attrs, error) {
        const s = tracer.startSpan(step, { startTime: hrTimeAt(start), attributes: attrs }, parent);
        if (error !== undefined) failSpan(s, error);
        s.end(hrTimeAt(end));
      },
    },
  };
}

/** A span already over (start and end measured by the caller), child of the span `traceparent` names. */
export function recordSpan(
  tracer: Tracer,
  traceparent: string | null | undefined,
  name: string,
  start: number,
  end: number,
  attributes?: Attributes,
): void {
  tracer
    .startSpan(name, { kind: SpanKind.INTERNAL, startTime: hrTimeAt(start), attributes }, contextOf(traceparent))
    .end(hrTimeAt(end));
}
