import { context, propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { TracingSettings } from "./config";
import { setActiveTracer } from "./tracing";
import { log } from "./log";

// The OpenTelemetry SDK, started once per process (cli/web.ts, worker/main.ts) when an OTLP
// endpoint is configured; kept out of lib/tracing.ts so route bundles never load it.

export type Tracing = { shutdown: () => Promise<void> };

/**
 * Starts tracing for this process: spans batched to the OTLP endpoint in `settings`, or (tests) to
 * `exporter`, sent as each span ends. Registered globally too, so Next's own spans join the same
 * traces and the publish route's span is a child of Next's request span.
 */
export function startTracing(
  process: "web" | "worker",
  settings: TracingSettings | null,
  exporter?: SpanExporter,
): Tracing | null {
  let processor: SpanProcessor;
  if (exporter) processor = new SimpleSpanProcessor(exporter);
  else if (settings)
    processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.url, headers: settings.headers }));
  else return null;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      "service.name": settings?.serviceName ?? `indexwright-${process}`,
      "indexwright.process": process,
    }),
    spanProcessors: [processor],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  setActiveTracer(provider.getTracer("indexwright"));
  if (settings) log.info({ url: settings.url }, "tracing: spans exported over OTLP/HTTP");
  return {
    shutdown: async () => {
      setActiveTracer(null);
      // Flushes what the batch processor still holds; an unreachable collector must not hold up a stop.
      await provider.shutdown().catch((err: unknown) => log.warn({ err }, "tracing: final export failed"));
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
