import { describe, expect, it } from "vitest";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { recordSpan, startTaskSpan } from "../../lib/tracing";

// The worker records its spans after the fact from performance.now() readings. The SDK turns such
// a reading into wall time with an offset it takes from Date.now() when each span is made, which
// moves spans by up to a millisecond against each other: a step that starts where the last one
// ended was seen starting before it (test/ops/tracing.test.ts failed so). One fixed origin keeps
// the order the pipeline measured.
describe("span times from performance.now() readings", () => {
  it("keep their order across spans: each step starts where the one before it ended", () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
    const ns = (t: [number, number]) => BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
    const { span, steps } = startTaskSpan(tracer, null, "task INDEX", {}, performance.now());
    let at = performance.now();
    for (let i = 0; i < 300; i++) {
      const next = at + 0.05; // steps of 50 µs, far below Date.now()'s resolution
      steps.span(`step ${i}`, at, next);
      at = next;
    }
    recordSpan(tracer, null, "claim", at, at + 0.05);
    span.end();
    const ended = exporter.getFinishedSpans().filter((s) => s.name !== "task INDEX");
    expect(ended).toHaveLength(301);
    const out: string[] = [];
    for (let i = 1; i < ended.length; i++) {
      const gap = ns(ended[i].startTime) - ns(ended[i - 1].endTime);
      // Within rounding to the nanosecond, never a step back.
      if (gap < -1n || gap > 1n) out.push(`${ended[i].name} starts ${gap} ns after ${ended[i - 1].name} ends`);
    }
    expect(out).toEqual([]);
  });
});
