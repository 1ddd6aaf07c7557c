import { afterAll, beforeAll, describe, expect, it } from "vitest";
import net from "node:net";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor, SlowEmbedder, longDocument } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { TaskError } from "../../lib/queue/errors";
import { STEP } from "../../lib/domain/constants";
import { parseMetricsPort, startWorkerMetrics, type MetricsServer } from "../../worker/metrics-server";

// The worker's /metrics, scraped over HTTP while real tasks run against the test database.
let t: TestDb;
let server: MetricsServer;
beforeAll(async () => {
  t = await createTestDb();
  server = (await startWorkerMetrics({ WORKER_METRICS_PORT: "0", WORKER_METRICS_HOST: "127.0.0.1" }))!;
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

/** The local embedder, slowed per batch, that fails every batch of a document whose text says "poisoned". */
class TestEmbedder extends SlowEmbedder {
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    if (texts.some((x) => x.includes("poisoned")))
      throw new TaskError("EMBEDDING_INVALID_RESPONSE", "embedding has 12 dimensions, expected 384");
    return super.embed(texts, signal);
  }
}

async function scrape(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
}

/** One sample's value; 0 when the series is not there yet. */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

const doc = (key: string, content: string) =>
  publish(t.pool, {
    tenant: "wm",
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(content),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 8,
  });

const statusOf = async (taskId: string) =>
  (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [taskId])).rows[0].status as string;

describe("where the metrics server listens", () => {
  it("on loopback unless WORKER_METRICS_HOST widens it (no authentication, so not on every interface by default)", async () => {
    const local = (await startWorkerMetrics({ WORKER_METRICS_PORT: "0" }))!;
    try {
      expect(local.host).toBe("127.0.0.1");
    } finally {
      await local.close();
    }
    const wide = (await startWorkerMetrics({ WORKER_METRICS_PORT: "0", WORKER_METRICS_HOST: "0.0.0.0" }))!;
    try {
      expect(wide.host).toBe("0.0.0.0");
    } finally {
      await wide.close();
    }
  });
});

describe("worker metrics", () => {
  it("count tasks, steps and embedding calls while a real task runs, and failures by error code", async () => {
    const before = await scrape();
    for (const step of Object.values(STEP))
      expect(before).toMatch(
        new RegExp(`^indexwright_worker_step_duration_seconds_count\\{step="${step}"\\} \\d+$`, "m"),
      );
    const embedder = new TestEmbedder(150);
    const w = testWorker(t, "metrics-worker", { EMBED_BATCH_SIZE: "2" }, 1, embedder);
    const ok = await doc("handbook", longDocument(10, "metrics"));
    await w.start();
    try {
      // Mid-task: embedding calls are counted as they finish, the task is not counted yet.
      const during = await waitFor(async () => {
        const text = await scrape();
        return value(text, "indexwright_worker_embedding_request_seconds_count", { outcome: "ok" }) >= 2 ? text : null;
      });
      expect(await statusOf(ok.taskId!)).toBe("RUNNING");
      expect(value(during, "indexwright_worker_tasks_total", { type: "INDEX", outcome: "succeeded" })).toBe(0);

      await waitFor(async () => (await statusOf(ok.taskId!)) === "SUCCEEDED");
      const after = await waitFor(async () => {
        const text = await scrape();
        return value(text, "indexwright_worker_tasks_total", {
          type: "INDEX",
          outcome: "succeeded",
          error_code: "none",
        }) === 1
          ? text
          : null;
      });
      // Every step of the pipeline was timed once, and the embedding histogram holds every provider call.
      for (const step of Object.values(STEP)) {
        expect(
          value(after, "indexwright_worker_step_duration_seconds_count", { step }) -
            value(before, "indexwright_worker_step_duration_seconds_count", { step }),
        ).toBe(1);
      }
      expect(value(after, "indexwright_worker_step_duration_seconds_sum", { step: "embed" })).toBeGreaterThan(0.15 * 5);
      expect(value(after, "indexwright_worker_embedding_request_seconds_count", { outcome: "ok" })).toBe(
        embedder.calls,
      );
      expect(embedder.calls).toBeGreaterThanOrEqual(5);
      expect(value(after, "indexwright_worker_embedding_request_seconds_bucket", { outcome: "ok", le: "0.1" })).toBe(0); // each call slept 150 ms
      expect(
        value(after, "indexwright_worker_task_duration_seconds_count", { type: "INDEX", outcome: "succeeded" }),
      ).toBe(1);

      // A provider answer that can never be right: the task is DEAD at once, counted with its code.
      const bad = await doc("poisoned", "# Poisoned\n\nThis poisoned page cannot be embedded.");
      await waitFor(async () => (await statusOf(bad.taskId!)) === "DEAD");
      const failed = await waitFor(async () => {
        const text = await scrape();
        return value(text, "indexwright_worker_tasks_total", {
          type: "INDEX",
          outcome: "dead",
          error_code: "EMBEDDING_INVALID_RESPONSE",
        }) === 1
          ? text
          : null;
      });
      expect(
        value(failed, "indexwright_worker_embedding_errors_total", { error_code: "EMBEDDING_INVALID_RESPONSE" }),
      ).toBe(1);
      expect(value(failed, "indexwright_worker_embedding_request_seconds_count", { outcome: "error" })).toBe(1);
      // Steps past the failure were not counted for it.
      expect(value(failed, "indexwright_worker_step_duration_seconds_count", { step: "write" })).toBe(
        value(after, "indexwright_worker_step_duration_seconds_count", { step: "write" }),
      );
      // Process metrics come along, under the worker's prefix.
      expect(failed).toMatch(/^indexwright_worker_process_resident_memory_bytes \d+/m);
      // Labels stay low-cardinality: no task, document or tenant names.
      expect(failed).not.toMatch(/task_id|document|tenant|handbook|"wm"/);
    } finally {
      await w.stop(5000);
    }
  });

  it("answers /metrics only, to GET and HEAD", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(405);
    const head = await fetch(`${base}/metrics`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });
});

describe("WORKER_METRICS_PORT", () => {
  it("is off when unset, one port, a range, or 0; anything else is refused with the variable's name", () => {
    expect(parseMetricsPort(undefined)).toBeNull();
    expect(parseMetricsPort(" ")).toBeNull();
    expect(parseMetricsPort("9464")).toEqual({ from: 9464, to: 9464 });
    expect(parseMetricsPort("9464-9471")).toEqual({ from: 9464, to: 9471 });
    expect(parseMetricsPort("0")).toEqual({ from: 0, to: 0 });
    for (const bad of ["abc", "9471-9464", "70000", "9464-", "-1", "0-5", "9464,9465"]) {
      expect(() => parseMetricsPort(bad)).toThrow(/^invalid configuration: WORKER_METRICS_PORT/);
    }
  });

  it("with a range, takes the first free port, so worker processes on one machine share one setting", async () => {
    // Two ports next to each other, the first one taken by someone else.
    const blocker = net.createServer();
    let from = 0;
    for (let tries = 0; tries < 20 && from === 0; tries++) {
      await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
      const p = (blocker.address() as net.AddressInfo).port;
      const probe = net.createServer();
      const free = await new Promise<boolean>((r) => {
        probe.once("error", () => r(false));
        probe.listen(p + 1, "127.0.0.1", () => probe.close(() => r(true)));
      });
      if (free && p < 65535) from = p;
      else await new Promise<void>((r) => blocker.close(() => r()));
    }
    expect(from).toBeGreaterThan(0);
    const env = { WORKER_METRICS_PORT: `${from}-${from + 1}`, WORKER_METRICS_HOST: "127.0.0.1" };
    const second = (await startWorkerMetrics(env))!;
    try {
      expect(second.port).toBe(from + 1);
      await expect(startWorkerMetrics(env)).rejects.toThrow(`every port from ${from} to ${from + 1} is in use`);
    } finally {
      await second.close();
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });
});
