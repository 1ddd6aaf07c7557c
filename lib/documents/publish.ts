import { createHash, randomUUID } from "node:crypto";
import type pg from "pg";
import { withTransaction } from "../db/pool";
import { namedStatementsOn, preparedSettingFromEnv, runNamed } from "../db/prepared";
import { notifyTasks, PRIORITY, type Priority } from "../queue/sql";
import { createTask, supersedeOlderTasks } from "../queue/actions-sql";
import { DOCUMENT_STATE_SQL, LATEST_TASK_JOIN, POINTER_JOIN } from "./state";
import { DomainError } from "../domain/errors";
import { removeFromSearch } from "../pipeline/pointer";
import { prepareTextContent } from "../pipeline/charset";
import { normaliseContentType } from "../pipeline/charset";
import { isBinaryContentType } from "../pipeline/parsers/content-types";
import { PipelineError } from "../pipeline/parsers/common";
import { tokenCounterFor } from "../pipeline/tokens";
import { SUPPORTED_TYPES, type PublishBody } from "./schemas";
import { TASK_TYPE, type DocumentState } from "../domain/constants";

/** What a publish supersedes: every older task bound to the business version (MIGRATE is not). */
const PUBLISH_SUPERSEDES = [TASK_TYPE.INDEX, TASK_TYPE.REINDEX, TASK_TYPE.DELETE] as const;

export type PublishInput = {
  tenant: string;
  key: string;
  title: string;
  contentType: string;
  content: Buffer;
  /** Null: keep the latest version's ACL (the whole tenant for a new document). */
  acl: string[] | null;
  abstract: string | null;
  overview: string | null;
  actor: string;
  maxAttempts: number;
  /** Idempotency-Key header and a hash of the request it came with. */
  idempotency?: { key: string; requestHash: string };
  /** The publish request's span (W3C traceparent), stored with the task; absent or null with tracing off. */
  traceparent?: string | null;
  /** The build's claim class; interactive when absent. */
  priority?: Priority;
};

export type PublishResult = {
  created: boolean;
  /** True when this answer is the stored first answer to an earlier request with the same key. */
  replayed?: boolean;
  documentId: string;
  versionNumber: number;
  taskId: string | null;
  state: DocumentState;
  /**
   * The version search answers from now (null: none), and whether a rollback pins it there. An
   * unchanged publish over a pinned or force-done build reads SEARCHABLE while an older version
   * serves; these say so, rather than leave the caller to think its version is served.
   */
  searchVersion: number | null;
  /** False when searchVersion was built in another index space than the tenant's active one: it serves nothing. */
  searchVersionServed: boolean;
  pinned: boolean;
};

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/** The Idempotency-Key header, checked before the body is read: null when none was sent. */
export function idempotencyKeyOf(header: string | null): string | null {
  if (header !== null && !IDEMPOTENCY_KEY.test(header))
    throw new DomainError("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1–200 visible ASCII characters");
  return header;
}

/** A publish as it arrived: the body's fields, its content as bytes, and how those bytes were sent. */
export type PublishRequest = {
  tenant: string;
  key: string;
  actor: string;
  body: PublishBody;
  content: Buffer;
  sentAs: "file" | "base64" | "string";
  idempotencyKey: string | null;
};

/**
 * The rules a publish passes before the transaction, so bad input writes nothing: a supported
 * content type, binary content sent as bytes, at most `maxBytes`, text valid in its charset and
 * free of control characters, not empty, and an abstract and overview the embedding model takes.
 * `embeddingModel` is the model of the tenant's active index space, which embeds the build.
 */
export async function checkPublish(
  r: PublishRequest,
  maxBytes: number,
  embeddingModel: () => string | Promise<string>,
): Promise<Omit<PublishInput, "maxAttempts">> {
  const { body, content } = r;
  const contentType = normaliseContentType(body.contentType);
  if (!(SUPPORTED_TYPES as readonly string[]).includes(contentType)) {
    throw new DomainError(
      "UNSUPPORTED_DOCUMENT",
      `content type ${contentType} is not supported (use ${SUPPORTED_TYPES.join(", ")})`,
    );
  }
  if (r.sentAs === "string" && isBinaryContentType(contentType)) {
    throw new DomainError(
      "VALIDATION_FAILED",
      `contentEncoding: ${contentType} must be sent as base64 (or as a multipart file)`,
    );
  }
  if (content.length > maxBytes) throw new DomainError("CONTENT_TOO_LARGE", `content exceeds ${maxBytes} bytes`);
  let storedType = contentType;
  let text = "";
  if (!isBinaryContentType(contentType)) {
    // Text is stored as published, in the charset it is in (UTF-8 unless declared; a JSON string
    // is UTF-8): bytes malformed in it would come back as U+FFFD, and control characters (NUL
    // above all) have no place in text meant to be read and searched.
    ({ contentType: storedType, text } = readTextContent(body.contentType, content, r.sentAs === "string"));
    if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) {
      throw new DomainError(
        "INVALID_CONTENT",
        "content contains control characters (only tab, newline, carriage return and form feed are allowed in text)",
      );
    }
  }
  if (content.length === 0 || (!isBinaryContentType(contentType) && !text.trim()))
    throw new DomainError("EMPTY_DOCUMENT", "content is empty");
  // The abstract and the overview are embedded whole (chunks are cut to fit; these are not): one
  // over the model's input limit would fail at the provider on every attempt, so refuse it now.
  // Only where the model's tokenizer is known: a byte estimate would refuse what a model takes.
  // The model is asked for only here, and only when there is an abstract or overview to measure,
  // so a request refused above is refused whatever state the embedding settings are in, and most
  // publishes do not look it up at all.
  const measured = (["abstract", "overview"] as const).filter((field) => body[field]);
  if (measured.length > 0) {
    const tokens = tokenCounterFor(await embeddingModel());
    for (const field of tokens.encoding === "utf8-bytes" ? [] : measured) {
      if (!tokens.fits(body[field]!, tokens.maxInputTokens)) {
        throw new DomainError(
          "TEXT_TOO_LONG_FOR_MODEL",
          `${field}: longer than the embedding model's ${tokens.maxInputTokens} input tokens (${tokens.encoding}); shorten it`,
        );
      }
    }
  }
  const requestHash = createHash("sha256")
    // An absent ACL (keep the latest) is not the same request as an empty one (open to the tenant).
    .update(
      JSON.stringify([
        r.tenant,
        r.key,
        body.title,
        storedType,
        body.acl ?? null,
        body.abstract ?? null,
        body.overview ?? null,
      ]),
    )
    .update(content)
    .digest("hex");
  return {
    tenant: r.tenant,
    key: r.key,
    title: body.title,
    contentType: storedType,
    content,
    acl: body.acl ?? null,
    abstract: body.abstract ?? null,
    overview: body.overview ?? null,
    actor: r.actor,
    idempotency: r.idempotencyKey ? { key: r.idempotencyKey, requestHash } : undefined,
    priority: body.priority === "bulk" ? PRIORITY.BULK : PRIORITY.INTERACTIVE,
  };
}

/**
 * A text document's content as the worker will read it, checked before anything is written: the
 * bytes must be valid in the charset they are in (the content type's `charset`, a byte order
 * mark, or for HTML a <meta> in the first 1024 bytes; UTF-8 otherwise, and always for content
 * sent as a JSON string). Returns the text and the content type to store, which names the
 * charset when the bytes need it to be read right. A charset nobody can decode is a 415, bytes
 * that are not valid in theirs a 400 INVALID_ENCODING: never replaced by U+FFFD.
 */
function readTextContent(
  contentType: string,
  content: Uint8Array,
  sentAsString: boolean,
): { contentType: string; text: string } {
  try {
    const r = prepareTextContent(contentType, content, { sentAsString });
    return { contentType: r.contentType, text: r.text };
  } catch (e) {
    if (!(e instanceof PipelineError)) throw e;
    if (e.code === "UNSUPPORTED_DOCUMENT")
      throw new DomainError("UNSUPPORTED_DOCUMENT", e.message.replace(/^the document's/, "content's"));
    throw new DomainError(
      "INVALID_ENCODING",
      e.message.replace(/^the document is/, "content is").replace(/ text$/, ""),
    );
  }
}

export function checksumOf(content: Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

function sameArray(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * PUBLISH_PREPARED_STATEMENTS (auto | true | false, parsed by lib/config.ts): a publish's
 * statements as named statements, parsed and planned once per connection. A publish is about ten
 * short statements; parsing and planning them was half of the database CPU a publish costs
 * (bench/index.ts, the re-publish). Never on the embedded database, whose connections share one
 * session; set false behind PgBouncer in transaction mode without max_prepared_statements.
 */
// Unset, it follows SEARCH_PREPARED_STATEMENTS: a deployment behind a transaction-mode pooler has
// already turned that off for the same web process, and must not find publishes failing.
const PREPARED_SETTING = preparedSettingFromEnv("PUBLISH_PREPARED_STATEMENTS", "SEARCH_PREPARED_STATEMENTS");

type Q = <T extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<T>>;

/**
 * Publish = one transaction: immutable version + ACL + PENDING task (+ NOTIFY). Republishing what
 * the business version already holds returns it unchanged; a newer version supersedes older
 * unfinished tasks and unpins an operator rollback.
 */
export async function publish(pool: pg.Pool, input: PublishInput): Promise<PublishResult> {
  const checksum = checksumOf(input.content);
  const acl = input.acl === null ? null : [...new Set(input.acl)].sort();
  const named = await namedStatementsOn(pool, PREPARED_SETTING);
  return withTransaction(pool, async (tx) => {
    const q: Q = (text, values) => runNamed(tx, { text, values }, named);
    const idem = input.idempotency;
    if (idem) {
      // One request per key at a time, so a retry racing the original waits and then replays it.
      await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, [`idempotency/${input.tenant}/${idem.key}`]);
      const prior = // Answers stored before searchVersion, searchVersionServed and pinned existed lack them.
        (
          await q<{
            request_hash: string;
            response: Omit<PublishResult, "searchVersion" | "searchVersionServed" | "pinned"> &
              Partial<Pick<PublishResult, "searchVersion" | "searchVersionServed" | "pinned">>;
          }>(
            `SELECT request_hash, response FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 AND created_at > now() - interval '24 hours'`,
            [input.tenant, idem.key],
          )
        ).rows[0];
      if (prior) {
        if (prior.request_hash !== idem.requestHash)
          throw new DomainError(
            "IDEMPOTENCY_KEY_REUSED",
            "this Idempotency-Key was used with a different request in the last 24 hours",
          );
        return {
          ...prior.response,
          searchVersion: prior.response.searchVersion ?? null,
          searchVersionServed: prior.response.searchVersionServed ?? true,
          pinned: prior.response.pinned ?? false,
          replayed: true,
        };
      }
    }
    const result = await publishInTx(tx, q, input, checksum, acl);
    if (idem) {
      await q(
        `INSERT INTO idempotency_keys (tenant_id, key, request_hash, status_code, response) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code, response = EXCLUDED.response, created_at = now()`,
        [input.tenant, idem.key, idem.requestHash, result.created ? 202 : 200, JSON.stringify(result)],
      );
    }
    return result;
  });
}

type LockedDocument = { id: string; business_version: number; deleted_at: Date | null };

/** The document at the publish's key, created if missing, and locked. */
async function lockForPublish(q: Q, input: PublishInput): Promise<LockedDocument> {
  // A rename that commits while this publish waits for the row lock takes the row away from the
  // key: the lock then finds nothing (the row no longer matches), and the key is free again, so
  // the insert is tried once more and makes the new document a publish to that key should make.
  for (let attempt = 1; attempt <= 3; attempt++) {
    // The tenant's row is inserted first in the same statement, so the document's foreign key finds it.
    await q(
      `WITH tenant AS (INSERT INTO tenants (id, name) VALUES ($2, $2) ON CONFLICT (id) DO NOTHING)
       INSERT INTO documents (id, tenant_id, key, title) VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, key) DO NOTHING`,
      [randomUUID(), input.tenant, input.key, input.title],
    );
    // The row lock serialises concurrent publishes of one document, so version numbers are dense.
    const doc = (
      await q<LockedDocument>(
        `SELECT d.id, d.business_version, d.deleted_at FROM documents d WHERE d.tenant_id = $1 AND d.key = $2 FOR NO KEY UPDATE OF d`,
        [input.tenant, input.key],
      )
    ).rows[0];
    if (doc) return doc;
  }
  throw new DomainError(
    "KEY_CHANGED",
    "the document at this key was renamed three times while this publish waited for it; publish again",
  );
}

async function publishInTx(
  tx: pg.PoolClient,
  q: Q,
  input: PublishInput,
  checksum: string,
  aclIn: string[] | null,
): Promise<PublishResult> {
  const doc = await lockForPublish(q, input);
  // Read after the lock, so a publish that waited for another one judges the version it committed.
  const cur =
    doc.business_version > 0
      ? (
          await q<{
            checksum: string;
            title: string;
            content_type: string;
            acl: string[];
            abstract: string | null;
            overview: string | null;
          }>(
            `SELECT checksum, title, content_type, acl, abstract, overview FROM document_versions WHERE document_id = $1 AND version_number = $2`,
            [doc.id, doc.business_version],
          )
        ).rows[0]
      : undefined;
  // No ACL given: the latest version's stays (after a delete too), so leaving the field out never
  // opens a restricted document to the whole tenant.
  const acl = aclIn ?? (cur ? [...cur.acl].sort() : []);
  if (doc.deleted_at === null) {
    if (
      cur &&
      cur.checksum === checksum &&
      cur.title === input.title &&
      cur.content_type === input.contentType &&
      sameArray([...cur.acl].sort(), acl) &&
      cur.abstract === input.abstract &&
      cur.overview === input.overview
    ) {
      const now = await currentState(q, doc.id);
      return { created: false, documentId: doc.id, versionNumber: doc.business_version, ...now };
    }
  }

  const versionNumber = doc.business_version + 1;
  await q(
    `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, acl, abstract, overview, published_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      randomUUID(),
      input.tenant,
      doc.id,
      versionNumber,
      input.title,
      input.contentType,
      input.content,
      input.content.length,
      checksum,
      acl,
      input.abstract,
      input.overview,
      input.actor,
    ],
  );
  await q(
    `UPDATE documents SET business_version = $2, title = $3, deleted_at = NULL, updated_at = now() WHERE id = $1`,
    [doc.id, versionNumber, input.title],
  );
  if (doc.deleted_at !== null) {
    // Publishing after a delete supersedes the DELETE (below), so do its work here: the deleted
    // version must not become visible again while the new one is being indexed.
    await removeFromSearch(tx, doc.id);
  }
  // A re-publish wins over everything older, a pending DELETE included; not over MIGRATE work,
  // which is bound to the version search serves, not to the business version (a new version's
  // build may fail, and search then still serves the old one, which the shadow space must have).
  const supersede = supersedeOlderTasks(doc.id, versionNumber, input.actor, PUBLISH_SUPERSEDES);
  await q(supersede.text, supersede.values);
  await q(
    `UPDATE search_pointers SET pinned = false, pinned_by = NULL, pinned_reason = NULL WHERE document_id = $1 AND pinned`,
    [doc.id],
  );
  // The version is new (document_versions holds one row per number), so no task of it exists yet.
  const created = createTask(
    input.tenant,
    doc.id,
    versionNumber,
    "INDEX",
    input.maxAttempts,
    input.actor,
    { versionNumber, checksum },
    input.traceparent ?? null,
    input.priority ?? PRIORITY.INTERACTIVE,
  );
  const task = (await q<{ task_id: string }>(created.text, created.values)).rows[0];
  if (!task)
    throw new Error(
      `document ${doc.id} already has an INDEX task for its new version ${versionNumber}: index_tasks disagrees with document_versions`,
    );
  const notify = notifyTasks();
  await q(notify.text, notify.values);
  const now = await currentState(q, doc.id);
  return { created: true, documentId: doc.id, versionNumber, ...now, taskId: task.task_id };
}

/** The document's state and newest business-version task, by the shared state rule, in the tenant's active space. */
async function currentState(
  q: Q,
  documentId: string,
): Promise<{
  state: DocumentState;
  taskId: string | null;
  searchVersion: number | null;
  searchVersionServed: boolean;
  pinned: boolean;
}> {
  const r = (
    await q<{
      state: DocumentState;
      task_id: string | null;
      search_version: number | null;
      in_space: boolean | null;
      pinned: boolean | null;
    }>(
      `SELECT ${DOCUMENT_STATE_SQL} AS state, lt.task_id::text AS task_id, sp.version_number AS search_version, sp.in_space, sp.pinned
         FROM documents d
         ${POINTER_JOIN}
         ${LATEST_TASK_JOIN}
        WHERE d.id = $1`,
      [documentId],
    )
  ).rows[0];
  return {
    state: r.state,
    taskId: r.task_id,
    searchVersion: r.search_version,
    searchVersionServed: r.in_space !== false,
    pinned: r.pinned === true,
  };
}
