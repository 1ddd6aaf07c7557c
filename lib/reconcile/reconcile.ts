import type pg from "pg";
import { log } from "../log";
import {
  ANOMALY_ACTION,
  ANOMALY_KIND,
  ANOMALY_KINDS,
  UNFINISHED_STATUSES,
  sqlList,
  type AnomalyAction,
  type AnomalyKind,
} from "../domain/constants";
import { run } from "../db/pool";
import { notifyTasks, PRIORITY } from "../queue/sql";
import { createTask, expireExhaustedLease, restartReindexTask } from "../queue/actions-sql";
import { loadReconcileConfig, type ReconcileConfig } from "../config";
import { movePointer } from "../pipeline/pointer";
import type { EmbeddingSpace } from "../embedding/types";
import { activeSpaceOf, outsideActiveSpaceArm, SPACES_OFF_TENANTS_SQL, type SpaceOffTenants } from "../documents/state";
import { SPACE_LOCK_NAMESPACE } from "../spaces/sql";

/**
 * The reconciler: one pass finds state that no normal path will fix by itself (expired leases
 * nobody took over, old drift with nothing in flight, finished builds that never switched, serving
 * versions in a stale embedding space, orphaned chunks, dead tasks), repairs what is safe within a
 * per-kind cap, and records every finding and action in anomaly_events.
 *
 * Leadership: a pass is one transaction that first takes pg_try_advisory_xact_lock(LOCK_KEY); a
 * process that does not get it skips the pass. A session-level lock on a dedicated client was
 * rejected because the embedded PGlite server multiplexes every client connection onto its single
 * backend session: a session lock taken by one connection is "held" by all of them (and advisory
 * locks are re-entrant), so two workers would both lead. A transaction-scoped lock works on both:
 * on PostgreSQL it excludes other backends until commit; on PGlite the socket server keeps the
 * whole transaction to one client, so passes cannot overlap at all. In both cases the pass row is
 * committed with the repairs, so the interval guard (no pass started in the last interval) read
 * under the lock makes the fleet run one pass per interval, not one per worker.
 *
 * Lock order inside a pass follows the rest of the system: a repair locks its document row first
 * (FOR UPDATE SKIP LOCKED: a document that a publish, delete or switch holds right now is left for
 * the next pass instead of waited for), then task rows, then search_pointers, then index_versions.
 * Each repair runs in a savepoint, so one that fails leaves the rest of the pass standing.
 */

/** Fixed advisory lock key of the reconciler (migrations use Prisma's 72707369). */
export const RECONCILER_LOCK_KEY = 7_264_912_001;
/** Actor on task events and task rows the reconciler writes. */
export const RECONCILER_ACTOR = "reconciler";

export type ReconcileOptions = {
  /** Who runs the pass (the worker id), recorded on the pass row. */
  actor: string;
  /**
   * Not read: what serves is judged by each tenant's active index space, not the process's
   * embedder. Accepted while callers still pass it (worker/loop.ts).
   */
  embedding?: EmbeddingSpace;
  /** Attempt budget of tasks the reconciler enqueues (MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Index version retention (RETENTION_HOURS): retired versions younger than this are not orphans yet. */
  retentionHours: number;
  /** Overrides of the environment configuration (tests). */
  config?: Partial<ReconcileConfig>;
  /** Run even if a pass ran within the interval (tests, manual runs). Leadership still applies. */
  force?: boolean;
};

export type KindCounts = {
  /** Findings seen in this pass (at most the scan limit; `truncated` says there may be more). */
  found: number;
  /** Findings recorded as REPORTED in this pass (new ones; still-open ones are not recorded again). */
  recorded: number;
  repaired: number;
  /** Repairable findings left for a later pass because the per-kind cap was reached. */
  skippedCap: number;
  /** Repairable findings not repaired this pass: document busy, state changed, or the repair failed. */
  deferred: number;
  truncated: boolean;
};

export type PassCounts = Record<AnomalyKind, KindCounts>;
export type PassTotals = Record<AnomalyKind, Record<AnomalyAction, number>>;

export type ReconcileResult =
  | { ran: false; reason: "disabled" | "not_leader" | "not_due" }
  | { ran: true; passId: string; counts: PassCounts; totals: PassTotals; durationMs: number };

type Finding = {
  fingerprint: string;
  tenantId: string | null;
  documentId: string | null;
  taskId: string | null;
  detail: Record<string, unknown>;
  /** Present when the finding may be repaired: returns the action's detail, or null if the finding no longer holds. */
  repair?: (tx: pg.PoolClient, doc: LockedDocument) => Promise<Record<string, unknown> | null>;
};

type LockedDocument = {
  id: string;
  tenant_id: string;
  business_version: number;
  deleted_at: Date | null;
  pinned: boolean;
};

/**
 * Task states that mean the business version is in someone's hands: in flight, or waiting for an
 * operator (a CANCELLED build was an operator's decision; queueing it again would undo it).
 */
const WITH_OPERATOR = ["DEAD", "RESOLVED", "CANCELLED"];
const BLOCKING = sqlList([...UNFINISHED_STATUSES, ...WITH_OPERATOR]);

/**
 * Whether the business version ($1 document, $2 version) is in someone's hands now: a task of it
 * unfinished, a DELETE of it in BLOCKING, or the build the state rule reads (the newest INDEX or
 * REINDEX) DEAD, RESOLVED or CANCELLED. An older build an operator's reindex has since replaced
 * does not count: after a model change it held the rebuild back on every pass while the
 * document read NOT_INDEXED with no error to act on.
 */
const VERSION_IN_HAND = `SELECT 1 FROM index_tasks
   WHERE document_id = $1 AND version_number = $2 AND (status IN ${sqlList(UNFINISHED_STATUSES)} OR (task_type = 'DELETE' AND status IN ${BLOCKING}))
  UNION ALL
  SELECT 1 FROM (SELECT status FROM index_tasks WHERE document_id = $1 AND version_number = $2 AND task_type IN ('INDEX', 'REINDEX') ORDER BY task_id DESC LIMIT 1) newest
   WHERE newest.status IN ${sqlList(WITH_OPERATOR)}
  LIMIT 1`;

function emptyCounts(): PassCounts {
  return Object.fromEntries(
    ANOMALY_KINDS.map((k) => [k, { found: 0, recorded: 0, repaired: 0, skippedCap: 0, deferred: 0, truncated: false }]),
  ) as PassCounts;
}

function addTotals(prev: unknown, counts: PassCounts): PassTotals {
  const p = (prev ?? {}) as Partial<Record<string, Partial<Record<string, number>>>>;
  const n = (k: string, a: string) => Number(p[k]?.[a] ?? 0);
  return Object.fromEntries(
    ANOMALY_KINDS.map((k) => [
      k,
      {
        REPORTED: n(k, "REPORTED") + counts[k].recorded,
        REPAIRED: n(k, "REPAIRED") + counts[k].repaired,
        SKIPPED_CAP: n(k, "SKIPPED_CAP") + counts[k].skippedCap,
      },
    ]),
  ) as PassTotals;
}

/** Runs one pass if this process wins leadership and a pass is due. */
export async function reconcile(pool: pg.Pool, opts: ReconcileOptions): Promise<ReconcileResult> {
  const cfg: ReconcileConfig = { ...loadReconcileConfig(), ...opts.config };
  if (cfg.RECONCILE_INTERVAL_SECONDS === 0 && !opts.force) return { ran: false, reason: "disabled" };
  const t0 = Date.now();
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const lead = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock($1::bigint) AS ok`, [
      RECONCILER_LOCK_KEY,
    ]);
    if (!lead.rows[0].ok) {
      await client.query("ROLLBACK");
      return { ran: false, reason: "not_leader" };
    }
    if (!opts.force) {
      const recent = await client.query(
        `SELECT 1 FROM reconcile_passes WHERE started_at > now() - make_interval(secs => $1::double precision) LIMIT 1`,
        [cfg.RECONCILE_INTERVAL_SECONDS],
      );
      if (recent.rows.length > 0) {
        await client.query("ROLLBACK");
        return { ran: false, reason: "not_due" };
      }
    }
    // A pass must never hold up the fleet for long: waits on rows other than documents (which are
    // skipped when busy) give up quickly and only that repair is rolled back.
    await client.query(`SET LOCAL lock_timeout = '2s'`);
    await client.query(`SET LOCAL statement_timeout = '60s'`);
    const prev = (
      await client.query<{ totals: unknown }>(`SELECT totals FROM reconcile_passes ORDER BY id DESC LIMIT 1`)
    ).rows[0];
    const passId = (
      await client.query<{ id: string }>(`INSERT INTO reconcile_passes (actor) VALUES ($1) RETURNING id::text`, [
        opts.actor,
      ])
    ).rows[0].id;

    const pass = new Pass(client, passId, cfg, opts);
    await pass.run();

    const totals = addTotals(prev?.totals, pass.counts);
    await client.query(
      `UPDATE reconcile_passes SET finished_at = clock_timestamp(), counts = $2, totals = $3 WHERE id = $1`,
      [passId, JSON.stringify(pass.counts), JSON.stringify(totals)],
    );
    const keep = cfg.RECONCILE_EVENT_RETENTION_DAYS * 86_400;
    await client.query(
      `DELETE FROM anomaly_events WHERE id IN (SELECT id FROM anomaly_events WHERE at < now() - make_interval(secs => $1::double precision) ORDER BY at LIMIT 5000)`,
      [keep],
    );
    await client.query(
      `DELETE FROM reconcile_passes WHERE id IN (SELECT id FROM reconcile_passes WHERE started_at < now() - make_interval(secs => $1::double precision) ORDER BY started_at LIMIT 5000)`,
      [keep],
    );
    if (pass.enqueued > 0) await run(client, notifyTasks());
    await client.query("COMMIT");
    return { ran: true, passId, counts: pass.counts, totals, durationMs: Date.now() - t0 };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

class Pass {
  readonly counts = emptyCounts();
  enqueued = 0;

  constructor(
    private readonly tx: pg.PoolClient,
    private readonly passId: string,
    private readonly cfg: ReconcileConfig,
    private readonly opts: ReconcileOptions,
  ) {}

  /**
   * Kinds run in this order so that the cheapest repair wins: a finished build is switched
   * (UNSWITCHED_READY) before drift is declared stale and re-indexed, and a missing task is
   * created before drift or a model change look for one. Each kind reads its findings only after
   * the previous kind's repairs, so one document is not repaired twice in a pass.
   */
  async run(): Promise<void> {
    await this.kind(ANOMALY_KIND.EXPIRED_LEASE, await this.expiredLeases());
    await this.kind(ANOMALY_KIND.UNSWITCHED_READY, await this.unswitchedReady());
    await this.kind(ANOMALY_KIND.MISSING_TASK, await this.missingTasks());
    await this.kind(ANOMALY_KIND.STALE_DRIFT, await this.staleDrift());
    await this.kind(ANOMALY_KIND.STALE_MODEL, await this.staleModel());
    await this.kind(ANOMALY_KIND.ORPHANED_CHUNKS, await this.orphanedChunks());
    await this.deadTasks();
  }

  private get scan(): number {
    return this.cfg.RECONCILE_SCAN_LIMIT;
  }

  // ---------- recording ----------

  /** REPORTED once per fingerprint (the unique index drops repeats); returns how many were new. */
  private async report(kind: AnomalyKind, findings: Finding[]): Promise<number> {
    if (findings.length === 0) return 0;
    const r = await this.tx.query(
      `INSERT INTO anomaly_events (pass_id, kind, action, fingerprint, tenant_id, document_id, task_id, detail)
       SELECT $1, $2, 'REPORTED', r.fingerprint, r.tenant_id, r.document_id, r.task_id, r.detail
         FROM jsonb_to_recordset($3::jsonb) AS r(fingerprint text, tenant_id text, document_id uuid, task_id bigint, detail jsonb)
       ON CONFLICT (kind, fingerprint, action) WHERE action <> 'SKIPPED_CAP' DO NOTHING
       RETURNING id`,
      [
        this.passId,
        kind,
        JSON.stringify(
          findings.map((f) => ({
            fingerprint: f.fingerprint,
            tenant_id: f.tenantId,
            document_id: f.documentId,
            task_id: f.taskId,
            detail: f.detail,
          })),
        ),
      ],
    );
    return r.rowCount ?? 0;
  }

  private async event(
    kind: AnomalyKind,
    action: AnomalyAction,
    f: Pick<Finding, "fingerprint" | "tenantId" | "documentId" | "taskId">,
    detail: Record<string, unknown>,
  ): Promise<void> {
    await this.tx.query(
      `INSERT INTO anomaly_events (pass_id, kind, action, fingerprint, tenant_id, document_id, task_id, detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (kind, fingerprint, action) WHERE action <> 'SKIPPED_CAP' DO NOTHING`,
      [this.passId, kind, action, f.fingerprint, f.tenantId, f.documentId, f.taskId, JSON.stringify(detail)],
    );
  }

  /**
   * Record, then repair up to the cap. A fingerprint already REPAIRED once is not repaired again:
   * if the same finding is back after its repair, something keeps undoing it and a person should
   * look (it stays visible in the pass counts) rather than the reconciler looping on it.
   */
  private async kind(kind: AnomalyKind, findings: Finding[]): Promise<void> {
    const c = this.counts[kind];
    c.found = findings.length;
    c.truncated = findings.length >= this.scan;
    c.recorded = await this.report(kind, findings);
    let repairable = findings.filter((f) => f.repair);
    if (repairable.length === 0) return;
    const done = new Set(
      (
        await this.tx.query<{ fingerprint: string }>(
          `SELECT fingerprint FROM anomaly_events WHERE kind = $1 AND action = 'REPAIRED' AND fingerprint = ANY($2::text[])`,
          [kind, repairable.map((f) => f.fingerprint)],
        )
      ).rows.map((r) => r.fingerprint),
    );
    repairable = repairable.filter((f) => !done.has(f.fingerprint));
    const cap = this.cfg.RECONCILE_MAX_REPAIRS;
    for (const f of repairable.slice(0, cap)) {
      const detail = await this.attempt(kind, f);
      if (detail) {
        c.repaired++;
        await this.event(kind, ANOMALY_ACTION.REPAIRED, f, detail);
      } else {
        c.deferred++;
      }
    }
    const left = repairable.length - Math.min(cap, repairable.length);
    if (left > 0) {
      c.skippedCap = left;
      await this.event(
        kind,
        ANOMALY_ACTION.SKIPPED_CAP,
        { fingerprint: `pass:${this.passId}`, tenantId: null, documentId: null, taskId: null },
        { skipped: left, cap },
      );
    }
  }

  /** One repair in a savepoint, holding its document row (skipped, not waited for, when busy). */
  private async attempt(kind: AnomalyKind, f: Finding): Promise<Record<string, unknown> | null> {
    const tx = this.tx;
    await tx.query("SAVEPOINT reconcile_repair");
    try {
      const doc = (
        await tx.query<Omit<LockedDocument, "pinned">>(
          `SELECT id::text, tenant_id, business_version, deleted_at FROM documents WHERE id = $1 FOR NO KEY UPDATE SKIP LOCKED`,
          [f.documentId],
        )
      ).rows[0];
      let out: Record<string, unknown> | null = null;
      if (doc) {
        // Pointer rows only change under the document lock, so this read stays true until commit.
        const pin = await tx.query<{ pinned: boolean }>(`SELECT pinned FROM search_pointers WHERE document_id = $1`, [
          doc.id,
        ]);
        out = await f.repair!(tx, { ...doc, pinned: pin.rows[0]?.pinned ?? false });
      }
      await tx.query("RELEASE SAVEPOINT reconcile_repair");
      return out;
    } catch (err) {
      await tx.query("ROLLBACK TO SAVEPOINT reconcile_repair");
      await tx.query("RELEASE SAVEPOINT reconcile_repair");
      log.warn(
        { kind, fingerprint: f.fingerprint, err: (err as Error).message },
        "reconciler repair failed; left for the next pass",
      );
      return null;
    }
  }

  // ---------- shared repairs ----------

  /**
   * Queue work for the business version: an INDEX if that version never had one, else a REINDEX,
   * reusing a finished REINDEX row as the operator's reindex does (the business key allows one task
   * per type and version). Never touches an unfinished task, nor the business version's newest
   * build when it is DEAD, RESOLVED or CANCELLED (VERSION_IN_HAND).
   */
  private async enqueue(
    doc: LockedDocument,
    kind: AnomalyKind,
  ): Promise<{ taskId: string; taskType: "INDEX" | "REINDEX" } | null> {
    const tx = this.tx;
    const blocked = await tx.query(VERSION_IN_HAND, [doc.id, doc.business_version]);
    if (blocked.rows.length > 0) return null;
    const version = await tx.query(`SELECT 1 FROM document_versions WHERE document_id = $1 AND version_number = $2`, [
      doc.id,
      doc.business_version,
    ]);
    if (version.rows.length === 0) return null;
    const detail = { versionNumber: doc.business_version, reason: kind };
    let taskType: "INDEX" | "REINDEX" = "INDEX";
    let row = (
      await run<{ task_id: string }>(
        tx,
        createTask(
          doc.tenant_id,
          doc.id,
          doc.business_version,
          taskType,
          this.opts.maxAttempts,
          RECONCILER_ACTOR,
          detail,
          null,
          // A repair is bulk work: it must not queue ahead of what users publish now.
          PRIORITY.BULK,
        ),
      )
    ).rows[0];
    if (!row) {
      taskType = "REINDEX";
      row = (
        await run<{ task_id: string }>(
          tx,
          restartReindexTask(
            doc.tenant_id,
            doc.id,
            doc.business_version,
            this.opts.maxAttempts,
            RECONCILER_ACTOR,
            detail,
          ),
        )
      ).rows[0];
    }
    if (!row) return null;
    this.enqueued++;
    return { taskId: row.task_id, taskType };
  }

  // ---------- EXPIRED_LEASE ----------

  /**
   * RUNNING tasks whose lease expired more than a grace ago: no claim took them over (every worker
   * busy, or none left). Reported; takeover stays the claim's job. One with no attempts left is
   * made DEAD exactly as the claim would, since no claim may ever come for it.
   */
  private async expiredLeases(): Promise<Finding[]> {
    const grace = this.cfg.RECONCILE_LEASE_GRACE_SECONDS;
    const { rows } = await this.tx.query<{
      task_id: string;
      tenant_id: string;
      document_id: string;
      version_number: number;
      task_type: string;
      attempts: number;
      max_attempts: number;
      lease_owner: string | null;
      expired_seconds: number;
    }>(
      `SELECT t.task_id::text, t.tenant_id, t.document_id::text, t.version_number, t.task_type, t.attempts, t.max_attempts, t.lease_owner,
              extract(epoch FROM now() - t.lease_until)::float AS expired_seconds
         FROM index_tasks t
        WHERE t.status = 'RUNNING' AND t.lease_until <= now() - make_interval(secs => $1::double precision)
        ORDER BY t.lease_until, t.task_id
        LIMIT $2`,
      [grace, this.scan],
    );
    return rows.map((r) => ({
      fingerprint: `task:${r.task_id}:attempt:${r.attempts}`,
      tenantId: r.tenant_id,
      documentId: r.document_id,
      taskId: r.task_id,
      detail: {
        taskType: r.task_type,
        versionNumber: r.version_number,
        attempts: r.attempts,
        maxAttempts: r.max_attempts,
        leaseOwner: r.lease_owner,
        expiredSeconds: Math.round(r.expired_seconds),
      },
      repair:
        r.attempts >= r.max_attempts
          ? async (tx) => {
              const dead = await run(tx, expireExhaustedLease(r.task_id, r.attempts, grace, RECONCILER_ACTOR));
              return dead.rows[0] ? { status: "DEAD", errorCode: "LEASE_ATTEMPTS_EXHAUSTED" } : null;
            }
          : undefined,
    }));
  }

  // ---------- UNSWITCHED_READY ----------

  /**
   * A complete READY index version of the business version, in the tenant's active index space,
   * while the (unpinned) pointer is missing, older, or at the same version in another space: the
   * build finished but the pointer never moved (e.g. a pin was lifted without switching).
   */
  private async unswitchedReady(): Promise<Finding[]> {
    const { rows } = await this.tx.query<{
      document_id: string;
      tenant_id: string;
      business_version: number;
      index_version_id: string;
      task_id: string | null;
      pointer_version: number | null;
    }>(
      `SELECT DISTINCT ON (d.id) d.id::text AS document_id, d.tenant_id, d.business_version, iv.id::text AS index_version_id, iv.task_id::text AS task_id,
              sp.version_number AS pointer_version
         FROM index_versions iv
         JOIN documents d ON d.id = iv.document_id AND d.deleted_at IS NULL AND d.business_version = iv.version_number
         LEFT JOIN search_pointers sp ON sp.document_id = d.id
         LEFT JOIN index_versions cur ON cur.id = sp.index_version_id
        WHERE iv.status = 'READY' AND iv.chunk_count = iv.expected_chunk_count
          AND iv.space_id = ${activeSpaceOf("d.tenant_id")}
          AND (sp.document_id IS NULL
               OR (NOT sp.pinned AND (sp.version_number < iv.version_number
                    OR (sp.version_number = iv.version_number AND cur.space_id <> iv.space_id))))
        ORDER BY d.id, iv.created_at DESC
        LIMIT $1`,
      [this.scan],
    );
    return rows.map((r) => ({
      fingerprint: `iv:${r.index_version_id}`,
      tenantId: r.tenant_id,
      documentId: r.document_id,
      taskId: r.task_id,
      detail: {
        indexVersionId: r.index_version_id,
        versionNumber: r.business_version,
        pointerVersion: r.pointer_version,
      },
      repair: (tx, doc) => this.switchTo(tx, doc, r.index_version_id),
    }));
  }

  /**
   * The worker's switch, for a version that is already built: pointer forward, new ACTIVE, old
   * RETIRED. Only into the tenant's active space, read under its space lock.
   */
  private async switchTo(
    tx: pg.PoolClient,
    doc: LockedDocument,
    ivId: string,
  ): Promise<Record<string, unknown> | null> {
    if (doc.deleted_at !== null || doc.pinned) return null;
    // The tenant's space lock, shared, after the document and before the pointer
    // (docs/decisions/039-index-spaces.md, "The space lock"): no switch moves the tenant until
    // COMMIT. Its own statement, so the read of the active space that follows sees a switch it
    // waited for (a statement reads the snapshot it started with).
    await tx.query(`SELECT pg_advisory_xact_lock_shared(${SPACE_LOCK_NAMESPACE}, hashtext($1))`, [doc.tenant_id]);
    const active = (
      await tx.query<{ id: number; dimensions: number }>(
        `SELECT s.id, s.dimensions FROM embedding_spaces s WHERE s.id = ${activeSpaceOf("$1")}`,
        [doc.tenant_id],
      )
    ).rows[0];
    if (!active) return null;
    const ptr = (
      await tx.query<{
        index_version_id: string;
        version_number: number;
        pinned: boolean;
        space_id: number | null;
      }>(
        `SELECT sp.index_version_id::text, sp.version_number, sp.pinned, cur.space_id
           FROM search_pointers sp LEFT JOIN index_versions cur ON cur.id = sp.index_version_id
          WHERE sp.document_id = $1
            FOR UPDATE OF sp`,
        [doc.id],
      )
    ).rows[0];
    const iv = (
      await tx.query<{
        version_number: number;
        status: string;
        chunk_count: number;
        expected_chunk_count: number;
        space_id: number;
      }>(
        `SELECT version_number, status, chunk_count, expected_chunk_count, space_id FROM index_versions WHERE id = $1 AND document_id = $2 FOR UPDATE`,
        [ivId, doc.id],
      )
    ).rows[0];
    if (!iv || iv.status !== "READY" || iv.version_number !== doc.business_version) return null;
    if (iv.space_id !== active.id || iv.chunk_count !== iv.expected_chunk_count) return null;
    const behind =
      !ptr ||
      (!ptr.pinned &&
        (ptr.version_number < iv.version_number ||
          (ptr.version_number === iv.version_number && ptr.space_id !== active.id)));
    if (!behind) return null;
    // Readers only ever see complete versions: count what is stored, not just the recorded count.
    const stored = (
      await tx.query<{ n: number; ordinals: number; bad: number }>(
        `SELECT count(*)::int AS n, count(DISTINCT c.ordinal)::int AS ordinals,
                count(*) FILTER (WHERE c.dims <> $2 OR v.dims IS DISTINCT FROM $2 OR v.space_id IS DISTINCT FROM $3
                                    OR v.content_hash IS DISTINCT FROM c.content_hash OR v.document_id IS DISTINCT FROM c.document_id)::int AS bad
           FROM chunks c LEFT JOIN chunk_vectors v ON v.id = c.vector_id
          WHERE c.index_version_id = $1`,
        [ivId, active.dimensions, active.id],
      )
    ).rows[0];
    if (stored.n !== iv.expected_chunk_count || stored.ordinals !== stored.n || stored.bad !== 0) {
      log.warn(
        { indexVersionId: ivId, stored, expected: iv.expected_chunk_count },
        "reconciler: READY index version failed its completeness check; not switched",
      );
      return null;
    }
    await movePointer(
      tx,
      { id: doc.id, tenantId: doc.tenant_id },
      { indexVersionId: ivId, versionNumber: iv.version_number },
      ptr?.index_version_id ?? null,
    );
    return {
      indexVersionId: ivId,
      fromVersion: ptr?.version_number ?? null,
      toVersion: iv.version_number,
      retiredIndexVersionId: ptr && ptr.index_version_id !== ivId ? ptr.index_version_id : null,
    };
  }

  // ---------- MISSING_TASK ----------

  /**
   * A live document not searchable at its business version, and that version has no task at all
   * (publish writes both in one transaction, so only a lost row or a hand edit gets here). Only
   * drifted documents are read: one that already serves its business version needs no task, and
   * the drifted set is what the partial index holds.
   */
  private async missingTasks(): Promise<Finding[]> {
    const { rows } = await this.tx.query<{
      document_id: string;
      tenant_id: string;
      business_version: number;
      pinned: boolean;
      has_version: boolean;
    }>(
      `SELECT d.id::text AS document_id, d.tenant_id, d.business_version, coalesce(sp.pinned, false) AS pinned, (dv.id IS NOT NULL) AS has_version
         FROM documents d
         LEFT JOIN search_pointers sp ON sp.document_id = d.id
         LEFT JOIN document_versions dv ON dv.document_id = d.id AND dv.version_number = d.business_version
        WHERE d.drifted
          AND NOT EXISTS (SELECT 1 FROM index_tasks t WHERE t.document_id = d.id AND t.version_number = d.business_version)
        ORDER BY d.updated_at, d.id
        LIMIT $1`,
      [this.scan],
    );
    return rows.map((r) => ({
      fingerprint: `doc:${r.document_id}:v${r.business_version}`,
      tenantId: r.tenant_id,
      documentId: r.document_id,
      taskId: null,
      detail: { versionNumber: r.business_version, pinned: r.pinned, versionMissing: !r.has_version },
      // A pin is an operator's decision to serve an older version; a version row that is gone has nothing to index.
      repair:
        r.pinned || !r.has_version
          ? undefined
          : async (tx, doc) => {
              if (doc.deleted_at !== null || doc.pinned || doc.business_version !== r.business_version) return null;
              const any = await tx.query(
                `SELECT 1 FROM index_tasks WHERE document_id = $1 AND version_number = $2 LIMIT 1`,
                [doc.id, doc.business_version],
              );
              if (any.rows.length > 0) return null;
              const t = await this.enqueue(doc, ANOMALY_KIND.MISSING_TASK);
              return t ? { enqueued: t.taskType, taskId: t.taskId, versionNumber: doc.business_version } : null;
            },
    }));
  }

  // ---------- STALE_DRIFT ----------

  /**
   * Drift older than the threshold (counted from the business version's publish, as the Overview
   * counts drift age) with nothing that could end it: no unfinished task, no DEAD or RESOLVED one
   * (those are the operator's), no finished build waiting to be switched, and no pin (a pin is
   * drift on purpose).
   */
  private async staleDrift(): Promise<Finding[]> {
    const { rows } = await this.tx.query<{
      document_id: string;
      tenant_id: string;
      business_version: number;
      search_version: number | null;
      drift_seconds: number;
      last_status: string | null;
    }>(
      `SELECT d.id::text AS document_id, d.tenant_id, d.business_version, d.search_version,
              extract(epoch FROM now() - dv.published_at)::float AS drift_seconds,
              (SELECT t.status FROM index_tasks t WHERE t.document_id = d.id AND t.version_number = d.business_version ORDER BY t.task_id DESC LIMIT 1) AS last_status
         FROM documents d
         JOIN document_versions dv ON dv.document_id = d.id AND dv.version_number = d.business_version
         LEFT JOIN search_pointers sp ON sp.document_id = d.id
        WHERE d.drifted AND NOT coalesce(sp.pinned, false)
          AND dv.published_at <= now() - make_interval(secs => $1::double precision)
          AND EXISTS (SELECT 1 FROM index_tasks t WHERE t.document_id = d.id AND t.version_number = d.business_version)
          AND NOT EXISTS (SELECT 1 FROM index_tasks t WHERE t.document_id = d.id AND t.version_number = d.business_version AND t.status IN ${BLOCKING})
          AND NOT EXISTS (SELECT 1 FROM index_versions iv WHERE iv.document_id = d.id AND iv.version_number = d.business_version AND iv.status = 'READY'
                            AND iv.chunk_count = iv.expected_chunk_count AND iv.space_id = ${activeSpaceOf("d.tenant_id")})
        ORDER BY dv.published_at, d.id
        LIMIT $2`,
      [this.cfg.RECONCILE_DRIFT_SECONDS, this.scan],
    );
    return rows.map((r) => ({
      fingerprint: `doc:${r.document_id}:v${r.business_version}`,
      tenantId: r.tenant_id,
      documentId: r.document_id,
      taskId: null,
      detail: {
        businessVersion: r.business_version,
        searchVersion: r.search_version,
        driftSeconds: Math.round(r.drift_seconds),
        lastTaskStatus: r.last_status,
      },
      repair: async (tx, doc) => {
        if (doc.deleted_at !== null || doc.pinned || doc.business_version !== r.business_version) return null;
        const still = await tx.query(`SELECT 1 FROM documents WHERE id = $1 AND drifted`, [doc.id]);
        if (still.rows.length === 0) return null;
        const t = await this.enqueue(doc, ANOMALY_KIND.STALE_DRIFT);
        return t ? { enqueued: t.taskType, taskId: t.taskId, versionNumber: doc.business_version } : null;
      },
    }));
  }

  // ---------- STALE_MODEL ----------

  /**
   * A search pointer at an index version outside its tenant's active space (a tenant moved by
   * hand, an index from before spaces): search reads only the active space, so the document is
   * invisible until rebuilt there. Only search_pointers says what serves: a migration's shadow
   * pointers keep their versions ACTIVE in another space, which is no finding. Looked up per space
   * some tenant is not on, planned with its model, dimensions and tenants as values (as the
   * overview's count), so with every tenant on one space this reads only the spaces and tenants.
   * Pinned ones are reported only.
   */
  private async staleModel(): Promise<Finding[]> {
    const spaces = (await this.tx.query<SpaceOffTenants>(SPACES_OFF_TENANTS_SQL, [null])).rows.filter(
      (s) => s.tenants.length > 0,
    );
    if (spaces.length === 0) return [];
    const values: unknown[] = [];
    const param = (v: unknown) => `$${values.push(v)}`;
    const arms = spaces.map((space) =>
      outsideActiveSpaceArm(
        space,
        `iv.id AS index_version_id, sp.tenant_id, sp.document_id, iv.version_number, iv.embedding_model, iv.embedding_dimensions, iv.space_id, sp.pinned`,
        param,
      ),
    );
    const { rows } = await this.tx.query<{
      index_version_id: string;
      tenant_id: string;
      document_id: string;
      version_number: number;
      embedding_model: string;
      embedding_dimensions: number;
      space_id: number;
      active_space_id: number;
      active_model: string;
      active_dimensions: number;
      pinned: boolean;
    }>(
      // Documents and tenants looked up by key for each finding (normally none): joins would be
      // planned for the estimate and read every document.
      `SELECT o.index_version_id::text, o.tenant_id, o.document_id::text, o.version_number, o.embedding_model, o.embedding_dimensions,
              o.space_id, a.id AS active_space_id, a.model AS active_model, a.dimensions AS active_dimensions, o.pinned
         FROM (${arms.join("\n UNION ALL\n ")}) o
         JOIN embedding_spaces a ON a.id = (SELECT t.active_space_id FROM tenants t WHERE t.id = o.tenant_id)
        WHERE (SELECT d.deleted_at IS NULL FROM documents d WHERE d.id = o.document_id)
        LIMIT ${param(this.scan)}`,
      values,
    );
    return rows.map((r) => ({
      fingerprint: `iv:${r.index_version_id}:space:${r.active_space_id}`,
      tenantId: r.tenant_id,
      documentId: r.document_id,
      taskId: null,
      detail: {
        indexVersionId: r.index_version_id,
        versionNumber: r.version_number,
        model: r.embedding_model,
        dimensions: r.embedding_dimensions,
        spaceId: r.space_id,
        activeSpaceId: r.active_space_id,
        activeModel: r.active_model,
        activeDimensions: r.active_dimensions,
        pinned: r.pinned,
      },
      repair: r.pinned
        ? undefined
        : async (tx, doc) => {
            if (doc.deleted_at !== null || doc.pinned) return null;
            // A REINDEX builds in whichever space is active when it runs; it is only owed while the
            // pointer still names this version and the tenant is still on another space.
            const still = await tx.query(
              `SELECT 1 FROM search_pointers sp JOIN index_versions iv ON iv.id = sp.index_version_id
                WHERE sp.document_id = $1 AND iv.id = $2 AND iv.space_id <> ${activeSpaceOf("sp.tenant_id")}`,
              [doc.id, r.index_version_id],
            );
            if (still.rows.length === 0) return null;
            const t = await this.enqueue(doc, ANOMALY_KIND.STALE_MODEL);
            return t ? { enqueued: t.taskType, taskId: t.taskId, versionNumber: doc.business_version } : null;
          },
    }));
  }

  // ---------- ORPHANED_CHUNKS ----------

  /**
   * Chunks of a deleted document whose index version no pointer references and is not ACTIVE,
   * where garbage collection will not remove them: a version left BUILDING (GC only takes READY
   * and RETIRED), or a READY/RETIRED one an hour past retention (GC is behind or failing). The
   * repair hands a BUILDING one to GC by retiring it with its original clock (retired_at = its
   * created_at), so it goes when retention says, not later; chunks are never deleted here, and a
   * version past retention is only reported, since removing it is GC's job.
   */
  private async orphanedChunks(): Promise<Finding[]> {
    const overdue = this.opts.retentionHours * 3600 + 3600;
    const { rows } = await this.tx.query<{
      index_version_id: string;
      tenant_id: string;
      document_id: string;
      version_number: number;
      status: string;
      chunk_count: number;
      since: Date;
    }>(
      `SELECT iv.id::text AS index_version_id, iv.tenant_id, iv.document_id::text, iv.version_number, iv.status, iv.chunk_count,
              coalesce(iv.retired_at, iv.created_at) AS since
         FROM index_versions iv
         JOIN documents d ON d.id = iv.document_id AND d.deleted_at IS NOT NULL
        WHERE (iv.status = 'BUILDING'
               OR (iv.status IN ('READY', 'RETIRED') AND coalesce(iv.retired_at, iv.created_at) < now() - make_interval(secs => $1::double precision)))
          AND NOT EXISTS (SELECT 1 FROM search_pointers sp WHERE sp.index_version_id = iv.id)
          AND EXISTS (SELECT 1 FROM chunks c WHERE c.index_version_id = iv.id)
        ORDER BY iv.created_at, iv.id
        LIMIT $2`,
      [overdue, this.scan],
    );
    return rows.map((r) => ({
      fingerprint: `iv:${r.index_version_id}:${r.status}`,
      tenantId: r.tenant_id,
      documentId: r.document_id,
      taskId: null,
      detail: {
        indexVersionId: r.index_version_id,
        versionNumber: r.version_number,
        status: r.status,
        chunkCount: r.chunk_count,
        since: r.since.toISOString(),
      },
      repair:
        r.status === "BUILDING"
          ? async (tx, doc) => {
              if (doc.deleted_at === null) return null;
              const u = await tx.query(
                `UPDATE index_versions iv SET status = 'RETIRED', retired_at = iv.created_at
                  WHERE iv.id = $1 AND iv.document_id = $2 AND iv.status = 'BUILDING'
                    AND NOT EXISTS (SELECT 1 FROM search_pointers sp WHERE sp.index_version_id = iv.id)`,
                [r.index_version_id, doc.id],
              );
              return (u.rowCount ?? 0) > 0
                ? { indexVersionId: r.index_version_id, status: "RETIRED", previousStatus: r.status }
                : null;
            }
          : undefined,
    }));
  }

  // ---------- DEAD_TASKS ----------

  /**
   * DEAD tasks that still matter (their version is the business version and the document has not
   * moved on without them): a count for the operator, never repaired. One REPORTED row whenever
   * the count differs from the last one recorded, including when it falls to zero.
   */
  private async deadTasks(): Promise<void> {
    const { rows } = await this.tx.query<{ error_code: string | null; n: number }>(
      `SELECT t.error_code, count(*)::int AS n
         FROM index_tasks t
         JOIN documents d ON d.id = t.document_id AND d.business_version = t.version_number
        WHERE t.status = 'DEAD'
          AND (CASE WHEN t.task_type = 'DELETE' THEN d.deleted_at IS NOT NULL ELSE d.deleted_at IS NULL END)
        GROUP BY t.error_code`,
    );
    const count = rows.reduce((a, r) => a + r.n, 0);
    const c = this.counts.DEAD_TASKS;
    c.found = count;
    const last = (
      await this.tx.query<{ n: number }>(
        `SELECT (detail->>'count')::int AS n FROM anomaly_events WHERE kind = 'DEAD_TASKS' AND action = 'REPORTED' ORDER BY id DESC LIMIT 1`,
      )
    ).rows[0];
    if ((last?.n ?? 0) === count) return;
    c.recorded = 1;
    await this.event(
      ANOMALY_KIND.DEAD_TASKS,
      ANOMALY_ACTION.REPORTED,
      { fingerprint: `count:${count}:pass:${this.passId}`, tenantId: null, documentId: null, taskId: null },
      {
        count,
        previous: last?.n ?? 0,
        byErrorCode: Object.fromEntries(rows.map((r) => [r.error_code ?? "NONE", r.n])),
      },
    );
  }
}

const settleFrom = new WeakMap<pg.Pool, number>();

/**
 * The worker's maintenance hook. A process waits one interval after its first call before it
 * takes part: right after a (re)start leases from the previous run are expiring and being taken
 * over, which is normal and not the reconciler's business.
 */
export async function reconcileTick(
  pool: pg.Pool,
  o: Omit<ReconcileOptions, "config" | "force">,
): Promise<ReconcileResult | null> {
  const cfg = loadReconcileConfig();
  if (cfg.RECONCILE_INTERVAL_SECONDS === 0) return null;
  const now = Date.now();
  const since = settleFrom.get(pool) ?? now;
  if (!settleFrom.has(pool)) settleFrom.set(pool, now);
  if (now - since < cfg.RECONCILE_INTERVAL_SECONDS * 1000) return null;
  const r = await reconcile(pool, { ...o, config: cfg });
  if (r.ran) {
    const acted = ANOMALY_KINDS.filter(
      (k) => r.counts[k].recorded > 0 || r.counts[k].repaired > 0 || r.counts[k].skippedCap > 0,
    );
    const summary = Object.fromEntries(
      ANOMALY_KINDS.filter((k) => r.counts[k].found > 0).map((k) => [
        k,
        `${r.counts[k].found} found, ${r.counts[k].repaired} repaired`,
      ]),
    );
    if (acted.length > 0) log.info({ passId: r.passId, ms: r.durationMs, ...summary }, "reconciler pass");
    else log.debug({ passId: r.passId, ms: r.durationMs, ...summary }, "reconciler pass");
  }
  return r;
}
