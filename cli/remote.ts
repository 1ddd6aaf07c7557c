import path from "node:path";
import { parseArgs } from "node:util";
import pLimit from "p-limit";
import { ApiRequestError, unwrap, type IndexwrightClient, type Schemas, type operations } from "../lib/client";
import { CONNECTION_OPTIONS, connect } from "./api";
import { print, printError } from "./print";
import { planSync, publishFile, remoteDocuments, scanFolder, type SyncPlan } from "./sync";
import { ProgressReporter, exitCodeOf, waitForDocument, type Goal, type WaitOutcome, type WaitResult } from "./wait";

// The commands that talk to a running server, through the typed client (lib/client). Every one
// takes --url, --token and --json; --json prints the API's answer (or, for sync, the plan and what
// was done) as JSON on stdout, and errors as {"error": {"code", "message"}} on stderr.

type Values = { url?: string; token?: string; json?: boolean };
type SearchBody = operations["search"]["requestBody"]["content"]["application/json"];

function required<T extends Record<string, unknown>>(cmd: string, values: T, names: (keyof T & string)[]): void {
  const missing = names.filter((n) => values[n] === undefined || values[n] === "");
  if (missing.length) throw new UsageError(`${cmd} needs ${missing.map((n) => `--${n}`).join(", ")}`);
}

/** A mistake on the command line: exit code 2, like the usage errors of other tools. */
export class UsageError extends Error {}

const out = (values: Values, data: unknown, human: () => string | string[]) => {
  if (values.json) print(JSON.stringify(data, null, 2));
  else {
    const text = human();
    print(Array.isArray(text) ? text.join("\n") : text);
  }
};

const WAIT_OPTIONS = { wait: { type: "boolean" }, timeout: { type: "string" } } as const;
const timeoutMs = (v?: string) => {
  const s = v === undefined ? 600 : Number(v);
  if (!Number.isFinite(s) || s <= 0) throw new UsageError(`--timeout takes seconds (got ${v})`);
  return s * 1000;
};

async function follow(
  client: IndexwrightClient,
  values: Values & { timeout?: string },
  target: { tenant: string; key: string },
  goal: Goal,
): Promise<WaitResult> {
  const r = await waitForDocument(client, target, goal, {
    timeoutMs: timeoutMs(values.timeout),
    reporter: new ProgressReporter(`${target.tenant}/${target.key}`),
  });
  process.exitCode = exitCodeOf(r.outcome);
  return r;
}

function describeWait(r: WaitResult): string {
  switch (r.outcome) {
    case "failed":
      return `failed: ${r.lastError ? `${r.lastError.code} ${r.lastError.message}` : r.state}`;
    case "timeout":
      return `timed out (state ${r.state})`;
    case "held":
      return "held: search stays on an older version (pinned by a rollback, or the build was force-done); unpin or reindex to serve this one";
    default:
      return r.outcome;
  }
}

export async function publishCmd(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...CONNECTION_OPTIONS,
      ...WAIT_OPTIONS,
      tenant: { type: "string" },
      key: { type: "string" },
      file: { type: "string" },
      title: { type: "string" },
      "content-type": { type: "string" },
      acl: { type: "string" },
      priority: { type: "string" },
    },
  });
  required("publish", values, ["tenant", "key", "file"]);
  const priority = priorityOption(values.priority, "interactive");
  const client = connect(values);
  const target = { tenant: values.tenant!, key: values.key! };
  const acl =
    values.acl === undefined
      ? undefined
      : values.acl
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
  const r = await publishFile(client, target.tenant, target.key, values.file!, {
    title: values.title,
    contentType: values["content-type"],
    acl,
    priority,
  });
  const waited = values.wait
    ? await follow(client, values, target, { kind: "searchable", versionNumber: r.versionNumber, taskId: r.taskId })
    : null;
  out(values, waited ? { ...r, wait: waited } : r, () => [
    `${target.tenant}/${target.key}: version ${r.versionNumber}, ${r.state}${r.taskId ? ` (task ${r.taskId})` : ""}${searchNote(r)}`,
    ...(waited ? [describeWait(waited)] : []),
  ]);
}

/** Where search stands when it does not answer from the version just published. */
function searchNote(r: Schemas["PublishResult"]): string {
  if (r.searchVersion === null) return "";
  if (!r.searchVersionServed) {
    const built = `; version ${r.searchVersion} was built with another embedding model, so search does not find it`;
    if (r.pinned) return `${built}, and a rollback pins it: unpin to rebuild and serve version ${r.versionNumber}`;
    return r.searchVersion < r.versionNumber
      ? `${built} until version ${r.versionNumber} is built`
      : `${built} until it is re-indexed`;
  }
  if (r.searchVersion < r.versionNumber)
    return `; search answers from version ${r.searchVersion}${r.pinned ? " (pinned)" : ""}`;
  return "";
}

export async function statusCmd(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { ...CONNECTION_OPTIONS, tenant: { type: "string" }, key: { type: "string" } },
  });
  const client = connect(values);
  if (values.tenant && values.key) {
    const d = await unwrap(
      client.GET("/api/v1/tenants/{tenant}/documents/{key}", {
        params: { path: { tenant: values.tenant, key: values.key } },
      }),
    );
    out(values, d, () => [
      `${d.tenant}/${d.key}: ${d.state}, version ${d.businessVersion}, search answers from ${d.searchVersion === null ? "no version" : `version ${d.searchVersion}`}${d.pinned ? " (pinned)" : ""}`,
      ...(d.lastError ? [`last error: ${d.lastError.code} ${d.lastError.message}`] : []),
    ]);
    return;
  }
  const o = await unwrap(client.GET("/api/v1/overview"));
  out(values, o, () => [
    `queue: ${o.queue.due} due, ${o.queue.running} running, ${o.queue.waitingForRetry} waiting to retry, ${o.queue.dead} dead`,
    `drift: ${o.drift.count} document(s) whose search version is behind`,
    ...(o.scope === "fleet" ? [`workers: ${o.workers.length}`] : []),
  ]);
}

export async function searchCmd(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      tenant: { type: "string" },
      "top-k": { type: "string" },
      mode: { type: "string" },
      principal: { type: "string", multiple: true },
    },
  });
  required("search", values, ["tenant"]);
  const query = positionals.join(" ").trim();
  if (!query) throw new UsageError("search needs a query: indexwright search --tenant T words to look for");
  const topK = values["top-k"] === undefined ? undefined : Number(values["top-k"]);
  if (topK !== undefined && !Number.isInteger(topK))
    throw new UsageError(`--top-k takes a whole number (got ${values["top-k"]})`);
  const mode = values.mode as SearchBody["mode"];
  if (mode !== undefined && !["vector", "text", "hybrid"].includes(mode))
    throw new UsageError(`--mode is vector, text or hybrid (got ${values.mode})`);
  const r = await unwrap(
    connect(values).POST("/api/v1/tenants/{tenant}/search", {
      params: { path: { tenant: values.tenant! } },
      body: {
        query,
        ...(topK !== undefined ? { topK } : {}),
        ...(mode ? { mode } : {}),
        ...(values.principal ? { principals: values.principal } : {}),
      },
    }),
  );
  out(values, r, () =>
    r.hits.length
      ? r.hits.map(
          (h, i) =>
            `${i + 1}. ${h.documentKey} v${h.versionNumber} ${h.score.toFixed(3)}${h.sectionPath ? `  ${h.sectionPath}` : ""}\n   ${h.text.replace(/\s+/g, " ").slice(0, 160)}`,
        )
      : "no hits",
  );
}

export async function tasksCmd(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === "list") {
    const { values } = parseArgs({
      args: rest,
      options: {
        ...CONNECTION_OPTIONS,
        status: { type: "string" },
        tenant: { type: "string" },
        type: { type: "string" },
        "error-code": { type: "string" },
        limit: { type: "string" },
        cursor: { type: "string" },
      },
    });
    const query = {
      ...(values.status ? { status: values.status } : {}),
      ...(values.tenant ? { tenant: values.tenant } : {}),
      ...(values.type ? { type: values.type } : {}),
      ...(values["error-code"] ? { errorCode: values["error-code"] } : {}),
      ...(values.cursor ? { cursor: values.cursor } : {}),
      ...(values.limit ? { limit: Number(values.limit) } : {}),
      // The server checks the values (enums, ranges) and names a bad one in its VALIDATION_FAILED.
    } as operations["listTasks"]["parameters"]["query"];
    const page = await unwrap(connect(values).GET("/api/v1/tasks", { params: { query } }));
    out(values, page, () =>
      page.items.length
        ? [
            ...page.items.map(
              (t) =>
                `${t.taskId.padStart(6)}  ${t.status.padEnd(10)} ${t.taskType.padEnd(7)} ${t.tenant}/${t.documentKey} v${t.versionNumber}  attempts ${t.attempts}/${t.maxAttempts}${t.errorCode ? `  ${t.errorCode}` : ""}`,
            ),
            ...(page.nextCursor ? [`more: --cursor ${page.nextCursor}`] : []),
          ]
        : "no tasks",
    );
    return;
  }
  if (sub === "retry") {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        ...CONNECTION_OPTIONS,
        reason: { type: "string" },
        dead: { type: "boolean" },
        tenant: { type: "string" },
        type: { type: "string" },
        "error-code": { type: "string" },
      },
    });
    const client = connect(values);
    if (values.dead) {
      if (positionals.length) throw new UsageError("tasks retry takes task ids or --dead with filters, not both");
      const r = await unwrap(
        client.POST("/api/v1/tasks/retry", {
          body: {
            status: "DEAD",
            ...(values.tenant ? { tenant: values.tenant } : {}),
            ...(values.type ? { type: values.type } : {}),
            ...(values["error-code"] ? { errorCode: values["error-code"] } : {}),
            ...(values.reason ? { reason: values.reason } : {}),
          } as operations["retryTasks"]["requestBody"]["content"]["application/json"],
        }),
      );
      out(values, r, () => `retried ${r.retried} DEAD task(s)${r.skipped ? `, skipped ${r.skipped} obsolete` : ""}`);
      return;
    }
    if (!positionals.length)
      throw new UsageError(
        "tasks retry needs task ids (or --dead to retry every DEAD task matching --tenant, --type, --error-code)",
      );
    const results: Schemas["TaskActionResult"][] = [];
    for (const taskId of positionals) {
      results.push(
        await unwrap(
          client.POST("/api/v1/tasks/{taskId}/retry", {
            params: { path: { taskId } },
            body: values.reason ? { reason: values.reason } : {},
          }),
        ),
      );
    }
    out(values, results.length === 1 ? results[0] : results, () => results.map((r) => `task ${r.taskId}: ${r.status}`));
    return;
  }
  throw new UsageError(
    "tasks list [--status S] [--tenant T] [--type T] [--error-code C] [--limit N] | tasks retry ID... [--reason R] | tasks retry --dead [filters]",
  );
}

export async function deleteCmd(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { ...CONNECTION_OPTIONS, ...WAIT_OPTIONS, tenant: { type: "string" }, key: { type: "string" } },
  });
  required("delete", values, ["tenant", "key"]);
  const client = connect(values);
  const target = { tenant: values.tenant!, key: values.key! };
  const r = await unwrap(client.DELETE("/api/v1/tenants/{tenant}/documents/{key}", { params: { path: target } }));
  const waited = values.wait ? await follow(client, values, target, { kind: "deleted", taskId: r.taskId }) : null;
  out(values, waited ? { ...r, wait: waited } : r, () => [
    `${target.tenant}/${target.key}: delete queued (task ${r.taskId})`,
    ...(waited ? [describeWait(waited)] : []),
  ]);
}

export async function reindexCmd(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { ...CONNECTION_OPTIONS, ...WAIT_OPTIONS, tenant: { type: "string" }, key: { type: "string" } },
  });
  required("reindex", values, ["tenant", "key"]);
  const client = connect(values);
  const target = { tenant: values.tenant!, key: values.key! };
  const r = await unwrap(client.POST("/api/v1/tenants/{tenant}/documents/{key}/reindex", { params: { path: target } }));
  const waited = values.wait ? await follow(client, values, target, { kind: "rebuilt", taskId: r.taskId }) : null;
  out(values, waited ? { ...r, wait: waited } : r, () => [
    `${target.tenant}/${target.key}: reindex queued (task ${r.taskId})`,
    ...(waited ? [describeWait(waited)] : []),
  ]);
}

export async function rollbackCmd(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...CONNECTION_OPTIONS,
      tenant: { type: "string" },
      key: { type: "string" },
      "to-version": { type: "string" },
      reason: { type: "string" },
    },
  });
  required("rollback", values, ["tenant", "key", "to-version", "reason"]);
  const toVersion = Number(values["to-version"]);
  if (!Number.isInteger(toVersion) || toVersion < 1)
    throw new UsageError(`--to-version takes a version number (got ${values["to-version"]})`);
  const r = await unwrap(
    connect(values).POST("/api/v1/tenants/{tenant}/documents/{key}/rollback", {
      params: { path: { tenant: values.tenant!, key: values.key! } },
      body: { toVersion, reason: values.reason! },
    }),
  );
  out(
    values,
    r,
    () =>
      `${r.tenant}/${r.key}: search answers from version ${r.searchVersion}, pinned until an unpin or the next publish`,
  );
}

/** --priority: interactive or bulk (docs/decisions/040-fair-claim.md); `fallback` when absent. */
function priorityOption(v: string | undefined, fallback: "interactive" | "bulk"): "interactive" | "bulk" {
  if (v === undefined) return fallback;
  if (v !== "interactive" && v !== "bulk") throw new UsageError(`--priority must be interactive or bulk, got ${v}`);
  return v;
}

export async function syncCmd(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      ...WAIT_OPTIONS,
      tenant: { type: "string" },
      prefix: { type: "string" },
      "dry-run": { type: "boolean" },
      concurrency: { type: "string" },
      priority: { type: "string" },
    },
  });
  required("sync", values, ["tenant"]);
  const priority = priorityOption(values.priority, "bulk");
  if (positionals.length !== 1) throw new UsageError("sync needs one folder: indexwright sync DIR --tenant T");
  const dir = path.resolve(positionals[0]);
  const prefix = values.prefix ?? "";
  const concurrency = Math.max(1, Number(values.concurrency ?? 4) || 4);
  const client = connect(values);
  const tenant = values.tenant!;
  const { files, skipped } = await scanFolder(dir, prefix);
  const plan = planSync(files, await remoteDocuments(client, tenant, prefix, concurrency));
  const report: {
    tenant: string;
    folder: string;
    prefix: string;
    dryRun: boolean;
    plan: SyncPlan;
    skipped: string[];
    done?: unknown[];
    wait?: Record<string, WaitOutcome>;
  } = {
    tenant,
    folder: dir,
    prefix,
    dryRun: Boolean(values["dry-run"]),
    plan,
    skipped,
  };
  const planLines = [
    ...plan.publish.map((p) => `publish ${p.reason.padEnd(7)} ${p.key}${p.file !== p.key ? `  (${p.file})` : ""}`),
    ...plan.delete.map((d) => `delete          ${d.key}`),
    `${plan.publish.length} to publish, ${plan.delete.length} to delete, ${plan.unchanged.length} unchanged${skipped.length ? `, ${skipped.length} file(s) of other types skipped` : ""}`,
  ];
  if (values["dry-run"]) {
    out(values, report, () => ["dry run: nothing sent", ...planLines]);
    return;
  }
  const byKey = new Map(files.map((f) => [f.key, f]));
  const limit = pLimit(concurrency);
  const goals = new Map<string, Goal>();
  const failures: string[] = [];
  const done = await Promise.all([
    ...plan.publish.map((p) =>
      limit(async () => {
        try {
          // A sync is bulk work (docs/decisions/040-fair-claim.md): what people publish meanwhile goes first.
          const r = await publishFile(client, tenant, p.key, byKey.get(p.key)!.abs, { priority });
          goals.set(p.key, { kind: "searchable", versionNumber: r.versionNumber, taskId: r.taskId });
          return { action: "publish", key: p.key, ...r };
        } catch (err) {
          failures.push(`${p.key}: ${err instanceof Error ? err.message : String(err)}`);
          return { action: "publish", key: p.key, error: errorBody(err) };
        }
      }),
    ),
    ...plan.delete.map((d) =>
      limit(async () => {
        try {
          const r = await unwrap(
            client.DELETE("/api/v1/tenants/{tenant}/documents/{key}", { params: { path: { tenant, key: d.key } } }),
          );
          goals.set(d.key, { kind: "deleted", taskId: r.taskId });
          return { action: "delete", key: d.key, ...r };
        } catch (err) {
          failures.push(`${d.key}: ${err instanceof Error ? err.message : String(err)}`);
          return { action: "delete", key: d.key, error: errorBody(err) };
        }
      }),
    ),
  ]);
  report.done = done;
  if (failures.length) process.exitCode = 1;
  if (values.wait && goals.size) {
    report.wait = await waitForAll(client, tenant, goals, timeoutMs(values.timeout));
    const outcomes = Object.values(report.wait);
    if (outcomes.includes("failed") || outcomes.includes("held")) process.exitCode = 1;
    else if (outcomes.includes("timeout")) process.exitCode ??= 2;
  }
  out(values, report, () => [
    ...planLines,
    ...failures.map((f) => `error: ${f}`),
    ...(report.wait ? Object.entries(report.wait).map(([k, o]) => `${k}: ${o}`) : []),
  ]);
}

/** Waits for every document a sync touched; a TTY shows one bar for all of them. */
async function waitForAll(
  client: IndexwrightClient,
  tenant: string,
  goals: Map<string, Goal>,
  ms: number,
): Promise<Record<string, WaitOutcome>> {
  const results: Record<string, WaitOutcome> = {};
  const tty = process.stderr.isTTY;
  const total = goals.size;
  const draw = () => {
    const n = Object.keys(results).length;
    if (tty)
      process.stderr.write(`\rwaiting [${"#".repeat(Math.round((n / total) * 24)).padEnd(24, "-")}] ${n}/${total}`);
  };
  draw();
  const limit = pLimit(4);
  const end = Date.now() + ms;
  await Promise.all(
    [...goals].map(([key, goal]) =>
      limit(async () => {
        const r = await waitForDocument(client, { tenant, key }, goal, { timeoutMs: Math.max(0, end - Date.now()) });
        results[key] = r.outcome;
        if (!tty) process.stderr.write(`${tenant}/${key}: ${describeWait(r)}\n`);
        draw();
      }),
    ),
  );
  if (tty) process.stderr.write("\n");
  return results;
}

function errorBody(err: unknown) {
  return err instanceof ApiRequestError
    ? { status: err.status, code: err.code, message: err.message }
    : { code: "CLIENT_ERROR", message: err instanceof Error ? err.message : String(err) };
}

/** How main reports a failed command: the API's code and message, as JSON under --json. */
export function reportError(err: unknown, json: boolean): number {
  const parseArgsError = String((err as { code?: unknown })?.code ?? "").startsWith("ERR_PARSE_ARGS");
  if (err instanceof UsageError || parseArgsError) {
    printError((err as Error).message);
    return 2;
  }
  if (json) printError(JSON.stringify({ error: errorBody(err) }));
  else
    printError(
      err instanceof ApiRequestError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err),
    );
  return 1;
}
