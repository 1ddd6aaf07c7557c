import { handler, json, readBody, readJson } from "@/lib/http/handler";
import { DomainError } from "@/lib/domain/errors";
import { publishBody, tenantParam, keyParam } from "@/lib/documents/schemas";
import { checkPublish, idempotencyKeyOf, publish, type PublishRequest } from "@/lib/documents/publish";
import { db, serverConfig } from "@/lib/server";
import { activeEmbeddingModel } from "@/lib/documents/repository";
import { afterPublishCommit } from "@/lib/faults";
import { requestTraceparent } from "@/lib/http/request-context";

export const dynamic = "force-dynamic";

type Sent = Pick<PublishRequest, "body" | "content" | "sentAs">;

/** A multipart upload: `file` plus the JSON body's other fields as form fields. */
async function readMultipart(req: Request, maxBytes: number, limit: number): Promise<Sent> {
  let form: FormData;
  // Counted while it streams, so an oversized upload is refused before it is buffered whole.
  const raw = await readBody(req, limit);
  try {
    form = await new Response(new Uint8Array(raw), {
      headers: { "content-type": req.headers.get("content-type") ?? "" },
    }).formData();
  } catch {
    throw new DomainError("INVALID_MULTIPART", "the multipart body could not be read");
  }
  const file = form.get("file");
  if (!(file instanceof File))
    throw new DomainError("VALIDATION_FAILED", "file: a multipart upload needs a `file` field");
  if (file.size > maxBytes) throw new DomainError("CONTENT_TOO_LARGE", `content exceeds ${maxBytes} bytes`);
  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v : undefined;
  };
  const allowed = new Set(["file", "title", "contentType", "acl", "abstract", "overview", "priority"]);
  for (const name of form.keys())
    if (!allowed.has(name)) throw new DomainError("VALIDATION_FAILED", `${name}: unknown field`);
  const acl = text("acl");
  const body = publishBody.parse({
    title: text("title") ?? file.name.replace(/\.[^.]+$/, ""),
    contentType: text("contentType") ?? file.type,
    content: "",
    acl:
      acl === undefined
        ? undefined
        : acl
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
    abstract: text("abstract"),
    overview: text("overview"),
    priority: text("priority"),
  });
  return { body, content: Buffer.from(await file.arrayBuffer()), sentAs: "file" };
}

/** A JSON body: content as a string, or as base64 for binary types. */
function readJsonBody(json: unknown): Sent {
  const body = publishBody.parse(json);
  if (body.contentEncoding !== "base64") return { body, content: Buffer.from(body.content, "utf8"), sentAs: "string" };
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(body.content))
    throw new DomainError("VALIDATION_FAILED", "content: not valid base64");
  return { body, content: Buffer.from(body.content, "base64"), sentAs: "base64" };
}

export const POST = handler<{ tenant: string; key: string }>(
  "POST /api/v1/tenants/[tenant]/documents/[key]/versions",
  async (req, params, principal) => {
    const cfg = serverConfig();
    const tenant = tenantParam.parse(params.tenant);
    const key = keyParam.parse(params.key);
    const idempotencyKey = idempotencyKeyOf(req.headers.get("idempotency-key"));
    const limit = Math.ceil(cfg.MAX_CONTENT_BYTES * 1.4) + 200_000; // base64 and JSON overhead
    const multipart = (req.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
    const sent = multipart
      ? await readMultipart(req, cfg.MAX_CONTENT_BYTES, limit)
      : readJsonBody(await readJson(req, limit));
    // The tenant's active index space embeds its builds, so its model's input limit is the one that counts.
    const input = await checkPublish(
      { tenant, key, actor: principal.subject, idempotencyKey, ...sent },
      cfg.MAX_CONTENT_BYTES,
      () => activeEmbeddingModel(db(), tenant),
    );
    // The task carries this request's span, so the worker's spans for it continue the trace.
    const r = await publish(db(), { ...input, maxAttempts: cfg.MAX_ATTEMPTS, traceparent: requestTraceparent() });
    if (!r.replayed) afterPublishCommit(cfg);
    return json(
      {
        documentId: r.documentId,
        versionNumber: r.versionNumber,
        taskId: r.taskId,
        state: r.state,
        searchVersion: r.searchVersion,
        searchVersionServed: r.searchVersionServed,
        pinned: r.pinned,
      },
      r.created ? 202 : 200,
      r.replayed ? { "idempotent-replayed": "true" } : undefined,
    );
  },
);

export * from "@/lib/http/method-fallback";
