import { z } from "zod";
import {
  ANOMALY_ACTIONS,
  ANOMALY_KINDS,
  DOCUMENT_STATE,
  ROLES,
  TASK_STATUSES,
  TASK_TYPES,
  type DocumentState,
} from "../domain/constants";
import { CAPABILITIES } from "../auth/principal";

// What the API answers, as the handlers build it (lib/*/repository.ts): the response half of the
// OpenAPI document (lib/http/openapi.ts). Objects are strict, so a field a handler starts sending
// without a line here fails test/api/openapi-contract.test.ts, which validates real answers
// against the document. The dashboard reads the same answers through its own lenient schemas
// (lib/ui/schemas.ts); these are the contract, those are one reader's tolerance.

const instant = z.iso.datetime({ offset: false }).meta({ description: "An instant, ISO 8601 in UTC." });
const nullableInstant = instant.nullable();
/** Task, event and audit ids are PostgreSQL bigints: sent as decimal strings, never as JSON numbers. */
const bigintId = z.string().regex(/^\d+$/);
const uuid = z.uuid();
const count = z.int().min(0);
const seconds = z.number().min(0);
/** A task's claim class (docs/decisions/040-fair-claim.md). */
const priorityClass = z.enum(["interactive", "bulk", "migration"]);

const documentState = z.enum(Object.values(DOCUMENT_STATE) as [DocumentState, ...DocumentState[]]).meta({
  id: "DocumentState",
  description:
    "NOT_INDEXED, INDEXING (first version being built), SEARCHABLE, UPDATING (searchable, a newer version being built), FAILED, DELETED.",
});
const taskStatus = z.enum(TASK_STATUSES as unknown as [string, ...string[]]).meta({ id: "TaskStatus" });
const taskType = z.enum(TASK_TYPES as unknown as [string, ...string[]]).meta({ id: "TaskType" });
const role = z.enum(ROLES).meta({ id: "Role" });
const progress = z
  .strictObject({ done: count, total: count })
  .nullable()
  .meta({ description: "Chunks embedded of the total while a task runs; null otherwise." });
const taskStats = z
  .strictObject({ chunksTotal: count, chunksReused: count.nullable(), batchesSent: count.nullable() })
  .nullable()
  .meta({ description: "Chunk figures once the worker has chunked the version; null before." });

export const errorBody = z
  .strictObject({
    error: z.strictObject({
      code: z.string().meta({ description: "A stable code (lib/http/errors.ts); the message is for people." }),
      message: z.string(),
    }),
  })
  .meta({ id: "Error" });

export const documentSummary = z
  .strictObject({
    tenant: z.string(),
    key: z.string(),
    title: z.string(),
    state: documentState,
    businessVersion: z.int().min(0).meta({ description: "The newest published version." }),
    searchVersion: z
      .int()
      .min(1)
      .nullable()
      .meta({ description: "The version search answers from; null until one is built." }),
    searchVersionServed: z.boolean().meta({
      description: "False when the search version was built with another embedding model than search uses now.",
    }),
    lastError: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    progress,
    updatedAt: instant,
  })
  .meta({ id: "DocumentSummary" });

export const documentPage = z
  .strictObject({ items: z.array(documentSummary), nextCursor: z.string().nullable() })
  .meta({ id: "DocumentPage" });

const documentVersion = z
  .strictObject({
    versionNumber: z.int().min(1),
    title: z.string(),
    contentType: z.string(),
    contentBytes: count,
    checksum: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .meta({
        description:
          "SHA-256 of the published bytes, hex. Null for a caller below maintainer whom search would not show the text (the version's own, the served or the latest version's ACL excludes them, or the document is deleted): it would confirm a guessed text.",
      }),
    acl: z.array(z.string()),
    hasAbstract: z.boolean(),
    hasOverview: z.boolean(),
    publishedBy: z.string(),
    publishedAt: instant,
  })
  .meta({ id: "DocumentVersion" });

/**
 * What every task answer says, in the document's task list and in the task list alike; the task
 * list's items (and a task's page) add where the task stands outside its document. Not a
 * component of its own: DocumentTask and Task stay two flat objects in the generated document.
 */
const taskBase = z.strictObject({
  taskId: bigintId,
  versionNumber: z.int().min(0),
  taskType,
  status: taskStatus,
  attempts: count,
  maxAttempts: count,
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  progress,
  stats: taskStats,
  leaseOwner: z.string().nullable(),
  nextAttemptAt: nullableInstant,
  createdAt: instant,
  updatedAt: instant,
  finishedAt: nullableInstant,
});

const documentTask = taskBase.meta({ id: "DocumentTask" });

const indexVersion = z
  .strictObject({
    id: uuid,
    versionNumber: z.int().min(1),
    status: z.string(),
    chunkerVersion: z.string(),
    embeddingModel: z.string(),
    embeddingDimensions: z.int().min(1),
    spaceId: z
      .int()
      .min(1)
      .meta({ description: "The index space it was built in (embeddingSpace.id when search reads it)." }),
    chunkCount: count,
    createdAt: instant,
    activatedAt: nullableInstant,
    retiredAt: nullableInstant,
  })
  .meta({ id: "IndexVersion" });

export const documentDetail = z
  .strictObject({
    documentId: uuid,
    ...documentSummary.shape,
    pinned: z
      .boolean()
      .meta({ description: "Search held at searchVersion by a rollback until an unpin or the next publish." }),
    pinnedBy: z.string().nullable(),
    pinnedReason: z.string().nullable(),
    versions: z.array(documentVersion).meta({ description: "Newest first, at most 100." }),
    tasks: z.array(documentTask).meta({ description: "Newest first, at most 100." }),
    indexVersions: z.array(indexVersion).meta({ description: "Newest first, at most 50." }),
    embeddingSpace: z
      .strictObject({ id: z.int().min(1), name: z.string(), model: z.string(), dimensions: z.int().min(1) })
      .nullable()
      .meta({
        description:
          "The tenant's active index space: the one search reads in this tenant (id, name, embedding model and dimensions). An index version of another space serves nothing, and rollback and unpin only choose versions of this one.",
      }),
  })
  .meta({ id: "DocumentDetail" });

export const publishResult = z
  .strictObject({
    documentId: uuid,
    versionNumber: z.int().min(1),
    taskId: bigintId.nullable(),
    state: documentState,
    searchVersion: z.int().min(1).nullable().meta({
      description:
        "The version search answers from now (null: none). Below versionNumber while the new version is indexed, and also when an unchanged publish meets a build an operator force-done or a rollback pinned: state then reads SEARCHABLE for the older version, and nothing is queued (unpin or reindex builds it).",
    }),
    searchVersionServed: z.boolean().meta({
      description:
        "False when searchVersion was built with another embedding model than search uses now: search finds nothing of it, and state reads NOT_INDEXED (INDEXING while a rebuild runs), as in the document's detail.",
    }),
    pinned: z.boolean().meta({
      description:
        "Search is held at searchVersion by a rollback. A publish that creates a version lifts the pin; an unchanged one does not.",
    }),
  })
  .meta({
    id: "PublishResult",
    description: "202 when a new version was created; 200 when the content equals the current version.",
  });

export const taskCreated = z.strictObject({ taskId: bigintId }).meta({ id: "TaskCreated" });
export const renameResult = z
  .strictObject({ tenant: z.string(), key: z.string(), renamed: z.boolean() })
  .meta({ id: "RenameResult" });
export const rollbackResult = z
  .strictObject({ tenant: z.string(), key: z.string(), searchVersion: z.int().min(1), pinned: z.literal(true) })
  .meta({ id: "RollbackResult" });
export const unpinResult = z
  .strictObject({
    tenant: z.string(),
    key: z.string(),
    pinned: z.literal(false),
    searchVersion: z.int().min(1).nullable(),
    taskId: bigintId.nullable(),
  })
  .meta({
    id: "UnpinResult",
    description:
      "taskId: the task that builds the business version when none of its index versions could serve at once.",
  });

export const searchResult = z
  .strictObject({
    hits: z.array(
      z
        .strictObject({
          documentKey: z.string(),
          versionNumber: z.int().min(1),
          chunkId: z.string(),
          sectionPath: z.string(),
          text: z.string(),
          score: z.number(),
          level: z.int().min(0),
        })
        .meta({ id: "SearchHit" }),
    ),
    searchedAs: z.array(z.string()).meta({ description: "The ACL principals the search ran as." }),
    space: z
      .string()
      .meta({ description: "The index space that answered: the tenant's active one when the statement ran." }),
  })
  .meta({ id: "SearchResult" });

const opsTask = taskBase
  .extend({
    tenant: z.string(),
    documentKey: z.string(),
    leaseUntil: nullableInstant,
    startedAt: nullableInstant,
    paused: z
      .strictObject({
        target: z.string().meta({ description: '"tenant <id>" or "task type <type>"' }),
        by: z.string(),
        reason: z.string(),
        since: instant,
      })
      .nullable()
      .meta({
        description:
          "The pause that keeps this task from being claimed; null when none does (or the task is not waiting).",
      }),
  })
  .meta({ id: "Task" });

export const taskPage = z
  .strictObject({ items: z.array(opsTask), nextCursor: z.string().nullable() })
  .meta({ id: "TaskPage" });

export const taskDetail = z
  .strictObject({
    ...opsTask.shape,
    events: z.array(
      z
        .strictObject({
          id: bigintId,
          at: instant,
          kind: z.string(),
          actor: z.string().nullable(),
          leaseAttempt: z.int().nullable(),
          errorCode: z.string().nullable(),
          detail: z.unknown().meta({ description: "Free-form JSON, or null." }),
        })
        .meta({ id: "TaskEvent" }),
    ),
  })
  .meta({ id: "TaskDetail" });

export const taskActionResult = z
  .strictObject({ taskId: bigintId, status: taskStatus })
  .meta({ id: "TaskActionResult" });
// Inline, not the shared TaskType: a reference to it cannot also be null in the generated document.
const pausedType = z.enum(TASK_TYPES as unknown as [string, ...string[]]).nullable();
export const taskPause = z
  .strictObject({
    id: bigintId,
    tenant: z.string().nullable(),
    taskType: pausedType,
    pausedBy: z.string(),
    reason: z.string(),
    since: instant,
    waiting: count.meta({
      description: "Due tasks the pause holds back (counted up to 10,000), within the caller's tenants.",
    }),
  })
  .meta({ id: "TaskPause" });
export const taskPauseList = z.strictObject({ items: z.array(taskPause) }).meta({ id: "TaskPauseList" });
export const taskPauseResumed = z
  .strictObject({ id: bigintId, tenant: z.string().nullable(), taskType: pausedType, resumed: z.literal(true) })
  .meta({ id: "TaskPauseResumed" });
export const bulkRetryResult = z.strictObject({ retried: count, skipped: count }).meta({ id: "BulkRetryResult" });

const worker = {
  id: z.string(),
  host: z.string(),
  pid: z.int(),
  concurrency: z.int().min(1),
  startedAt: instant,
  lastHeartbeatAt: instant,
  currentTasks: z.array(z.string()),
};
export const workerList = z
  .strictObject({
    items: z.array(z.strictObject({ ...worker, live: z.boolean(), stoppedAt: nullableInstant }).meta({ id: "Worker" })),
  })
  .meta({ id: "WorkerList" });

const nullableSeconds = seconds.nullable();
const readSource = z.enum(["primary", "replica"]);
export const overview = z
  .strictObject({
    generatedAt: instant,
    scope: z.enum(["fleet", "tenants"]).meta({
      description:
        "fleet for all-tenant callers; tenants when the figures cover the caller's tenants only (workers, history and reconciler are then empty or null).",
    }),
    queue: z.strictObject({
      due: count,
      oldestDueAgeSeconds: nullableSeconds,
      waitingForRetry: count,
      running: count,
      leasesExpiringSoon: count,
      leasesExpired: count,
      dead: count,
      byPriority: z
        .array(
          z.strictObject({
            priority: priorityClass,
            tenantsWaiting: count,
            oldestWaitSeconds: nullableSeconds,
          }),
        )
        .meta({
          description:
            "Per priority class: tenants with work queued, and the longest any of them has waited for its next task (the fair claim serves tenants in turn, so the oldest wait is a tenant's, not the queue head's).",
        }),
      longestWaits: z
        .array(z.strictObject({ tenant: z.string(), priority: priorityClass, waitSeconds: seconds }))
        .meta({ description: "The five tenants whose next queued task has waited longest, longest first." }),
    }),
    errors: z.array(z.strictObject({ errorCode: z.string(), status: taskStatus, count })),
    drift: z.strictObject({ count, acknowledged: count, oldestAgeSeconds: nullableSeconds }),
    otherEmbeddingSpace: z
      .strictObject({ count, model: z.string().nullable(), dimensions: z.int().min(1).nullable() })
      .meta({
        description:
          "Live documents whose search version was built in another index space than their tenant's active one: search finds nothing of them, and they read NOT_INDEXED until rebuilt (the reconciler's STALE_MODEL queues the rebuilds). model and dimensions: the active space of the tenants in scope when they are all on one, else null.",
      }),
    publishToSearchableSeconds: z.strictObject({
      p50: nullableSeconds,
      p95: nullableSeconds,
      p99: nullableSeconds,
      samples: count,
    }),
    perTask: z.strictObject({ chunks: z.number().nullable(), embeddingBatches: z.number().nullable() }),
    embeddingReuseRate: z.number().min(0).max(1).nullable(),
    workers: z.array(z.strictObject(worker)),
    history: z.array(
      z.strictObject({
        at: instant,
        pending: count,
        retryWait: count,
        running: count,
        dead: count,
        due: count,
        oldestDueAgeSeconds: nullableSeconds,
        drift: count,
        latencyP50Seconds: nullableSeconds,
        latencyP95Seconds: nullableSeconds,
      }),
    ),
    reconciler: z
      .strictObject({
        lastPass: z
          .strictObject({ id: bigintId, startedAt: instant, finishedAt: nullableInstant, actor: z.string() })
          .nullable(),
        kinds: z.array(
          z.strictObject({
            kind: z.enum(ANOMALY_KINDS as unknown as [string, ...string[]]),
            found: count,
            repaired: count,
            skippedCap: count,
          }),
        ),
        totals: z.array(
          z.strictObject({
            kind: z.enum(ANOMALY_KINDS as unknown as [string, ...string[]]),
            action: z.enum(ANOMALY_ACTIONS as unknown as [string, ...string[]]),
            count,
          }),
        ),
      })
      .nullable(),
    reads: z
      .strictObject({
        configured: z.boolean().meta({ description: "Whether a read replica is configured (DATABASE_READ_URL)." }),
        answeredFrom: readSource.meta({ description: "Where this answer was read." }),
        servingReads: readSource.meta({
          description:
            "Where reads with no write of the caller's own to wait for go now: the primary while the replica is more than maxLagSeconds behind or does not answer.",
        }),
        lagSeconds: nullableSeconds.meta({
          description:
            "At most this old is the replica's view: everything the primary had committed that long ago is replayed there (0: it had replayed all the primary had written when last asked). null: not known (no replica, or it did not answer).",
        }),
        lagBytes: count.nullable().meta({ description: "WAL the replica had not replayed when last asked." }),
        maxLagSeconds: seconds,
        reason: z
          .string()
          .nullable()
          .meta({ description: "Why reads are on the primary although a replica is configured." }),
        sampledAt: nullableInstant,
      })
      .meta({ description: "Where the dashboard's reads and search go, and how far behind the read replica is." }),
  })
  .meta({ id: "Overview" });

export const tenantList = z
  .strictObject({
    items: z.array(
      z
        .strictObject({
          id: z.string(),
          name: z.string(),
          space: z
            .strictObject({ id: z.number().int(), name: z.string() })
            .meta({ description: "The index space the tenant's search reads (its active space)." }),
        })
        .meta({ id: "Tenant" }),
    ),
  })
  .meta({ id: "TenantList" });

export const auditPage = z
  .strictObject({
    items: z.array(
      z
        .strictObject({
          id: bigintId,
          at: instant,
          actor: z.string(),
          action: z.string(),
          tenant: z.string().nullable(),
          targetType: z.string(),
          targetId: z.string(),
          reason: z.string().nullable(),
          detail: z.unknown().meta({ description: "Free-form JSON, or null." }),
        })
        .meta({ id: "AuditEntry" }),
    ),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "AuditPage" });

const tenantGrantOut = z.array(z.string()).meta({ description: 'Tenant names, or ["*"] for every tenant.' });

export const userList = z
  .strictObject({
    items: z.array(
      z
        .strictObject({
          id: uuid,
          email: z.string(),
          role,
          tenants: tenantGrantOut,
          groups: z.array(z.string()),
          ssoGroups: z.array(z.string()),
          createdAt: instant,
          disabledAt: nullableInstant,
          sso: z.boolean(),
          activeSessions: count,
        })
        .meta({ id: "User" }),
    ),
  })
  .meta({ id: "UserList" });
export const userCreated = z
  .strictObject({ id: uuid, email: z.string(), role, tenants: tenantGrantOut, groups: z.array(z.string()) })
  .meta({ id: "UserCreated" });
export const userUpdated = z
  .strictObject({
    id: uuid,
    email: z.string(),
    role,
    tenants: tenantGrantOut,
    groups: z.array(z.string()),
    ssoGroups: z.array(z.string()),
    disabledAt: nullableInstant,
    sessionsEnded: count,
  })
  .meta({ id: "UserUpdated" });

const tokenKind = z.enum(["application", "person"]);
const capabilities = z.array(z.enum(CAPABILITIES));
export const tokenList = z
  .strictObject({
    items: z.array(
      z
        .strictObject({
          id: uuid,
          name: z.string(),
          kind: tokenKind,
          userId: uuid.nullable(),
          userEmail: z.string().nullable(),
          role,
          tenants: tenantGrantOut,
          capabilities,
          createdBy: z.string().nullable(),
          createdAt: instant,
          lastUsedAt: nullableInstant,
          revokedAt: nullableInstant,
        })
        .meta({ id: "Token" }),
    ),
  })
  .meta({ id: "TokenList" });
export const tokenCreated = z
  .strictObject({
    id: uuid,
    name: z.string(),
    kind: tokenKind,
    userId: uuid.nullable(),
    role,
    tenants: tenantGrantOut,
    capabilities,
    token: z.string().meta({ description: "The secret, shown this once: only its hash is stored." }),
  })
  .meta({ id: "TokenCreated" });
export const tokenRevoked = z.strictObject({ id: uuid, revoked: z.literal(true) }).meta({ id: "TokenRevoked" });
export const bootstrapTokenRotated = z
  .strictObject({
    token: z
      .string()
      .meta({ description: "The new bootstrap token, shown once; the old one and its sessions stopped working." }),
    sessionsEnded: count,
  })
  .meta({ id: "BootstrapTokenRotated" });
export const bootstrapTokenRevoked = z
  .strictObject({ revoked: z.literal(true), sessionsEnded: count })
  .meta({ id: "BootstrapTokenRevoked" });

export const signInResult = z
  .strictObject({ ok: z.literal(true), role, subject: z.string() })
  .meta({ id: "SignInResult" });
export const okResult = z.strictObject({ ok: z.literal(true) });
export const health = z
  .strictObject({
    ok: z.boolean(),
    database: z.enum(["ok", "unreachable"]),
    error: z.strictObject({ code: z.literal("DATABASE_UNAVAILABLE"), message: z.string() }).optional(),
  })
  .meta({ id: "Health" });

// ---- Operator tools: exports, overview activity, chunk browser.

const exportCell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const exportDocument = z
  .strictObject({
    kind: z.enum(["documents", "tasks"]),
    exportedAt: instant,
    filters: z.record(z.string(), z.unknown()).meta({ description: "The list filters the export was made with." }),
    items: z
      .array(z.record(z.string(), exportCell))
      .meta({ description: "One object per row, with the CSV's columns as keys." }),
    count,
  })
  .meta({ id: "ListExport" });

const perMinute = z.number().min(0);
export const activity = z
  .strictObject({
    range: z.enum(["1h", "24h", "7d"]),
    generatedAt: instant,
    bucketSeconds: z.int().min(1),
    scope: z.enum(["fleet", "tenants"]),
    totals: z
      .strictObject({ SUCCEEDED: count, DEAD: count, RESOLVED: count, SUPERSEDED: count })
      .meta({ description: "Tasks finished in the range, by outcome." }),
    throughput: z
      .array(
        z.strictObject({
          at: instant,
          SUCCEEDED: perMinute,
          DEAD: perMinute,
          RESOLVED: perMinute,
          SUPERSEDED: perMinute,
        }),
      )
      .meta({
        description: "Tasks finished per minute, averaged over each bucket, oldest first; empty buckets are zeros.",
      }),
    history: z
      .array(
        z.strictObject({
          at: instant,
          pending: count,
          retryWait: count,
          running: count,
          dead: count,
          due: count,
          oldestDueAgeSeconds: seconds.nullable(),
          drift: count,
          latencyP50Seconds: seconds.nullable(),
          latencyP95Seconds: seconds.nullable(),
        }),
      )
      .meta({ description: "Backlog snapshots in the range (fleet callers only; empty for a tenant-limited caller)." }),
  })
  .meta({ id: "OverviewActivity" });

export const chunkPage = z
  .strictObject({
    indexVersions: z.array(
      z.strictObject({
        id: uuid,
        versionNumber: z.int().min(1),
        status: z.string(),
        chunkerVersion: z.string(),
        embeddingModel: z.string(),
        embeddingDimensions: z.int().min(1),
        chunkCount: count,
        chunksReusedAtBuild: count.nullable(),
        createdAt: instant,
        serving: z.boolean(),
      }),
    ),
    indexVersionId: uuid.nullable().meta({
      description:
        "The index version these chunks belong to: the one asked for, else the one search serves, else the newest.",
    }),
    textHidden: z.boolean().meta({
      description:
        "True when search would not show the caller this version's text: the document is deleted, or the version's own ACL, the served version's or the latest published version's does not include the caller. Texts, section headings, content hashes and chunk ids (derived from the hash) are then null.",
    }),
    textHiddenReason: z.enum(["ACL", "DELETED"]).nullable().meta({
      description:
        "Why the text is hidden: an ACL that does not include the caller, or a deleted document. Null when shown.",
    }),
    items: z.array(
      z.strictObject({
        ordinal: count,
        chunkId: z
          .string()
          .nullable()
          .meta({ description: "Null where the text is hidden: it is derived from the content hash." }),
        level: z.int().min(0).max(2).meta({ description: "0 abstract, 1 overview, 2 a chunk of the body." }),
        sectionPath: z.string().nullable().meta({ description: "The heading path; null where the text is hidden." }),
        text: z.string().nullable(),
        chars: count,
        contentHash: z
          .string()
          .nullable()
          .meta({ description: "sha256 of the section path and text; null where the text is hidden." }),
        reused: z.boolean().meta({
          description:
            "An earlier stored index version of the document in the same embedding space holds the same text.",
        }),
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "ChunkPage" });
