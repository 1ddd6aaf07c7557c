import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createTestDb, type TestDb } from "../helpers/db";
import type { Worker } from "../../worker/loop";
import type { Tracing } from "../../lib/tracing-setup";
import { tracingSettings } from "../../lib/config";

// Traces (docs/operations.md, "Traces"): one publish that becomes SEARCHABLE is one trace, the
// publish route's server span at its root and the worker's spans (claim, the task, its steps)
// under it, the task's context carried across the two processes by index_tasks.trace_parent.
// Web and worker run in this one process with one in-memory exporter, so the test sees both sides.

const TOKEN = "tracing-test-token-0123456789";
const VERSIONS = "/api/v1/tenants/[tenant]/documents/[key]/versions";
let t: TestDb;
let worker: Worker;
let tracing: Tracing | null = null;
let route: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
let detail: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/route");
let waitFor: typeof import("../helpers/worker").waitFor;
const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
  process.env.LOG_LEVEL = "silent";
  route = await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
  detail = await import("../../app/api/v1/tenants/[tenant]/documents/[key]/route");
  const helpers = await import("../helpers/worker");
  waitFor = helpers.waitFor;
  worker = helpers.testWorker(t, "tracing");
  await worker.start();
});

afterAll(async () => {
  await worker?.stop(5_000);
  await tracing?.shutdown();
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const publish = (key: string, content: string, headers: Record<string, string> = {}) =>
  route.POST(
    new Request(`http://localhost/api/v1/tenants/tr/documents/${key}/versions`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ title: key, contentType: "text/markdown", content }),
    }),
    { params: Promise.resolve({ tenant: "tr", key }) },
  );

const searchable = (key: string) =>
  waitFor(async () => {
    const res = await detail.GET(
      new Request(`http://localhost/api/v1/tenants/tr/documents/${key}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
      { params: Promise.resolve({ tenant: "tr", key }) },
    );
    return ((await res.json()) as { state: string }).state === "SEARCHABLE";
  }, 30_000);

const traceParentOf = async (taskId: string) =>
  (
    await t.pool.query<{ trace_parent: string | null }>(`SELECT trace_parent FROM index_tasks WHERE task_id = $1`, [
      taskId,
    ])
  ).rows[0].trace_parent;

const parentId = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe("tracing off (no OTLP endpoint)", () => {
  it("stores no trace context and records no span", async () => {
    const res = await publish("untraced", "# Untraced\n\nNothing here is traced.");
    expect(res.status).toBe(202);
    const { taskId } = (await res.json()) as { taskId: string };
    await searchable("untraced");
    expect(await traceParentOf(taskId)).toBeNull();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe("tracing on", () => {
  it("one publish → SEARCHABLE is one trace: the publish route's span, then the worker's claim, task and steps", async () => {
    const { startTracing } = await import("../../lib/tracing-setup");
    tracing = startTracing("web", null, exporter);
    expect(tracing).not.toBeNull();

    const res = await publish("traced", "# Traced\n\nThe first paragraph.\n\n## More\n\nThe second paragraph.");
    expect(res.status).toBe(202);
    const { taskId } = (await res.json()) as { taskId: string };
    await searchable("traced");
    // The task span ends just after the outcome is written, which the state read above may beat.
    await waitFor(async () => exporter.getFinishedSpans().some((s) => s.name === "task INDEX"));

    const stored = await traceParentOf(taskId);
    expect(stored).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    // Only spans of this publish's trace: the state reads above are traced too, each its own trace.
    const root = exporter.getFinishedSpans().find((s) => s.name === `POST ${VERSIONS}`)!;
    expect(root).toBeDefined();
    const traceId = root.spanContext().traceId;
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    expect(stored).toBe(`00-${traceId}-${root.spanContext().spanId}-01`);
    expect(parentId(root)).toBeUndefined();
    expect(root.attributes["http.response.status_code"]).toBe(202);

    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [claim] = byName("claim");
    const [task] = byName("task INDEX");
    expect(claim, "the claim continues the publisher's trace").toBeDefined();
    expect(task, "the task continues the publisher's trace").toBeDefined();
    expect(parentId(claim)).toBe(root.spanContext().spanId);
    expect(parentId(task)).toBe(root.spanContext().spanId);
    expect(task.attributes["indexwright.task.id"]).toBe(taskId);
    expect(task.attributes["indexwright.task.outcome"]).toBe("succeeded");
    for (const step of ["load", "parse", "chunk", "reuse", "embed", "write", "switch"]) {
      const s = byName(step);
      expect(s.length, step).toBeGreaterThanOrEqual(1);
      for (const one of s) {
        expect(parentId(one), `${step} is a child of the task`).toBe(task.spanContext().spanId);
        expect(one.duration[0] * 1e9 + one.duration[1], `${step} has a duration`).toBeGreaterThanOrEqual(0);
      }
    }
    // The steps run in order: each starts no earlier than the one before it.
    const startOf = (name: string) => byName(name)[0].startTime[0] * 1e9 + byName(name)[0].startTime[1];
    const order = ["load", "parse", "chunk", "reuse", "embed", "write", "switch"].map(startOf);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(byName("embed")[0].attributes["indexwright.embed.texts"]).toBeGreaterThan(0);
    // Nothing else in the trace: one web span and the worker's.
    expect(new Set(spans.map((s) => s.name))).toEqual(
      new Set([
        `POST ${VERSIONS}`,
        "claim",
        "task INDEX",
        "load",
        "parse",
        "chunk",
        "reuse",
        "embed",
        "write",
        "switch",
      ]),
    );
  });

  it("a publish that carries a caller's traceparent continues the caller's trace", async () => {
    const caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const res = await publish("called", "# Called\n\nA caller traced this.", { traceparent: caller });
    expect(res.status).toBe(202);
    await searchable("called");
    await waitFor(async () =>
      exporter
        .getFinishedSpans()
        .some((s) => s.name === "task INDEX" && s.spanContext().traceId === "0af7651916cd43dd8448eb211c80319c"),
    );
    const spans = exporter
      .getFinishedSpans()
      .filter((s) => s.spanContext().traceId === "0af7651916cd43dd8448eb211c80319c");
    const root = spans.find((s) => s.name === `POST ${VERSIONS}`)!;
    expect(parentId(root)).toBe("b7ad6b7169203331");
    expect(spans.find((s) => s.name === "task INDEX")?.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
  });

  it("after shutdown the hot path is back to no spans", async () => {
    await tracing!.shutdown();
    tracing = null;
    const { activeTracer, startRequestSpan } = await import("../../lib/tracing");
    expect(activeTracer()).toBeNull();
    expect(startRequestSpan(new Request("http://localhost/api/health"), "/api/health")).toBeUndefined();
    exporter.reset();
    const res = await publish("after", "# After\n\nNo longer traced.");
    const { taskId } = (await res.json()) as { taskId: string };
    await searchable("after");
    expect(await traceParentOf(taskId)).toBeNull();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe("tracing settings", () => {
  it("off without an endpoint; the traces URL from the base, or given whole; headers parsed", () => {
    expect(tracingSettings({})).toBeNull();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
      url: "http://collector:4318/v1/traces",
      headers: {},
      serviceName: null,
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://otel.example.com/ingest/traces",
        OTEL_EXPORTER_OTLP_HEADERS: "api-key=abc%3D1, x-team = search",
        OTEL_SERVICE_NAME: "kb-index",
      }),
    ).toEqual({
      url: "https://otel.example.com/ingest/traces",
      headers: { "api-key": "abc=1", "x-team": "search" },
      serviceName: "kb-index",
    });
  });

  it("refuses what is not an http(s) URL or a key=value list, naming the variable", () => {
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://collector" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() =>
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "novalue" }),
    ).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
  });
});
