import { handler, json, readJson } from "@/lib/http/handler";
import { ApiError } from "@/lib/http/errors";
import { authenticate } from "@/lib/auth/authenticate";
import { publishBody, tenantParam, keyParam, SUPPORTED_TYPES } from "@/lib/documents/schemas";
import { publish } from "@/lib/documents/publish";
import { db, serverConfig } from "@/lib/server";
import { faultOn } from "@/lib/config";

export const dynamic = "force-dynamic";

function normaliseType(ct: string): string {
  return ct.split(";")[0].trim().toLowerCase();
}

export const POST = handler<{ tenant: string; key: string }>(async (req, params) => {
  const cfg = serverConfig();
  const tenant = tenantParam.parse(params.tenant);
  const key = keyParam.parse(params.key);
  const principal = await authenticate(req, { role: "maintainer", tenant });
  // Validation happens before any transaction: bad input writes nothing.
  const body = publishBody.parse(await readJson(req, Math.ceil(cfg.MAX_CONTENT_BYTES * 1.2) + 200_000));
  const contentType = normaliseType(body.contentType);
  if (!(SUPPORTED_TYPES as readonly string[]).includes(contentType)) {
    throw new ApiError(415, "UNSUPPORTED_DOCUMENT", `content type ${contentType} is not supported (use ${SUPPORTED_TYPES.join(", ")})`);
  }
  const content = Buffer.from(body.content, "utf8");
  if (content.length > cfg.MAX_CONTENT_BYTES) throw new ApiError(413, "CONTENT_TOO_LARGE", `content exceeds ${cfg.MAX_CONTENT_BYTES} bytes`);
  if (!body.content.trim()) throw new ApiError(400, "EMPTY_DOCUMENT", "content is empty");
  const r = await publish(db(), {
    tenant,
    key,
    title: body.title,
    contentType,
    content,
    acl: body.acl ?? [],
    abstract: body.abstract ?? null,
    overview: body.overview ?? null,
    actor: principal.subject,
    maxAttempts: cfg.MAX_ATTEMPTS,
  });
  if (faultOn(cfg.FAULT_AFTER_PUBLISH_COMMIT)) {
    console.error("[fault] FAULT_AFTER_PUBLISH_COMMIT: dying after commit, before answering");
    process.exit(137);
  }
  return json({ documentId: r.documentId, versionNumber: r.versionNumber, taskId: r.taskId, state: r.state }, r.created ? 202 : 200);
});
