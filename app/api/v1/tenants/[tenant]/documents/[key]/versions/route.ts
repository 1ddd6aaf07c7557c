import { createHash } from "node:crypto";
import { handler, json, readBody, readJson } from "@/lib/http/handler";
import { ApiError } from "@/lib/http/errors";
import { publishBody, tenantParam, keyParam, SUPPORTED_TYPES, type PublishBody } from "@/lib/documents/schemas";
import { publish, readTextContent } from "@/lib/documents/publish";
import { isBinaryContentType, normaliseContentType } from "@/lib/pipeline/parse";
import { db, embeddingSpace, serverConfig, serverEmbedder } from "@/lib/server";
import { tokenCounterFor } from "@/lib/pipeline/tokens";
import { faultOn } from "@/lib/config";

export const dynamic = "force-dynamic";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/** A multipart upload: `file` plus the JSON body's other fields as form fields. */
async function readMultipart(req: Request, maxBytes: number, limit: number): Promise<{ body: PublishBody; content: Buffer }> {
  let form: FormData;
  // Counted while it streams, so an oversized upload is refused before it is buffered whole.
  const raw = await readBody(req, limit);
  try {
    form = await new Response(new Uint8Array(raw), { headers: { "content-type": req.headers.get("content-type") ?? "" } }).formData();
  } catch {
    throw new ApiError(400, "INVALID_MULTIPART", "the multipart body could not be read");
  }
  const file = form.get("file");
  if (!(file instanceof File)) throw new ApiError(400, "VALIDATION_FAILED", "file: a multipart upload needs a `file` field");
  if (file.size > maxBytes) throw new ApiError(413, "CONTENT_TOO_LARGE", `content exceeds ${maxBytes} bytes`);
  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v : undefined;
  };
  const allowed = new Set(["file", "title", "contentType", "acl", "abstract", "overview"]);
  for (const name of form.keys()) if (!allowed.has(name)) throw new ApiError(400, "VALIDATION_FAILED", `${name}: unknown field`);
  const acl = text("acl");
  const body = publishBody.parse({
    title: text("title") ?? file.name.replace(/\.[^.]+$/, ""),
    contentType: text("contentType") ?? file.type,
    content: "",
    acl: acl === undefined ? undefined : acl.split(",").map((s) => s.trim()).filter(Boolean),
    abstract: text("abstract"),
    overview: text("overview"),
  });
  return { body, content: Buffer.from(await file.arrayBuffer()) };
}

export const POST = handler<{ tenant: string; key: string }>("POST /api/v1/tenants/[tenant]/documents/[key]/versions", async (req, params, principal) => {
  const cfg = serverConfig();
  const tenant = tenantParam.parse(params.tenant);
  const key = keyParam.parse(params.key);
  const idemKey = req.headers.get("idempotency-key");
  if (idemKey !== null && !IDEMPOTENCY_KEY.test(idemKey)) throw new ApiError(400, "INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1–200 visible ASCII characters");

  // Everything is validated before the transaction: bad input writes nothing.
  let body: PublishBody;
  let content: Buffer;
  const isMultipart = (req.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
  const limit = Math.ceil(cfg.MAX_CONTENT_BYTES * 1.4) + 200_000; // base64 and JSON overhead
  if (isMultipart) {
    ({ body, content } = await readMultipart(req, cfg.MAX_CONTENT_BYTES, limit));
  } else {
    body = publishBody.parse(await readJson(req, limit));
    if (body.contentEncoding === "base64") {
      if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(body.content)) throw new ApiError(400, "VALIDATION_FAILED", "content: not valid base64");
      content = Buffer.from(body.content, "base64");
    } else {
      content = Buffer.from(body.content, "utf8");
    }
  }
  const contentType = normaliseContentType(body.contentType);
  if (!(SUPPORTED_TYPES as readonly string[]).includes(contentType)) {
    throw new ApiError(415, "UNSUPPORTED_DOCUMENT", `content type ${contentType} is not supported (use ${SUPPORTED_TYPES.join(", ")})`);
  }
  if (!isMultipart && isBinaryContentType(contentType) && body.contentEncoding !== "base64") {
    throw new ApiError(400, "VALIDATION_FAILED", `contentEncoding: ${contentType} must be sent as base64 (or as a multipart file)`);
  }
  if (content.length > cfg.MAX_CONTENT_BYTES) throw new ApiError(413, "CONTENT_TOO_LARGE", `content exceeds ${cfg.MAX_CONTENT_BYTES} bytes`);
  let storedType = contentType;
  let text = "";
  if (!isBinaryContentType(contentType)) {
    // Text is stored as published, in the charset it is in (UTF-8 unless declared; a JSON string
    // is UTF-8): bytes malformed in it would come back as U+FFFD, and control characters (NUL
    // above all) have no place in text meant to be read and searched.
    ({ contentType: storedType, text } = readTextContent(body.contentType, content, !isMultipart && body.contentEncoding !== "base64"));
    if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) {
      throw new ApiError(400, "INVALID_CONTENT", "content contains control characters (only tab, newline, carriage return and form feed are allowed in text)");
    }
  }
  if (content.length === 0 || (!isBinaryContentType(contentType) && !text.trim())) throw new ApiError(400, "EMPTY_DOCUMENT", "content is empty");
  // The abstract and the overview are embedded whole (chunks are cut to fit; these are not): one
  // over the model's input limit would fail at the provider on every attempt, so refuse it now.
  // Only where the model's tokenizer is known: a byte estimate would refuse what a model takes.
  const tokens = tokenCounterFor(serverEmbedder().model);
  for (const field of tokens.encoding === "utf8-bytes" ? [] : (["abstract", "overview"] as const)) {
    const value = body[field];
    if (value && !tokens.fits(value, tokens.maxInputTokens)) {
      throw new ApiError(400, "TEXT_TOO_LONG_FOR_MODEL", `${field}: longer than the embedding model's ${tokens.maxInputTokens} input tokens (${tokens.encoding}); shorten it`);
    }
  }

  const requestHash = createHash("sha256")
    // An absent ACL (keep the latest) is not the same request as an empty one (open to the tenant).
    .update(JSON.stringify([tenant, key, body.title, storedType, body.acl ?? null, body.abstract ?? null, body.overview ?? null]))
    .update(content)
    .digest("hex");
  const r = await publish(db(), {
    tenant,
    key,
    title: body.title,
    contentType: storedType,
    content,
    acl: body.acl ?? null,
    abstract: body.abstract ?? null,
    overview: body.overview ?? null,
    actor: principal.subject,
    maxAttempts: cfg.MAX_ATTEMPTS,
    idempotency: idemKey ? { key: idemKey, requestHash } : undefined,
    space: embeddingSpace(),
  });
  if (faultOn(cfg.FAULT_AFTER_PUBLISH_COMMIT) && !r.replayed) {
    // Straight to stderr: the fault's one line must be seen whatever LOG_LEVEL silences.
    process.stderr.write("[fault] FAULT_AFTER_PUBLISH_COMMIT: dying after commit, before answering\n");
    process.exit(137);
  }
  return json({ documentId: r.documentId, versionNumber: r.versionNumber, taskId: r.taskId, state: r.state, searchVersion: r.searchVersion, searchVersionServed: r.searchVersionServed, pinned: r.pinned }, r.created ? 202 : 200, r.replayed ? { "idempotent-replayed": "true" } : undefined);
});

export * from "@/lib/http/method-fallback";
