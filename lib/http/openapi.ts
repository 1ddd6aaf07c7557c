import { z } from "zod";
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { ROUTES, type HttpMethod, type RouteRule } from "./routes";
import * as R from "./openapi-schemas";
import {
  documentListQuery,
  keyParam,
  PUBLISH_PRIORITIES,
  publishBody,
  searchBody,
  tenantParam,
} from "../documents/schemas";
import {
  bulkRetryBody,
  optionalReasonBody,
  pauseBody,
  pauseIdParam,
  reasonBody,
  renameBody,
  rollbackBody,
  taskIdParam,
  taskListQuery,
} from "../operations/schemas";
import { newTokenBody, newUserBody, patchUserBody } from "../admin/accounts";
import { signInBody } from "../auth/schemas";
import * as W from "../webhooks/schemas";
import * as S from "../spaces/schemas";
import * as E from "../evaluation/schemas";
import * as SLO from "../slo/schemas";
import { auditListQuery } from "../audit/schemas";
import { chunkListQuery } from "../documents/chunk-schemas";
import { documentExportQuery, taskExportQuery } from "../exports/schemas";
import { activityQuery } from "../operations/range";
import { SUPPORTED_CONTENT_TYPES } from "../pipeline/parsers/content-types";
import pkg from "../../package.json";

// The OpenAPI 3.1 document of the HTTP API, generated from the zod schemas the route handlers parse
// requests with (lib/*/schemas.ts, lib/admin/accounts.ts) and the response schemas in
// lib/http/openapi-schemas.ts. Authentication and the minimum role of each operation come from the
// route table (lib/http/routes.ts), so the two cannot say different things. Served at
// /api/openapi.json; `npm run openapi` writes lib/client/openapi.json and the client's types.
// test/api/openapi-contract.test.ts calls every operation and validates the answers against this.

type Status = number;
type Op = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  request?: RouteConfig["request"];
  /** Success answers: status → schema (JSON) or a full response object. */
  ok: Record<
    Status,
    {
      description: string;
      schema?: z.ZodType;
      content?: Record<string, { schema: z.ZodType }>;
      headers?: Record<string, { description: string; schema: { type: "string" } }>;
    }
  >;
  /** Error codes this operation answers beyond those its route row and inputs imply. */
  errors?: Record<Status, string[]>;
  /** Reads a JSON body (adds the body-reading error codes). */
  json?: boolean;
};

const DOC = "/api/v1/tenants/[tenant]/documents/[key]";
const json = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });
const body = (schema: z.ZodType) => ({ required: true, ...json(schema) });
const docParams = z.object({ tenant: tenantParam, key: keyParam });
const taskParams = z.object({ taskId: taskIdParam });
const idParam = z.object({ id: z.uuid() });
const JSON_BODY_ERRORS = {
  400: ["INVALID_JSON", "INVALID_ENCODING"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
};

const multipartPublish = z
  .object({
    file: z.string().meta({
      description: "The document's bytes; its type is the contentType field, else the part's own type.",
      contentMediaType: "application/octet-stream",
    }),
    title: z.string().optional().meta({ description: "Defaults to the file name without its extension." }),
    contentType: z.string().optional(),
    acl: z.string().optional().meta({
      description:
        "Principals, comma-separated. Absent: the latest version's ACL is kept (a new document: the whole tenant); an empty value opens the document to the whole tenant.",
    }),
    abstract: z.string().optional(),
    overview: z.string().optional(),
    priority: z.enum(PUBLISH_PRIORITIES).optional().meta({ description: "interactive (the default) or bulk." }),
  })
  .meta({ id: "PublishUpload" });

/** Every operation, keyed "METHOD /path" as in lib/http/routes.ts. */
export const OPERATIONS: Record<string, Op> = {
  "GET /api/health": {
    operationId: "health",
    summary: "Liveness and database reachability",
    tags: ["system"],
    ok: { 200: { description: "The database answers.", schema: R.health } },
    errors: {},
  },
  "POST /api/auth/signin": {
    operationId: "signIn",
    summary: "Open a session with a token or an email and password",
    description: "Sets the session cookie. Failed attempts are throttled per client address and per account.",
    tags: ["auth"],
    request: { body: body(signInBody) },
    json: true,
    ok: { 200: { description: "Signed in; the session cookie is set.", schema: R.signInResult } },
    errors: { 401: ["UNAUTHORIZED"], 403: ["ORIGIN_MISMATCH"], 429: ["TOO_MANY_ATTEMPTS"], 503: ["HASHING_BUSY"] },
  },
  "POST /api/auth/signout": {
    operationId: "signOut",
    summary: "End the session (server-side)",
    tags: ["auth"],
    ok: { 200: { description: "Signed out (also without a session); the cookie is cleared.", schema: R.okResult } },
    errors: { 403: ["ORIGIN_MISMATCH"] },
  },
  "GET /api/auth/oidc/start": {
    operationId: "oidcStart",
    summary: "Send the browser to the identity provider",
    tags: ["auth"],
    request: {
      query: z.object({
        next: z.string().optional().meta({ description: "A local path to return to after sign-in." }),
      }),
    },
    ok: {
      303: {
        description: "Redirect to the identity provider (or back to /signin with an error code).",
        headers: { location: { description: "Where to go.", schema: { type: "string" } } },
      },
    },
    errors: { 404: ["NOT_FOUND"] },
  },
  "GET /api/auth/oidc/callback": {
    operationId: "oidcCallback",
    summary: "The identity provider's redirect back",
    tags: ["auth"],
    request: { query: z.object({ code: z.string().optional(), state: z.string().optional() }) },
    ok: {
      303: {
        description: "Signed in and redirected (or sent to /signin?error=CODE).",
        headers: { location: { description: "Where to go.", schema: { type: "string" } } },
      },
    },
    errors: { 404: ["NOT_FOUND"] },
  },
  "GET /api/openapi.json": {
    operationId: "openapi",
    summary: "This document",
    tags: ["system"],
    ok: { 200: { description: "The OpenAPI 3.1 document.", schema: z.object({ openapi: z.string() }).passthrough() } },
  },
  "GET /api/metrics": {
    operationId: "metrics",
    summary: "Prometheus metrics",
    tags: ["system"],
    ok: {
      200: { description: "Prometheus text exposition format.", content: { "text/plain": { schema: z.string() } } },
    },
  },
  "GET /api/v1/overview": {
    operationId: "getOverview",
    summary: "Queue, drift, latency and fleet figures",
    tags: ["operations"],
    ok: { 200: { description: "The overview over the caller's tenants.", schema: R.overview } },
  },
  "GET /api/v1/workers": {
    operationId: "listWorkers",
    summary: "Worker processes, live ones first",
    tags: ["operations"],
    ok: { 200: { description: "Workers live or stopped in the last 24 hours.", schema: R.workerList } },
  },
  "GET /api/v1/tenants": {
    operationId: "listTenants",
    summary: "Tenants the caller holds",
    tags: ["documents"],
    ok: { 200: { description: "Tenants.", schema: R.tenantList } },
  },
  "GET /api/v1/documents": {
    operationId: "listDocuments",
    summary: "Documents, newest change first",
    tags: ["documents"],
    request: { query: documentListQuery },
    ok: {
      200: { description: "A page of documents; pass nextCursor as cursor for the next.", schema: R.documentPage },
    },
    errors: { 400: ["INVALID_CURSOR"] },
  },
  "GET /api/v1/tasks": {
    operationId: "listTasks",
    summary: "Tasks, newest first",
    tags: ["tasks"],
    request: { query: taskListQuery },
    ok: { 200: { description: "A page of tasks.", schema: R.taskPage } },
  },
  "GET /api/v1/tasks/[taskId]": {
    operationId: "getTask",
    summary: "A task and its timeline",
    tags: ["tasks"],
    request: { params: taskParams },
    ok: { 200: { description: "The task.", schema: R.taskDetail } },
    errors: { 404: ["NOT_FOUND"] },
  },
  "POST /api/v1/tasks/[taskId]/retry": {
    operationId: "retryTask",
    summary: "Retry a DEAD task with a fresh attempt budget",
    tags: ["tasks"],
    request: { params: taskParams, body: { ...json(optionalReasonBody), required: false } },
    json: true,
    ok: { 200: { description: "The task is PENDING again.", schema: R.taskActionResult } },
    errors: { 404: ["NOT_FOUND"], 409: ["INVALID_STATE", "TASK_SUPERSEDED"] },
  },
  "POST /api/v1/tasks/[taskId]/force-done": {
    operationId: "forceDoneTask",
    summary: "Close a DEAD task as RESOLVED",
    description:
      "Stops retrying: the task ends RESOLVED and the drift it leaves shows as acknowledged. A DELETE task whose document still stands deleted at its version does the delete's work in the same transaction (the search pointer dropped, the index versions retired for garbage collection), so its chunks are not kept for good.",
    tags: ["tasks"],
    request: { params: taskParams, body: body(reasonBody) },
    json: true,
    ok: { 200: { description: "The task is RESOLVED.", schema: R.taskActionResult } },
    errors: { 404: ["NOT_FOUND"], 409: ["INVALID_STATE"] },
  },
  "POST /api/v1/tasks/[taskId]/cancel": {
    operationId: "cancelTask",
    summary: "Cancel a PENDING or RETRY_WAIT task",
    description:
      "The task ends CANCELLED with the reason on its timeline and as its error message (OPERATOR_CANCELLED); a retry revives it. A RUNNING task, a finished one and any DELETE task are refused with TASK_NOT_CANCELLABLE.",
    tags: ["tasks"],
    request: { params: taskParams, body: body(reasonBody) },
    json: true,
    ok: { 200: { description: "The task is CANCELLED.", schema: R.taskActionResult } },
    errors: { 404: ["NOT_FOUND"], 409: ["TASK_NOT_CANCELLABLE"] },
  },
  "GET /api/v1/pauses": {
    operationId: "listPauses",
    summary: "Active pauses",
    description: "Pauses of the caller's tenants, and every task-type pause (it holds the caller's work too).",
    tags: ["operations"],
    ok: { 200: { description: "Oldest first.", schema: R.taskPauseList } },
  },
  "POST /api/v1/pauses": {
    operationId: "pauseQueue",
    summary: "Pause a tenant's or a task type's processing",
    description:
      "Workers stop claiming the named tasks at once (running ones finish). A tenant pause needs that tenant in the caller's grant; a task-type pause holds every tenant's work and needs an all-tenant operator. Audited.",
    tags: ["operations"],
    request: { body: body(pauseBody) },
    json: true,
    ok: { 201: { description: "The pause.", schema: R.taskPause } },
    errors: { 403: ["FLEET_SCOPE_REQUIRED"], 404: ["NOT_FOUND"], 409: ["ALREADY_PAUSED"] },
  },
  "DELETE /api/v1/pauses/[id]": {
    operationId: "resumeQueue",
    summary: "Resume: end a pause",
    description:
      "The held tasks are claimed at once. A task-type pause is lifted by an all-tenant operator only. Audited.",
    tags: ["operations"],
    request: { params: z.object({ id: pauseIdParam }), body: { ...json(optionalReasonBody), required: false } },
    json: true,
    ok: { 200: { description: "The pause ended.", schema: R.taskPauseResumed } },
    errors: { 403: ["FLEET_SCOPE_REQUIRED"], 404: ["NOT_FOUND"] },
  },
  "POST /api/v1/tasks/retry": {
    operationId: "retryTasks",
    summary: "Retry every DEAD task matching a filter",
    tags: ["tasks"],
    request: { body: body(bulkRetryBody) },
    json: true,
    ok: { 200: { description: "How many were revived; obsolete ones are skipped.", schema: R.bulkRetryResult } },
  },
  "GET /api/v1/audit": {
    operationId: "listAudit",
    summary: "The audit log, newest first",
    tags: ["operations"],
    description:
      "Filters: actor (part of it, any case), action (one, or `task.*` for every action on a kind of target), tenant, and a time range (from inclusive, to exclusive).",
    request: { query: auditListQuery },
    ok: { 200: { description: "A page of audit entries.", schema: R.auditPage } },
  },
  "GET /api/v1/overview/activity": {
    operationId: "getOverviewActivity",
    summary: "Throughput by outcome and backlog history over a range",
    tags: ["operations"],
    request: { query: activityQuery },
    ok: {
      200: {
        description: "Tasks finished per minute by outcome, and the backlog snapshots, over 1 h, 24 h or 7 d.",
        schema: R.activity,
      },
    },
  },
  "GET /api/v1/documents/export": {
    operationId: "exportDocuments",
    summary: "The documents list as CSV or JSON",
    description:
      "Every page of the list with the same filters, streamed. CSV cells that a spreadsheet would run as a formula (starting with = + - @) get a leading apostrophe.",
    tags: ["documents"],
    request: { query: documentExportQuery },
    ok: {
      200: {
        description: "The export, as an attachment.",
        content: { "text/csv": { schema: z.string() }, "application/json": { schema: R.exportDocument } },
      },
    },
  },
  "GET /api/v1/tasks/export": {
    operationId: "exportTasks",
    summary: "The tasks list as CSV or JSON",
    description:
      "Every page of the list with the same filters, streamed; CSV cells are protected against formula injection.",
    tags: ["tasks"],
    request: { query: taskExportQuery },
    ok: {
      200: {
        description: "The export, as an attachment.",
        content: { "text/csv": { schema: z.string() }, "application/json": { schema: R.exportDocument } },
      },
    },
  },
  [`GET ${DOC}/chunks`]: {
    operationId: "listChunks",
    summary: "A document's chunks in one index version",
    description:
      "Section, level, text and whether the vector was reused, in reading order. Texts are null where the version's ACL does not include the caller.",
    tags: ["documents"],
    request: { params: docParams, query: chunkListQuery },
    ok: { 200: { description: "A page of chunks; pass nextCursor as cursor for the next.", schema: R.chunkPage } },
    errors: { 404: ["NOT_FOUND"] },
  },
  [`GET ${DOC}`]: {
    operationId: "getDocument",
    summary: "A document: state, versions, tasks and index versions",
    tags: ["documents"],
    request: { params: docParams },
    ok: { 200: { description: "The document.", schema: R.documentDetail } },
    errors: { 404: ["NOT_FOUND"] },
  },
  [`DELETE ${DOC}`]: {
    operationId: "deleteDocument",
    summary: "Remove a document from search",
    description: "Queues a DELETE task; asking again returns the same task.",
    tags: ["documents"],
    request: { params: docParams },
    ok: { 202: { description: "The DELETE task.", schema: R.taskCreated } },
    errors: { 404: ["NOT_FOUND"] },
  },
  [`POST ${DOC}/versions`]: {
    operationId: "publishVersion",
    summary: "Publish a new version of a document",
    description:
      `Text as JSON (\`content\`), binary formats (PDF, DOCX) as base64 in JSON (\`contentEncoding: "base64"\`) or as a multipart upload. ` +
      `Supported content types: ${SUPPORTED_CONTENT_TYPES.join(", ")}. Content equal to the current version creates nothing (200). ` +
      `With an Idempotency-Key, a retried request answers as the first did, with the header Idempotent-Replayed: true.`,
    tags: ["documents"],
    request: {
      params: docParams,
      headers: z.object({
        "idempotency-key": z
          .string()
          .regex(/^[\x21-\x7e]{1,200}$/)
          .optional(),
      }),
      body: {
        required: true,
        content: { "application/json": { schema: publishBody }, "multipart/form-data": { schema: multipartPublish } },
      },
    },
    json: true,
    ok: {
      202: { description: "A new version; its INDEX task is queued.", schema: R.publishResult },
      200: { description: "The content equals the current version: nothing new to index.", schema: R.publishResult },
    },
    errors: {
      400: [
        "INVALID_IDEMPOTENCY_KEY",
        "INVALID_MULTIPART",
        "INVALID_CONTENT",
        "EMPTY_DOCUMENT",
        "TEXT_TOO_LONG_FOR_MODEL",
      ],
      409: ["IDEMPOTENCY_KEY_REUSED", "KEY_CHANGED"],
      413: ["CONTENT_TOO_LARGE"],
      415: ["UNSUPPORTED_DOCUMENT"],
    },
  },
  [`POST ${DOC}/reindex`]: {
    operationId: "reindexDocument",
    summary: "Rebuild the current version's index",
    description: "Takes no request body: one is refused with 400 VALIDATION_FAILED.",
    tags: ["documents"],
    request: { params: docParams },
    ok: { 202: { description: "The REINDEX task.", schema: R.taskCreated } },
    errors: { 404: ["NOT_FOUND"], 409: ["INVALID_STATE"] },
  },
  [`POST ${DOC}/rename`]: {
    operationId: "renameDocument",
    summary: "Move a document to a new key",
    tags: ["documents"],
    request: { params: docParams, body: body(renameBody) },
    json: true,
    ok: { 200: { description: "Renamed (renamed: false when it already had that key).", schema: R.renameResult } },
    errors: { 404: ["NOT_FOUND"], 409: ["KEY_TAKEN"] },
  },
  [`POST ${DOC}/rollback`]: {
    operationId: "rollbackDocument",
    summary: "Serve an earlier version and pin search to it",
    tags: ["documents"],
    request: { params: docParams, body: body(rollbackBody) },
    json: true,
    ok: { 200: { description: "Search now answers from toVersion.", schema: R.rollbackResult } },
    errors: { 404: ["NOT_FOUND"], 409: ["ROLLBACK_UNAVAILABLE", "ROLLBACK_INCOMPATIBLE", "INVALID_STATE"] },
  },
  [`POST ${DOC}/unpin`]: {
    operationId: "unpinDocument",
    summary: "Release a rollback pin",
    description: "Takes no request body: one is refused with 400 VALIDATION_FAILED.",
    tags: ["documents"],
    request: { params: docParams },
    ok: { 200: { description: "Search follows the business version again.", schema: R.unpinResult } },
    errors: { 404: ["NOT_FOUND"], 409: ["INVALID_STATE"] },
  },
  "POST /api/v1/tenants/[tenant]/search": {
    operationId: "search",
    summary: "Search a tenant",
    description:
      "Answers from each document's search version, filtered by the caller's ACL principals (or those named, for operators and tokens with search:principals).",
    tags: ["search"],
    request: { params: z.object({ tenant: tenantParam }), body: body(searchBody) },
    json: true,
    ok: { 200: { description: "Hits, best first.", schema: R.searchResult } },
    errors: { 403: ["PRINCIPALS_NOT_ALLOWED"] },
  },
  "GET /api/v1/admin/users": {
    operationId: "listUsers",
    summary: "People's accounts",
    tags: ["admin"],
    ok: { 200: { description: "Accounts within the caller's tenants.", schema: R.userList } },
  },
  "POST /api/v1/admin/users": {
    operationId: "createUser",
    summary: "Create an account",
    tags: ["admin"],
    request: { body: body(newUserBody) },
    json: true,
    ok: { 201: { description: "Created.", schema: R.userCreated } },
    errors: { 400: ["PASSWORD_REQUIRED"], 403: ["GRANT_EXCEEDS_OWN"], 409: ["EMAIL_TAKEN"], 503: ["HASHING_BUSY"] },
  },
  "PATCH /api/v1/admin/users/[id]": {
    operationId: "updateUser",
    summary: "Change an account's role, tenants, groups, password or state",
    tags: ["admin"],
    request: { params: idParam, body: body(patchUserBody) },
    json: true,
    ok: { 200: { description: "Updated.", schema: R.userUpdated } },
    errors: { 403: ["GRANT_EXCEEDS_OWN", "SELF_GRANT"], 404: ["NOT_FOUND"], 503: ["HASHING_BUSY"] },
  },
  "GET /api/v1/admin/tokens": {
    operationId: "listTokens",
    summary: "API tokens",
    tags: ["admin"],
    ok: { 200: { description: "Tokens within the caller's tenants.", schema: R.tokenList } },
  },
  "POST /api/v1/admin/tokens": {
    operationId: "createToken",
    summary: "Mint an API token",
    tags: ["admin"],
    request: { body: body(newTokenBody) },
    json: true,
    ok: { 201: { description: "The token, with its secret shown once.", schema: R.tokenCreated } },
    errors: { 400: ["CAPABILITY_NOT_ALLOWED"], 403: ["GRANT_EXCEEDS_OWN"], 404: ["NOT_FOUND"], 409: ["USER_DISABLED"] },
  },
  "DELETE /api/v1/admin/tokens/[id]": {
    operationId: "revokeToken",
    summary: "Revoke an API token",
    tags: ["admin"],
    request: { params: idParam },
    ok: { 200: { description: "Revoked (also when it already was).", schema: R.tokenRevoked } },
    errors: { 404: ["NOT_FOUND"] },
  },
  "POST /api/v1/admin/bootstrap-token/rotate": {
    operationId: "rotateBootstrapToken",
    summary: "Replace the bootstrap token",
    description:
      "A new random bootstrap token, shown once; the one it replaces (configured or rotated before) stops signing in at once, with its sessions, in every web process. Audited as bootstrap_token.rotate. All-tenant admins only.",
    tags: ["admin"],
    ok: { 200: { description: "The new token.", schema: R.bootstrapTokenRotated } },
    errors: { 403: ["FLEET_SCOPE_REQUIRED"] },
  },
  "DELETE /api/v1/admin/bootstrap-token": {
    operationId: "revokeBootstrapToken",
    summary: "Revoke the bootstrap token",
    description:
      "No bootstrap token signs in any more (the configured one neither) until a rotation issues a new one; its sessions end. Audited as bootstrap_token.revoke. All-tenant admins only.",
    tags: ["admin"],
    ok: { 200: { description: "Revoked.", schema: R.bootstrapTokenRevoked } },
    errors: { 403: ["FLEET_SCOPE_REQUIRED"] },
  },
  "GET /api/v1/admin/embedding-spaces": {
    operationId: "listEmbeddingSpaces",
    summary: "Index spaces",
    description:
      "Every index space (provider, model, dimensions, chunker, rate, price), how many tenants search it, how many open migrations use it and whether its HNSW index is built. Never a key: a space names the environment variable that holds it.",
    tags: ["spaces"],
    ok: { 200: { description: "Spaces, live first.", schema: z.object({ items: z.array(S.spaceView) }) } },
  },
  "POST /api/v1/admin/embedding-spaces": {
    operationId: "createEmbeddingSpace",
    summary: "Register an index space",
    description:
      "One probe call first: a space whose key variable is not set (SPACE_KEY_MISSING), whose provider cannot be reached (SPACE_UNREACHABLE) or answers other dimensions (SPACE_DIMENSIONS_MISMATCH) is refused and nothing is stored. Audited as space.create. All-tenant admins only.",
    tags: ["spaces"],
    request: { body: body(S.newSpaceBody) },
    json: true,
    ok: { 201: { description: "Registered.", schema: S.spaceView } },
    errors: {
      409: ["SPACE_NAME_TAKEN"],
      422: ["SPACE_KEY_MISSING", "SPACE_UNREACHABLE", "SPACE_DIMENSIONS_MISMATCH"],
      403: ["FLEET_SCOPE_REQUIRED"],
    },
  },
  "PATCH /api/v1/admin/embedding-spaces/[name]": {
    operationId: "updateEmbeddingSpace",
    summary: "Change a space's rate, price, base URL or key variable",
    description:
      "What a space embeds with (provider, model, dimensions, chunker) never changes: register another space and migrate.",
    tags: ["spaces"],
    request: { params: z.object({ name: S.spaceName }), body: body(S.spacePatchBody) },
    json: true,
    ok: { 200: { description: "Updated.", schema: S.spaceView } },
    errors: { 404: ["NOT_FOUND"], 403: ["FLEET_SCOPE_REQUIRED"] },
  },
  "POST /api/v1/admin/embedding-spaces/[name]/retire": {
    operationId: "retireEmbeddingSpace",
    summary: "Retire a space no tenant searches",
    tags: ["spaces"],
    request: { params: z.object({ name: S.spaceName }), body: { required: false, ...json(optionalReasonBody) } },
    json: true,
    ok: { 200: { description: "Retired (or already retired).", schema: S.spaceView } },
    errors: { 404: ["NOT_FOUND"], 409: ["SPACE_IN_USE"], 403: ["FLEET_SCOPE_REQUIRED"] },
  },
  "POST /api/v1/admin/migrations": {
    operationId: "startFleetMigration",
    summary: "Start a migration for every tenant on a space",
    description:
      "One migration per tenant whose active space is `from` (every tenant not on `space` when omitted); a tenant with a migration open is skipped with the reason.",
    tags: ["spaces"],
    request: { body: body(S.fleetMigrationBody) },
    json: true,
    ok: {
      202: {
        description: "Started.",
        schema: z.object({
          started: z.array(S.migrationView),
          skipped: z.array(z.object({ tenant: z.string(), reason: z.string() })),
        }),
      },
    },
    errors: { 404: ["NOT_FOUND"], 403: ["FLEET_SCOPE_REQUIRED"] },
  },
  "GET /api/v1/tenants/[tenant]/migrations": {
    operationId: "listMigrations",
    summary: "A tenant's migrations, newest first",
    tags: ["spaces"],
    request: { params: z.object({ tenant: tenantParam }) },
    ok: { 200: { description: "Up to 50.", schema: z.object({ items: z.array(S.migrationView) }) } },
  },
  "POST /api/v1/tenants/[tenant]/migrations": {
    operationId: "startMigration",
    summary: "Build the tenant's documents into another index space",
    description:
      "Queues one MIGRATE task per live document search serves; workers build them into the candidate space in slots publishes leave free, at the space's rate. Search keeps reading the active space until the switch. Audited as migration.start.",
    tags: ["spaces"],
    request: { params: z.object({ tenant: tenantParam }), body: body(S.newMigrationBody) },
    json: true,
    ok: { 202: { description: "Started (BUILDING).", schema: S.migrationView } },
    errors: { 404: ["NOT_FOUND"], 409: ["MIGRATION_OPEN", "INVALID_STATE", "SPACE_RETIRED"] },
  },
  "GET /api/v1/tenants/[tenant]/migrations/[id]": {
    operationId: "getMigration",
    summary: "A migration's state and progress",
    tags: ["spaces"],
    request: { params: z.object({ tenant: tenantParam, id: S.migrationIdParam }) },
    ok: {
      200: {
        description: "Progress is counted now: documents built / total, failures by code, texts, tokens, cost, ETA.",
        schema: S.migrationView,
      },
    },
    errors: { 404: ["NOT_FOUND"] },
  },
  ...Object.fromEntries(
    (
      [
        [
          "switch",
          "switchMigration",
          "Search reads the candidate from the next query on",
          "Refused with MIGRATION_NOT_READY (and the counts) until every live document is built, verified and the candidate's HNSW index exists; with EVALUATION_REGRESSED (both nDCG@10 and the per-query losses in details) when the tenant's evaluation set scores lower on the candidate by more than EVALUATION_TOLERANCE, unless {force: true, reason} (audited as migration.force_switch). One transaction.",
        ],
        [
          "switch-back",
          "switchBackMigration",
          "Back to the previous space at once",
          "Nothing is embedded: the previous space kept following every publish since the switch.",
        ],
        ["abort", "abortMigration", "Drop the candidate", "Search never read it; queued work is superseded."],
        [
          "finish",
          "finishMigration",
          "Stop keeping the previous space",
          "No more second embeddings per publish, and no switch-back.",
        ],
      ] as const
    ).map(([action, operationId, summary, description]) => [
      `POST /api/v1/tenants/[tenant]/migrations/[id]/${action}`,
      {
        operationId,
        summary,
        description: `${description} Audited as migration.${action.replace("-", "_")}.`,
        tags: ["spaces"],
        request: {
          params: z.object({ tenant: tenantParam, id: S.migrationIdParam }),
          body: { required: false, ...json(action === "switch" ? E.switchBody : optionalReasonBody) },
        },
        json: true,
        ok: { 200: { description: "Done.", schema: S.migrationView } },
        errors: {
          404: ["NOT_FOUND"],
          409: [
            "INVALID_STATE",
            ...(action.startsWith("switch") ? ["MIGRATION_NOT_READY"] : []),
            // The quality gate (docs/evaluation.md#the-gate); {force: true, reason} overrides it.
            ...(action === "switch" ? ["EVALUATION_REGRESSED"] : []),
          ],
        },
      } satisfies Op,
    ]),
  ),
  "GET /api/v1/slo": {
    operationId: "listFreshnessSlo",
    summary: "The freshness SLO of every tenant in scope, worst first",
    description:
      "Per tenant: the objective in force (its own or the default), publishes decided good and bad over the window, those still pending, compliance and error budget left. Computed from the tasks' own timestamps at each call (docs/operations.md#freshness-slo).",
    tags: ["operations"],
    ok: { 200: { description: "Worst first: least budget left.", schema: SLO.sloList } },
  },
  "GET /api/v1/tenants/[tenant]/slo": {
    operationId: "getFreshnessSlo",
    summary: "The tenant's freshness SLO, with its compliance per day",
    tags: ["operations"],
    request: { params: z.object({ tenant: tenantParam }) },
    ok: { 200: { description: "The figures over the window.", schema: SLO.tenantSloView } },
    errors: { 404: ["NOT_FOUND"] },
  },
  "PUT /api/v1/tenants/[tenant]/slo": {
    operationId: "putFreshnessSlo",
    summary: "Set the tenant's own freshness objective and target",
    description:
      "An absent field is left as it is; null returns it to the default. Every problem is reported at once with its own code in details.problems (NOTHING_TO_SET, OBJECTIVE_OUT_OF_RANGE, TARGET_NOT_WHOLE, TARGET_OUT_OF_RANGE) and nothing is written. Audited as tenant.slo.update with the values before and after.",
    tags: ["operations"],
    request: { params: z.object({ tenant: tenantParam }), body: body(SLO.sloBody) },
    json: true,
    ok: { 200: { description: "The figures under the new objective.", schema: SLO.tenantSloView } },
    errors: { 400: ["SLO_INVALID"], 404: ["NOT_FOUND"] },
  },
  "GET /api/v1/tenants/[tenant]/evaluation-set": {
    operationId: "getEvaluationSet",
    summary: "The tenant's golden query set",
    description: "The newest version with its queries, and every version (who changed the set, when).",
    tags: ["evaluation"],
    request: { params: z.object({ tenant: tenantParam }) },
    ok: { 200: { description: "The newest version.", schema: E.evaluationSetView } },
    errors: { 404: ["NOT_FOUND"] },
  },
  "PUT /api/v1/tenants/[tenant]/evaluation-set": {
    operationId: "putEvaluationSet",
    summary: "Replace the tenant's golden query set (a new version)",
    description:
      "Each query lists the keys of the documents a good answer names, optionally graded 0–3 and searched as named principals. Every problem the shape cannot express is reported at once with its own code in details.problems (DUPLICATE_RELEVANT, GRADE_NOT_RELEVANT, NO_RELEVANT, DUPLICATE_QUERY) and nothing is written. Naming principals other than one's own needs what searching as them needs. Audited as evaluation_set.update.",
    tags: ["evaluation"],
    request: { params: z.object({ tenant: tenantParam }), body: body(E.evaluationSetBody) },
    json: true,
    ok: { 200: { description: "The new version.", schema: E.evaluationSetView } },
    errors: { 400: ["EVALUATION_SET_INVALID"], 403: ["PRINCIPALS_NOT_ALLOWED"], 404: ["NOT_FOUND"] },
  },
  "GET /api/v1/tenants/[tenant]/evaluations": {
    operationId: "listEvaluations",
    summary: "The tenant's evaluation runs, newest first",
    description: "Figures only (recall@10, MRR@10, nDCG@10 per run): the history.",
    tags: ["evaluation"],
    request: { params: z.object({ tenant: tenantParam }) },
    ok: { 200: { description: "Up to 100.", schema: z.object({ items: z.array(E.runSummary) }) } },
  },
  "POST /api/v1/tenants/[tenant]/evaluations": {
    operationId: "startEvaluation",
    summary: "Evaluate the tenant's set against an index space and search mode",
    description:
      "A run of the newest set version, executed by a worker in the background (PENDING, RUNNING with progress, DONE or FAILED). The space is the tenant's active one by default, or its open migration's shadow (INVALID_STATE otherwise). Audited as evaluation.run, with the principals named beyond the caller's own.",
    tags: ["evaluation"],
    request: { params: z.object({ tenant: tenantParam }), body: { required: false, ...json(E.newRunBody) } },
    json: true,
    ok: { 202: { description: "Queued.", schema: E.runSummary } },
    errors: { 403: ["PRINCIPALS_NOT_ALLOWED"], 404: ["NOT_FOUND"], 409: ["INVALID_STATE"] },
  },
  "GET /api/v1/tenants/[tenant]/evaluations/[id]": {
    operationId: "getEvaluation",
    summary:
      "One run: figures, settings, and per query the ranks of its relevant documents and a diagnosis of each miss",
    description: "A query that searched as principals the reader may not search as is shown as {index, hidden: true}.",
    tags: ["evaluation"],
    request: { params: z.object({ tenant: tenantParam, id: E.runIdParam }) },
    ok: { 200: { description: "The run.", schema: E.runView } },
    errors: { 404: ["NOT_FOUND"] },
  },
  [`GET ${DOC}/why`]: {
    operationId: "whyNotFound",
    summary: "Why a document is not in the results of a query",
    description:
      "The first stage that explains it: UNKNOWN, DELETED, NOT_SEARCHABLE (state and newest build), NOT_BUILT, ACL_EXCLUDED, NO_SHARED_TERMS (the closest chunk), RANKED_LOW (its rank and score, and the 10th document's). Searched as the caller, or as named principals where searching as them is allowed (audited as search.as_principals).",
    tags: ["evaluation"],
    request: { params: docParams, query: E.whyQuery },
    ok: { 200: { description: "The diagnosis (null when the document is in the first 10).", schema: E.whyResult } },
    errors: { 403: ["PRINCIPALS_NOT_ALLOWED"] },
  },
  [`POST ${DOC}/why`]: {
    operationId: "whyNotFoundPost",
    summary: "Why a document is not in the results of a query (JSON body)",
    tags: ["evaluation"],
    request: { params: docParams, body: body(E.whyBody) },
    json: true,
    ok: { 200: { description: "The diagnosis (null when the document is in the first 10).", schema: E.whyResult } },
    errors: { 403: ["PRINCIPALS_NOT_ALLOWED"] },
  },
  "GET /api/v1/admin/webhooks": {
    operationId: "listWebhookEndpoints",
    summary: "Webhook endpoints",
    tags: ["admin"],
    ok: {
      200: {
        description: "Endpoints of the caller's tenants, with delivery counts; never their secrets.",
        schema: W.webhookEndpointList,
      },
    },
  },
  "POST /api/v1/admin/webhooks": {
    operationId: "createWebhookEndpoint",
    summary: "Add a webhook endpoint",
    description:
      "Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the secret in this answer, which is not shown again.",
    tags: ["admin"],
    request: { body: body(W.newEndpointBody) },
    json: true,
    ok: { 201: { description: "Created, with its signing secret.", schema: W.webhookEndpointWithSecret } },
    errors: { 400: ["WEBHOOK_URL_INVALID", "WEBHOOK_URL_PRIVATE"] },
  },
  "PATCH /api/v1/admin/webhooks/[id]": {
    operationId: "updateWebhookEndpoint",
    summary: "Change a webhook endpoint's URL, event types, description or enabled flag",
    tags: ["admin"],
    request: { params: idParam, body: body(W.patchEndpointBody) },
    json: true,
    ok: { 200: { description: "Updated.", schema: W.webhookEndpoint } },
    errors: { 400: ["WEBHOOK_URL_INVALID", "WEBHOOK_URL_PRIVATE"], 404: ["NOT_FOUND"] },
  },
  "DELETE /api/v1/admin/webhooks/[id]": {
    operationId: "deleteWebhookEndpoint",
    summary: "Remove a webhook endpoint and its delivery log",
    tags: ["admin"],
    request: { params: idParam },
    ok: { 200: { description: "Removed.", schema: W.webhookEndpointDeleted } },
    errors: { 404: ["NOT_FOUND"] },
  },
  "POST /api/v1/admin/webhooks/[id]/rotate-secret": {
    operationId: "rotateWebhookSecret",
    summary: "Issue a new signing secret",
    description:
      "The replaced secret keeps signing beside the new one for 24 hours, so receivers can switch without refusing deliveries.",
    tags: ["admin"],
    request: { params: idParam },
    ok: { 200: { description: "The endpoint with its new secret, shown once.", schema: W.webhookEndpointWithSecret } },
    errors: { 404: ["NOT_FOUND"] },
  },
  "GET /api/v1/admin/webhooks/[id]/deliveries": {
    operationId: "listWebhookDeliveries",
    summary: "An endpoint's delivery log",
    tags: ["admin"],
    request: { params: idParam, query: W.deliveriesQuery },
    ok: { 200: { description: "Newest first.", schema: W.webhookDeliveryList } },
    errors: { 404: ["NOT_FOUND"] },
  },
  "POST /api/v1/admin/webhooks/[id]/deliveries/[deliveryId]/redeliver": {
    operationId: "redeliverWebhook",
    summary: "Send a delivery again",
    description: "Resets its attempts; the message keeps its webhook-id. Audited.",
    tags: ["admin"],
    request: {
      params: idParam.extend({ deliveryId: z.string().regex(/^\d{1,19}$/) }),
      body: { required: false, ...json(W.redeliverBody) },
    },
    json: true,
    ok: { 200: { description: "Queued for sending now.", schema: W.webhookDelivery } },
    errors: { 404: ["NOT_FOUND"], 409: ["DELIVERY_IN_FLIGHT"] },
  },
};

/** `/api/v1/tasks/[taskId]` → `/api/v1/tasks/{taskId}`. */
export const openApiPath = (path: string) => path.replace(/\[([^\]]+)\]/g, "{$1}");

/** The error codes an operation may answer, by status: from its route row, its inputs and its own list. */
export function errorCodes(row: RouteRule, op: Op): Record<Status, string[]> {
  const out: Record<Status, Set<string>> = {};
  const add = (status: Status, ...codes: string[]) => codes.forEach((c) => (out[status] ??= new Set()).add(c));
  const r = op.request;
  if (r?.params || r?.query || r?.body || r?.headers) add(400, "VALIDATION_FAILED");
  if (op.json) for (const [s, codes] of Object.entries(JSON_BODY_ERRORS)) add(Number(s), ...codes);
  if (row.auth !== "public") {
    add(401, "UNAUTHORIZED");
    if (row.auth === "role" || row.scope === "tenant-param") add(403, "FORBIDDEN");
    if (row.scope === "fleet") add(403, "FLEET_SCOPE_REQUIRED");
    // Cookie-carried writes must come from the dashboard's own origin.
    if (row.method !== "GET") add(403, "ORIGIN_MISMATCH");
    // An id in another tenant is not revealed to exist.
    if (row.scope === "own-tenants" && /\[[^\]]+\]/.test(row.path)) add(404, "NOT_FOUND");
  }
  for (const [s, codes] of Object.entries(op.errors ?? {})) add(Number(s), ...codes);
  if (row.path === "/api/health") add(503, "DATABASE_UNAVAILABLE");
  return Object.fromEntries(Object.entries(out).map(([s, c]) => [s, [...c].sort()]));
}

function access(row: RouteRule): string {
  if (row.auth === "public") return "Public: no credentials needed.";
  const who = row.auth === "session" ? "Any signed-in caller" : `Role ${row.role} or above`;
  const cap = row.capability ? `, or a token with the ${row.capability} capability` : "";
  const scope = {
    none: "",
    "tenant-param": " The tenant in the path must be one of the caller's (403 FORBIDDEN).",
    "own-tenants": /\[[^\]]+\]/.test(row.path)
      ? " Within the caller's tenants: an id in another tenant is 404."
      : " Answers cover the caller's tenants only.",
    fleet: " Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).",
  }[row.scope];
  return `${who}${cap}.${scope}`;
}

function errorSchema(codes: string[]) {
  return z.strictObject({
    error: z.strictObject({
      code: z.enum(codes as [string, ...string[]]),
      message: z.string(),
      /** Facts a client acts on, where the code has them (MIGRATION_NOT_READY's counts, EVALUATION_REGRESSED's losses). */
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  });
}

function register(registry: OpenAPIRegistry, row: RouteRule, op: Op): void {
  const responses: RouteConfig["responses"] = {};
  for (const [status, r] of Object.entries(op.ok)) {
    responses[status] = {
      description: r.description,
      ...(r.headers ? { headers: r.headers } : {}),
      ...(r.schema ? json(r.schema) : r.content ? { content: r.content } : {}),
    };
  }
  for (const [status, codes] of Object.entries(errorCodes(row, op))) {
    // The health check answers 503 with its own body, which carries the error.
    responses[status] = {
      description: codes.join(", "),
      ...json(row.path === "/api/health" ? R.health : errorSchema(codes)),
    };
  }
  registry.registerPath({
    method: row.method.toLowerCase() as Lowercase<HttpMethod>,
    path: openApiPath(row.path),
    operationId: op.operationId,
    summary: op.summary,
    description: [op.description, access(row)].filter(Boolean).join("\n\n"),
    tags: op.tags,
    security: row.auth === "public" ? [] : [{ bearerToken: [] }, { sessionCookie: [] }],
    ...(op.request ? { request: op.request } : {}),
    responses,
    ...(row.role ? { "x-minimum-role": row.role } : {}),
    "x-tenant-scope": row.scope,
  } as RouteConfig);
}

const INFO_DESCRIPTION = `Keeps a knowledge base's search index in step with what was published.

Authenticate with \`Authorization: Bearer <token>\` (an API token) or the dashboard's session cookie; a cookie-carried write must also send the dashboard's own Origin.

Every error is JSON \`{"error": {"code", "message"}}\` with a stable code; each operation lists the codes it answers. Any operation may also answer 405 METHOD_NOT_ALLOWED (with an Allow header) for a method the path does not serve, and 500 INTERNAL_ERROR. Task, event and audit ids are decimal strings.`;

let cached: ReturnType<OpenApiGeneratorV31["generateDocument"]> | null = null;

/** The document, built once per process (its input is code, not configuration). */
export function openApiDocument() {
  if (cached) return cached;
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "bearerToken", {
    type: "http",
    scheme: "bearer",
    description: "An API token (Admin → Tokens, or the bootstrap token).",
  });
  registry.registerComponent("securitySchemes", "sessionCookie", {
    type: "apiKey",
    in: "cookie",
    name: "iw_session",
    description: "The dashboard's session, opened by POST /api/auth/signin.",
  });
  for (const row of ROUTES) {
    // A route without an operation is left out rather than failing the document; the contract
    // test (test/api/openapi-contract.test.ts) fails on it.
    const op = OPERATIONS[`${row.method} ${row.path}`];
    if (op) register(registry, row, op);
  }
  cached = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: { title: "Indexwright API", version: pkg.version, description: INFO_DESCRIPTION },
    servers: [{ url: "/" }],
    tags: [
      { name: "documents", description: "Publishing, state and actions on documents." },
      { name: "search", description: "Searching a tenant." },
      { name: "tasks", description: "Indexing tasks and operator actions on them." },
      { name: "operations", description: "Overview, workers and the audit log." },
      { name: "admin", description: "Accounts and API tokens." },
      { name: "auth", description: "Sessions and single sign-on." },
      { name: "system", description: "Health, metrics and this document." },
      { name: "evaluation", description: "Golden query sets, evaluation runs and why a document is not found." },
    ],
  });
  return cached;
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
