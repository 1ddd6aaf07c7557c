import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ApiRequestError, unwrap, type Schemas } from "../lib/client";
import { CONNECTION_OPTIONS, connect } from "./api";
import { print } from "./print";
import { UsageError } from "./remote";

// `eval-set`, `eval` and `why`: a tenant's golden query set, its evaluation runs, and why one
// document is not in a query's results (docs/evaluation.md), through the typed client.

type Query = Schemas["EvaluationSetBody"]["queries"][number];
type Diagnosis = NonNullable<Schemas["EvaluationDiagnosis"]>;

const show = (json: boolean | undefined, data: unknown, human: () => string[]) =>
  print(json ? JSON.stringify(data, null, 2) : human().join("\n"));

/**
 * A set file: JSON (`{"queries": [...]}` or a bare array of queries) or JSONL (one query object per
 * line; blank lines and lines starting with # are skipped). A line that is not JSON names its number.
 */
export function readSetFile(path: string): Query[] {
  const text = readFileSync(path, "utf8");
  const trimmed = text.trim();
  if (trimmed.startsWith("[") || (trimmed.startsWith("{") && !path.endsWith(".jsonl"))) {
    try {
      const parsed = JSON.parse(trimmed) as Query[] | { queries: Query[] };
      return Array.isArray(parsed) ? parsed : parsed.queries;
    } catch (err) {
      if (!trimmed.startsWith("{")) throw new UsageError(`${path}: not JSON (${(err as Error).message})`);
      // One object per line after all.
    }
  }
  return text.split("\n").flatMap((line, i) => {
    const l = line.trim();
    if (!l || l.startsWith("#")) return [];
    try {
      return [JSON.parse(l) as Query];
    } catch (err) {
      throw new UsageError(`${path}:${i + 1}: not a JSON object (${(err as Error).message})`);
    }
  });
}

const pct = (x: number) => x.toFixed(3);

function describeDiagnosis(d: Diagnosis): string {
  switch (d.stage) {
    case "RANKED_LOW":
      return `${d.message}; score ${d.score === null || d.score === undefined ? "?" : pct(d.score)} vs the 10th document's ${d.kthScore === null || d.kthScore === undefined ? "?" : pct(d.kthScore)}`;
    case "NO_SHARED_TERMS":
      return `${d.message}${d.closestChunk ? `\n      closest chunk (${d.closestChunk.sectionPath || "—"}, similarity ${pct(d.closestChunk.similarity)}): ${d.closestChunk.text.replace(/\s+/g, " ").slice(0, 160)}` : ""}`;
    default:
      return d.message;
  }
}

export async function evalSetCmd(argv: string[]): Promise<void> {
  const [sub = "show", ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { ...CONNECTION_OPTIONS, tenant: { type: "string" } },
  });
  if (!values.tenant) throw new UsageError(`eval-set ${sub} needs --tenant`);
  const client = connect(values);
  const path = { params: { path: { tenant: values.tenant } } };
  if (sub === "push") {
    const file = positionals[0];
    if (!file) throw new UsageError("eval-set push needs a FILE (JSON or JSONL)");
    const queries = readSetFile(file);
    const { data, error, response } = await client.PUT("/api/v1/tenants/{tenant}/evaluation-set", {
      ...path,
      body: { queries },
    });
    if (!data) {
      const e = (
        error as {
          error?: { code?: string; message?: string; details?: { problems?: { message: string }[] } };
        }
      )?.error;
      // Every problem, not the first: a set is refused whole.
      const problems = e?.details?.problems?.map((p) => `  ${p.message}`) ?? [];
      throw new ApiRequestError(
        response.status,
        e?.code ?? "HTTP_ERROR",
        [e?.message ?? `${response.status}`, ...problems].join("\n"),
      );
    }
    return show(values.json, data, () => [
      `evaluation set of ${data.tenant}: version ${data.version}, ${data.queries.length} queries`,
    ]);
  }
  if (sub === "show") {
    const r = await unwrap(client.GET("/api/v1/tenants/{tenant}/evaluation-set", path));
    return show(values.json, r, () => [
      `evaluation set of ${r.tenant}: version ${r.version} by ${r.createdBy} at ${r.createdAt}, ${r.queries.length} queries`,
      ...r.versions
        .slice(1, 6)
        .map((v) => `  v${v.version}: ${v.queryCount} queries, ${v.createdBy} at ${v.createdAt}`),
    ]);
  }
  throw new UsageError(`eval-set ${sub}: expected push or show`);
}

function describeRun(r: Schemas["EvaluationRunSummary"]): string {
  const f = r.figures;
  return `run ${r.id}: ${r.state} ${r.progress.done}/${r.progress.total}, ${r.space} ${r.mode} topK ${r.topK}, set v${r.setVersion}${f ? `; recall@10 ${pct(f.recallAt10)}, MRR@10 ${pct(f.mrrAt10)}, nDCG@10 ${pct(f.ndcgAt10)}` : ""}${r.error ? `; ${r.error}` : ""}`;
}

export async function evalCmd(argv: string[]): Promise<void> {
  const [sub = "list", ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      tenant: { type: "string" },
      space: { type: "string" },
      mode: { type: "string" },
      "top-k": { type: "string" },
      wait: { type: "boolean" },
    },
  });
  if (!values.tenant) throw new UsageError(`eval ${sub} needs --tenant`);
  const tenant = values.tenant;
  const client = connect(values);
  const get = (id: string) =>
    unwrap(client.GET("/api/v1/tenants/{tenant}/evaluations/{id}", { params: { path: { tenant, id } } }));
  const detail = (r: Schemas["EvaluationRun"]) => [
    describeRun(r),
    ...(r.queries ?? []).flatMap((q) =>
      "hidden" in q
        ? [`  ${q.index + 1}. (searched as principals you may not search as)`]
        : [
            `  ${q.index + 1}. ${q.query}  nDCG ${pct(q.ndcg)}`,
            ...q.relevant
              .filter((d) => d.diagnosis)
              .map((d) => `     ✗ ${d.key}: ${d.diagnosis!.stage} — ${describeDiagnosis(d.diagnosis!)}`),
          ],
    ),
  ];
  if (sub === "run") {
    const mode = values.mode as "vector" | "text" | "hybrid" | undefined;
    if (mode !== undefined && !["vector", "text", "hybrid"].includes(mode))
      throw new UsageError(`--mode is vector, text or hybrid (got ${values.mode})`);
    const topK = values["top-k"] === undefined ? undefined : Number(values["top-k"]);
    const started = await unwrap(
      client.POST("/api/v1/tenants/{tenant}/evaluations", {
        params: { path: { tenant } },
        body: { space: values.space, mode, topK },
      }),
    );
    if (!values.wait) return show(values.json, started, () => [describeRun(started)]);
    for (;;) {
      const r = await get(started.id);
      if (r.state === "DONE" || r.state === "FAILED") {
        if (r.state === "FAILED") process.exitCode = 1;
        return show(values.json, r, () => detail(r));
      }
      await new Promise((res) => setTimeout(res, 1000));
    }
  }
  if (sub === "list") {
    const r = await unwrap(client.GET("/api/v1/tenants/{tenant}/evaluations", { params: { path: { tenant } } }));
    return show(values.json, r, () => (r.items.length ? r.items.map(describeRun) : ["no evaluation runs"]));
  }
  if (sub === "show") {
    const id = positionals[0];
    if (!id) throw new UsageError("eval show needs a run id");
    const r = await get(id);
    return show(values.json, r, () => detail(r));
  }
  throw new UsageError(`eval ${sub}: expected run, list or show`);
}

export async function whyCmd(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      tenant: { type: "string" },
      key: { type: "string" },
      mode: { type: "string" },
      "top-k": { type: "string" },
      principal: { type: "string", multiple: true },
    },
  });
  const query = positionals.join(" ").trim();
  if (!values.tenant || !values.key || !query)
    throw new UsageError('why needs --tenant, --key and the question: why --tenant T --key K "question"');
  const mode = values.mode as "vector" | "text" | "hybrid" | undefined;
  const topK = values["top-k"] === undefined ? undefined : Number(values["top-k"]);
  const r = await unwrap(
    connect(values).POST("/api/v1/tenants/{tenant}/documents/{key}/why", {
      params: { path: { tenant: values.tenant, key: values.key } },
      body: { query, ...(mode ? { mode } : {}), ...(topK ? { topK } : {}), principals: values.principal },
    }),
  );
  show(values.json, r, () => [
    r.found
      ? `${r.key} is found: rank ${r.rank} of ${r.mode} search in ${r.space}`
      : `${r.key} is not in the first 10: ${r.diagnosis!.stage}`,
    ...(r.diagnosis ? [`  ${describeDiagnosis(r.diagnosis)}`] : []),
    `  searched as ${r.searchedAs.length ? r.searchedAs.join(", ") : "(no principals)"}; the answer: ${r.answer.map((a) => a.key).join(", ") || "nothing"}`,
  ]);
}
