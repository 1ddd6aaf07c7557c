import os from "node:os";
import pg from "pg";
import type { Config } from "../lib/config";
import { heartbeatDropped } from "../lib/faults";
import {
  claim,
  fail,
  isEmbeddedServer,
  preparedStatementsFor,
  release,
  renew,
  setPreparedStatements,
  type Lease,
} from "../lib/queue/engine";
import { classify, LeaseLostError } from "../lib/queue/errors";
import { NOTIFY_CHANNEL, PRIORITY, recordRenewLost } from "../lib/queue/sql";
import { executeTasks, collectGarbage } from "../lib/pipeline/run";
import type { PipelineHooks } from "../lib/pipeline/member";
import type { CompleteStats } from "../lib/queue/sql";
import type { Embedder } from "../lib/embedding/types";
import { asSpaceEmbedders, type SpaceEmbedders } from "../lib/spaces/embedders";
import { advanceMigrations, migrationSettings } from "../lib/spaces/maintenance";
import { runPendingEvaluations, scheduleEvaluations } from "../lib/evaluation/runner";
import { rollUpTaskOutcomes, takeBacklogSnapshot } from "../lib/queue/snapshots";
import { rollUpFreshness } from "../lib/slo/rollup";
import { sloDefaults } from "../lib/config";
import { reconcileTick } from "../lib/reconcile/reconcile";
import { log } from "../lib/log";
import { newPool, run } from "../lib/db/pool";
import { recordTask, type TaskOutcome } from "../lib/pipeline/metrics";
import { activeTracer, failSpan, hrTimeAt, recordSpan, startTaskSpan } from "../lib/tracing";
import type { ErrorCode } from "../lib/domain/constants";
import { configureParsePool, parseLimitsOf } from "../lib/pipeline/parsers/sandbox";
import { LocalEmbedder } from "../lib/embedding";

export type WorkerOptions = {
  pool: pg.Pool;
  databaseUrl: string;
  workerId: string;
  concurrency: number;
  cfg: Config;
  /** The environment's embedder; index spaces of the same model and dimensions use it (lib/spaces/embedders.ts). */
  embedder: Embedder;
  /** Every index space's embedder; made from `embedder` unless given. */
  spaces?: SpaceEmbedders;
  /** Runs a slot's held tasks; the task pipeline unless replaced (the queue benchmark runs no-op tasks). */
  execute?: typeof executeTasks;
  /** Claim and complete as named statements (lib/queue/engine.ts says where that is safe). */
  preparedStatements?: boolean | "auto";
  /** Tasks one slot claims and runs together (lib/pipeline/index-batch.ts): TASKS_PER_SLOT unless set. */
  tasksPerSlot?: number;
  /** The aging rule's interval (MIGRATION_AGING_MS); tests shorten it. */
  migrationAgingMs?: number;
  /** The bulk class's aging interval (BULK_AGING_MS); tests shorten it. */
  bulkAgingMs?: number;
};

/**
 * A slot claims up to this many tasks and runs their INDEX/REINDEX together: per-document round
 * trips and commits were most of an indexing task's cost outside the HNSW index. An idle fleet
 * still claims what is due, one task at a time as it is published, so latency is unchanged.
 */
export const TASKS_PER_SLOT = 8;

/**
 * While every claim comes back full, at most this long between claims that also look for expired
 * leases (lib/queue/sql.ts claimTasks, takeOver); a claim that came back short is always followed
 * by one. So a crashed worker's task waits at most about this long past its lease's expiry.
 */
export const TAKE_OVER_EVERY_MS = 1000;
/**
 * Migration work yields to publishes, but never for longer than this: a worker whose slots a
 * publish backlog keeps full still gives one slot to a MIGRATE batch this often.
 */
export const MIGRATION_AGING_MS = 10_000;

/**
 * Bulk work is claimed after interactive work (docs/decisions/040-fair-claim.md); so that a stream
 * of publishes that keeps every slot full cannot hold it back for good, a worker whose claims have
 * not come back short (nothing else due) for this long claims one slot of bulk work first.
 */
export const BULK_AGING_MS = 5_000;

type InFlight = {
  lease: Lease;
  controller: AbortController;
  progress: { done: number; total: number };
  promise: Promise<void>;
  lost: boolean;
  /** In (or past) the final fenced transaction: heartbeats stop and their late failures are moot. */
  switching: boolean;
};

const SHUTDOWN = Symbol("shutdown");

/**
 * One worker process: N slots, claim with a real lease, heartbeat every lease/3, LISTEN/NOTIFY
 * wake-up with polling as fallback. Stateless: everything it knows is in the database.
 */
export class Worker {
  private running = false;
  /**
   * Keyed by task id, lease attempt and this process's claim number: after a lost lease this
   * worker may claim the same task again while the old run is still unwinding, and both runs must
   * count against concurrency (and the old run's cleanup must not remove the new entry). The
   * claim number covers a claim lost in a server crash (claims commit asynchronously): the task
   * comes back with the same lease attempt, possibly to this same worker.
   */
  private inflight = new Map<string, InFlight>();
  private claimNumber = 0;
  /** When this worker last claimed with the look for expired leases; whether its last claim came back short. */
  private lastTakeOverAt = 0;
  private lastClaimShort = true;
  /** Slots running a batch of MIGRATE tasks (at most MIGRATION_SLOTS; the others take one MIGRATE at a time). */
  private migrationSlots = 0;
  /** When this worker last looked for migration work (the aging rule's clock). */
  private lastMigrationClaimAt = Date.now();
  /** When bulk work last had its turn: a claim that came back short (it took all that was due) or an aging claim. */
  private lastBulkTurnAt = Date.now();
  private readonly spaces: SpaceEmbedders;
  /** Slots running a claimed group of tasks; a slot is free again once each of its tasks has an outcome. */
  private busySlots = 0;
  private wakeUp: (() => void) | null = null;
  private listener: pg.Client | null = null;
  /**
   * Claims go through one connection of their own. The claim's batch size is part of its text, so
   * a worker has two claim statements per possible number of free slots, and the server plans a
   * named statement afresh for its first five runs on each connection: spread over the shared
   * pool, most claims were being planned (bench:queue, 4 processes: planning was a tenth of the
   * database's CPU). On one connection each text gets its five custom plans once per connection,
   * and a claim never waits behind completions for a pooled connection. Claims are sequential in
   * the loop, so one connection is enough.
   */
  private claimPool: pg.Pool | null = null;
  private loopDone: Promise<void> | null = null;
  private registryTimer: NodeJS.Timeout | null = null;
  private maintenanceTimer: NodeJS.Timeout | null = null;
  private idleMs: number;
  /** `emptyClaims`: claims that found nothing due (an idle worker's polls and wake-ups). */
  readonly stats = { claimed: 0, succeeded: 0, superseded: 0, failed: 0, lost: 0, emptyClaims: 0 };

  constructor(private readonly o: WorkerOptions) {
    this.idleMs = o.cfg.POLL_INTERVAL_MS;
    this.spaces = o.spaces ?? asSpaceEmbedders(o.embedder, o.cfg.EMBEDDING_TIMEOUT_MS);
  }

  get id(): string {
    return this.o.workerId;
  }

  async start(): Promise<void> {
    const { pool, workerId, concurrency } = this.o;
    await pool.query(
      `INSERT INTO workers (id, host, pid, concurrency, started_at, last_heartbeat_at, current_tasks, stopped_at)
       VALUES ($1, $2, $3, $4, now(), now(), '{}', NULL)
       ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, concurrency = EXCLUDED.concurrency,
         started_at = now(), last_heartbeat_at = now(), current_tasks = '{}', stopped_at = NULL`,
      [workerId, os.hostname(), process.pid, concurrency],
    );
    // Parsing runs in child processes under this configuration's limits, started and loaded before
    // the first claim, so no task's lease pays for a process start (~1 s).
    const parsePool = configureParsePool(parseLimitsOf(this.o.cfg)).warm();
    await parsePool.ready();
    await this.warmUp(parsePool);
    await this.listen();
    if (this.o.preparedStatements === "auto") {
      // Asked of the server itself, not of how the process was started: a worker pointed at an
      // embedded database by hand must not name statements its one shared session cannot hold.
      const { rows } = await pool.query<{ v: string }>(`SELECT version() AS v`);
      setPreparedStatements(preparedStatementsFor("auto", isEmbeddedServer(rows[0].v)));
    } else if (this.o.preparedStatements !== undefined) setPreparedStatements(this.o.preparedStatements);
    // Closed after 30 s unused, as the shared pool's are: while every slot is busy no claim is
    // made, and a connection left idle that long can be dropped silently by a NAT or balancer on
    // the way, which would hang the next claim; keep-alive probes cover shorter idle spells.
    this.claimPool = newPool({
      connectionString: this.o.databaseUrl,
      max: 1,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: "indexwright-claim",
    });
    // Connected now rather than by the first claim, which would pay for the sign-in.
    await this.claimPool.query("SELECT 1");
    this.running = true;
    this.registryTimer = setInterval(() => void this.beat(), this.o.cfg.heartbeatSeconds * 1000);
    // Every 10 s: the snapshot's own guard decides whether one is due (warm-up or steady cadence).
    this.maintenanceTimer = setInterval(() => void this.maintain(), 10_000);
    // A first snapshot at once, so backlog charts have a starting point right after start-up.
    void this.maintain();
    this.loopDone = this.loop();
    log.info({ workerId, concurrency, pid: process.pid }, "worker started");
  }

  /**
   * The first task of a process ran ~85 ms longer than the next ones on the embedded database
   * (measured by bench:first-publish): each parse process's first parse and the embedder's first
   * call run code for the first time. Both are done once here, on a sample, before the first claim.
   * Only the local embedder itself is called (not a provider: a call costs money and may be
   * rate-limited; not a subclass, which a test may count calls of).
   */
  private async warmUp(parsePool: ReturnType<typeof configureParsePool>): Promise<void> {
    const started = performance.now();
    const sample = new TextEncoder().encode(
      "# Warm-up\n\nA first paragraph, parsed and embedded before the first claim.\n",
    );
    try {
      await Promise.all(
        Array.from({ length: parseLimitsOf(this.o.cfg).processes ?? 1 }, () =>
          parsePool.parse("text/markdown", sample),
        ),
      );
      // The relations the first task reads and writes, planned once: on the embedded database every
      // connection shares one session, whose first statement on a relation loads its catalog entries.
      await this.o.pool.query(
        `SELECT (SELECT count(*) FROM (SELECT 1 FROM index_versions LIMIT 0) a) + (SELECT count(*) FROM (SELECT 1 FROM chunks LIMIT 0) b)
              + (SELECT count(*) FROM (SELECT 1 FROM chunk_vectors LIMIT 0) c) + (SELECT count(*) FROM (SELECT 1 FROM search_pointers LIMIT 0) d)
              + (SELECT count(*) FROM (SELECT 1 FROM space_pointers LIMIT 0) e) + (SELECT count(*) FROM (SELECT 1 FROM task_events LIMIT 0) f) AS n`,
      );
      const embedder = this.o.embedder;
      if (embedder instanceof LocalEmbedder && Object.getPrototypeOf(embedder) === LocalEmbedder.prototype)
        await embedder.embed(
          ["A first paragraph, parsed and embedded before the first claim."],
          AbortSignal.timeout(10_000),
        );
      log.debug({ ms: Math.round(performance.now() - started) }, "worker warmed up");
    } catch (err) {
      // A cold first task is slower, not wrong.
      log.warn({ err: (err as Error).message }, "worker warm-up failed");
    }
  }

  private async listen(): Promise<void> {
    try {
      const c = new pg.Client({ connectionString: this.o.databaseUrl });
      c.on("error", (err) => log.warn({ err: err.message }, "notification connection lost; polling continues"));
      await c.connect();
      c.on("notification", () => this.wake());
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
      this.listener = c;
    } catch (err) {
      log.warn({ err: (err as Error).message }, "LISTEN unavailable; falling back to polling");
    }
  }

  private wake(): void {
    this.idleMs = this.o.cfg.POLL_INTERVAL_MS;
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      // stop() may have woken the loop while a claim was in flight, before this sleep began.
      if (!this.running) return resolve();
      const t = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    const { cfg } = this.o;
    let failures = 0;
    while (this.running) {
      if (this.o.concurrency - this.busySlots <= 0) {
        await this.sleep(cfg.POLL_INTERVAL_MS);
        continue;
      }
      // The provider's circuit is open: leave due work in the queue rather than claim tasks that
      // can only fail fast and spend attempts on an outage (another worker may still reach it).
      const closedFor = this.o.embedder.unavailableForMs?.() ?? 0;
      if (closedFor > 0) {
        await this.sleep(Math.min(closedFor, cfg.POLL_INTERVAL_MS));
        continue;
      }
      // Aging: a publish backlog that keeps every slot full would otherwise hold migration work back
      // without bound (docs/index-spaces.md, "What the work is"); so one batch goes first.
      if (
        this.migrationSlots === 0 &&
        Date.now() - this.lastMigrationClaimAt >= (this.o.migrationAgingMs ?? MIGRATION_AGING_MS)
      )
        await this.claimMigrationWork(1, false);
      if (Date.now() - this.lastBulkTurnAt >= (this.o.bulkAgingMs ?? BULK_AGING_MS)) await this.claimBulkWork();
      const free = this.o.concurrency - this.busySlots;
      if (free <= 0) continue;
      let leases: Lease[];
      const takeOver = this.lastClaimShort || Date.now() - this.lastTakeOverAt >= TAKE_OVER_EVERY_MS;
      try {
        if (takeOver) this.lastTakeOverAt = Date.now();
        const tracer = activeTracer();
        const c0 = tracer ? performance.now() : 0;
        leases = await claim(this.claimPool!, this.o.workerId, cfg.LEASE_SECONDS, free * this.perSlot, { takeOver });
        // One claim serves tasks of many traces: each traced task gets the claim's span in its own.
        if (tracer) {
          const c1 = performance.now();
          const attrs = { "indexwright.worker": this.o.workerId, "indexwright.claim.tasks": leases.length };
          for (const l of leases) if (l.traceParent) recordSpan(tracer, l.traceParent, "claim", c0, c1, attrs);
        }
        this.lastClaimShort = leases.length < free * this.perSlot;
        if (this.lastClaimShort) this.lastBulkTurnAt = Date.now();
        if (leases.length === 0) this.stats.emptyClaims++;
        failures = 0;
      } catch (err) {
        this.lastClaimShort = true;
        // Not swallowed: logged with stack at error level, then retried with back-off, because a
        // worker that exits on a database blip would strand its slots.
        failures++;
        log.error({ err }, "claim failed");
        await this.sleep(Math.min(cfg.POLL_INTERVAL_MS * 2 ** failures, 30_000));
        continue;
      }
      // Spread over the free slots, so two slots work in parallel even when few tasks are due.
      const groups = Array.from({ length: Math.min(free, leases.length) }, (_, g) =>
        leases.filter((_, k) => k % free === g),
      );
      for (const group of groups) this.startSlot(group);
      if (leases.length === free * this.perSlot) continue; // more may be due: claim again at once
      // What publishes left free goes to migration work: batches in up to MIGRATION_SLOTS slots,
      // single tasks in the others while nothing else is due (docs/decisions/039-index-spaces.md §4).
      if (await this.claimMigrationWork(free - groups.length, leases.length === 0)) continue;
      // A short due-only claim is followed at once by a full one (lastClaimShort), not by a sleep:
      // an expired lease must not wait out an idle back-off because the backlog just drained.
      if (!takeOver) continue;
      if (leases.length === 0) {
        await this.sleep(this.idleMs);
        // Idle back-off: an empty queue is polled less often, up to 4× the interval; NOTIFY resets it.
        this.idleMs = Math.min(this.idleMs * 2, cfg.POLL_INTERVAL_MS * 4);
      } else {
        this.idleMs = cfg.POLL_INTERVAL_MS;
      }
    }
  }

  /**
   * Claims MIGRATE tasks into up to `free` slots; true when it filled them (more may be due). Up to
   * MIGRATION_SLOTS slots take a batch each; while nothing else is due (`idle`), the slots past that
   * cap take one task each, so a publish arriving meanwhile waits for one MIGRATE task at most and
   * a migration on an otherwise quiet worker uses all of it.
   */
  private async claimMigrationWork(free: number, idle: boolean): Promise<boolean> {
    const { cfg, concurrency } = this.o;
    const cap = Math.min(cfg.MIGRATION_SLOTS ?? Math.max(1, concurrency - 1), concurrency);
    if (cap === 0) return false;
    // Capped by the slots migration work holds, not by how many are free after this claim: keeping
    // the last free slot empty starved a migration for as long as anyone published (a slot running
    // INDEX left only "the last" one), while the capped slots already leave publishes their own.
    const room = Math.max(0, Math.min(free, cap - this.migrationSlots));
    const borrow = idle ? free - room : 0;
    const want = room * this.perSlot + borrow;
    if (want <= 0) return false;
    this.lastMigrationClaimAt = Date.now();
    let leases: Lease[];
    try {
      leases = await claim(this.claimPool!, this.o.workerId, cfg.LEASE_SECONDS, want, { migrate: true });
    } catch (err) {
      // Logged, not swallowed silently: the next turn of the loop claims again.
      log.error({ err }, "migration claim failed");
      return false;
    }
    const batched = leases.slice(0, room * this.perSlot);
    const groups = Array.from({ length: Math.min(room, batched.length) }, (_, g) =>
      batched.filter((_, k) => k % room === g),
    );
    for (const group of groups) {
      this.migrationSlots++;
      this.startSlot(group, () => this.migrationSlots--);
    }
    for (const lease of leases.slice(room * this.perSlot)) this.startSlot([lease]);
    return leases.length === want;
  }

  /** The bulk class's aging turn: one slot of due bulk work, claimed ahead of interactive work. */
  private async claimBulkWork(): Promise<void> {
    this.lastBulkTurnAt = Date.now();
    if (this.o.concurrency - this.busySlots <= 0) return;
    try {
      const leases = await claim(this.claimPool!, this.o.workerId, this.o.cfg.LEASE_SECONDS, this.perSlot, {
        takeOver: false,
        classes: [PRIORITY.BULK],
      });
      if (leases.length > 0) this.startSlot(leases);
    } catch (err) {
      // Logged, not swallowed silently: the loop's own claim follows at once.
      log.error({ err }, "bulk aging claim failed");
    }
  }

  private get perSlot(): number {
    return this.o.tasksPerSlot ?? TASKS_PER_SLOT;
  }

  /** One slot runs `leases` (each tracked on its own: heartbeat, fence, outcome) and is free again when all have ended. */
  private startSlot(leases: Lease[], onFree?: () => void): void {
    const { cfg, pool } = this.o;
    this.busySlots++;
    const tracked = leases.map((lease) => this.track(lease));
    const opts = { batchSize: cfg.EMBED_BATCH_SIZE, batchMaxBytes: cfg.EMBED_BATCH_MAX_BYTES, faults: cfg };
    const execute = this.o.execute ?? executeTasks;
    // Each task ends (its outcome recorded, its heartbeat stopped) when its own result is known,
    // not when the slot's last task is: a task stops renewing at its switch, so a failure there
    // waiting for its siblings' work could outlive the lease and go unrecorded.
    const outcomes = tracked.map(() => {
      let settle!: (r: PromiseSettledResult<CompleteStats | null>) => void;
      const promise = new Promise<CompleteStats | null>(
        (resolve, reject) => (settle = (r) => (r.status === "fulfilled" ? resolve(r.value) : reject(r.reason))),
      );
      return { promise, settle };
    });
    const settle = (i: number, r: PromiseSettledResult<CompleteStats | null>) => outcomes[i].settle(r);
    const all = execute(
      pool,
      this.spaces,
      tracked.map((t, i) => ({ lease: t.lease, hooks: t.hooks, settled: (r) => settle(i, r) })),
      opts,
    ).then((rs) => rs.forEach((r, i) => settle(i, r)));
    // Settling twice is a no-op, so this only reaches tasks the run ended without deciding.
    const done = all.catch((reason) => outcomes.forEach((o) => o.settle({ status: "rejected", reason })));
    const ended = tracked.map((t, i) => t.finish(outcomes[i].promise));
    // The slot is free when its run is over too, so a slot never holds more work than it claimed.
    void Promise.all([...ended, done]).then(() => {
      this.busySlots--;
      onFree?.();
      this.wake();
    });
  }

  private track(lease: Lease): {
    lease: Lease;
    hooks: PipelineHooks;
    finish: (result: Promise<CompleteStats | null>) => Promise<void>;
  } {
    const { cfg, pool } = this.o;
    this.stats.claimed++;
    const controller = new AbortController();
    const slot = `${lease.taskId}#${lease.leaseAttempt}#${++this.claimNumber}`;
    const entry: InFlight = {
      lease,
      controller,
      progress: { done: 0, total: 0 },
      promise: Promise.resolve(),
      lost: false,
      switching: false,
    };
    const dropHeartbeat = heartbeatDropped(cfg);
    const hb = setInterval(async () => {
      if (dropHeartbeat || controller.signal.aborted || entry.switching) return;
      try {
        await renew(pool, lease, cfg.LEASE_SECONDS, entry.progress);
      } catch (err) {
        if (entry.switching) return;
        if (err instanceof LeaseLostError) {
          entry.lost = true;
          controller.abort(err);
          this.stats.lost++;
          log.warn(
            { taskId: lease.taskId, leaseAttempt: lease.leaseAttempt },
            "LOST_LEASE: renewal rejected; aborting work",
          );
          await run(pool, recordRenewLost(lease.taskId, lease.tenantId, lease.workerId, lease.leaseAttempt)).catch(
            () => undefined,
          );
        } else {
          // A transient renewal error is not a lost lease; the next beat tries again.
          log.warn({ taskId: lease.taskId, err: (err as Error).message }, "lease renewal failed; will retry");
        }
      }
    }, cfg.heartbeatSeconds * 1000);

    // Only tasks whose creator was traced (a publish) are traced here: migration work would otherwise
    // start one trace per document, and an untraced task has no trace to continue.
    const tracer = lease.traceParent ? activeTracer() : null;
    const traced = tracer
      ? startTaskSpan(tracer, lease.traceParent, `task ${lease.taskType}`, {
          "indexwright.task.id": lease.taskId,
          "indexwright.task.type": lease.taskType,
          "indexwright.task.attempt": lease.leaseAttempt,
          "indexwright.tenant": lease.tenantId,
          "indexwright.document.id": lease.documentId,
          "indexwright.document.version": lease.versionNumber,
          "indexwright.worker": lease.workerId,
        })
      : undefined;
    const recordOutcome = (outcome: TaskOutcome, seconds: number, code?: ErrorCode) => {
      recordTask(lease.taskType, outcome, seconds, code);
      if (!traced) return;
      traced.span.setAttribute("indexwright.task.outcome", outcome);
      if (code) failSpan(traced.span, new Error(code));
    };
    let supersededBy: string | null = null;
    const hooks: PipelineHooks = {
      trace: traced?.steps,
      signal: controller.signal,
      progress: (done, total) => {
        entry.progress = { done, total };
      },
      beforeSwitch: () => {
        entry.switching = true;
      },
      switchUndone: () => {
        entry.switching = false;
      },
      superseded: (reason) => {
        supersededBy = reason;
      },
    };
    const t0 = Date.now();
    const finish = (result: Promise<CompleteStats | null>) =>
      (entry.promise = (async () => {
        const seconds = () => (Date.now() - t0) / 1000;
        try {
          const stats = await result;
          if (supersededBy !== null) {
            this.stats.superseded++;
            recordOutcome("superseded", seconds());
            log.info(
              { taskId: lease.taskId, type: lease.taskType, leaseAttempt: lease.leaseAttempt, reason: supersededBy },
              "task superseded at its switch; nothing written",
            );
          } else {
            this.stats.succeeded++;
            recordOutcome("succeeded", seconds());
            log.info(
              {
                taskId: lease.taskId,
                type: lease.taskType,
                leaseAttempt: lease.leaseAttempt,
                ms: Date.now() - t0,
                ...stats,
              },
              "task succeeded",
            );
          }
        } catch (err) {
          if (entry.lost || err instanceof LeaseLostError) {
            recordOutcome("lost_lease", seconds());
            log.warn({ taskId: lease.taskId, leaseAttempt: lease.leaseAttempt }, "LOST_LEASE: stopped without writing");
            return;
          }
          if (controller.signal.aborted && controller.signal.reason === SHUTDOWN) {
            const released = await release(pool, lease).catch(() => false);
            recordOutcome("released", seconds());
            log.info({ taskId: lease.taskId, released }, "task released at shutdown");
            return;
          }
          const { code, message, retryAfterSeconds } = classify(err);
          this.stats.failed++;
          if (code === "INTERNAL_ERROR")
            log.error({ err, taskId: lease.taskId }, "task failed with an unclassified error");
          try {
            const r = await fail(
              pool,
              lease,
              code,
              message,
              { baseSeconds: cfg.RETRY_BASE_SECONDS, maxSeconds: cfg.RETRY_MAX_SECONDS, jitter: 0.2 },
              retryAfterSeconds,
            );
            recordOutcome(r.status === "DEAD" ? "dead" : "retry_wait", seconds(), code);
            log.warn({ taskId: lease.taskId, code, status: r.status, nextAttemptAt: r.nextAttemptAt }, "task failed");
          } catch (e) {
            recordOutcome(e instanceof LeaseLostError ? "lost_lease" : "unrecorded", seconds(), code);
            if (e instanceof LeaseLostError)
              log.warn({ taskId: lease.taskId }, "LOST_LEASE: failure not recorded (lease gone)");
            else log.error({ err: e, taskId: lease.taskId }, "could not record task failure");
          }
        } finally {
          // On the same origin as its steps (lib/tracing.ts), so it ends after them.
          traced?.span.end(hrTimeAt(performance.now()));
          entry.switching = true;
          clearInterval(hb);
          this.inflight.delete(slot);
          this.wake();
        }
      })());
    this.inflight.set(slot, entry);
    return { lease, hooks, finish };
  }

  private async beat(): Promise<void> {
    await this.o.pool
      .query(`UPDATE workers SET last_heartbeat_at = now(), current_tasks = $2::bigint[] WHERE id = $1`, [
        this.o.workerId,
        [...new Set([...this.inflight.values()].map((e) => e.lease.taskId))],
      ])
      .catch((err) => log.warn({ err: err.message }, "worker registry heartbeat failed"));
  }

  private maintenanceTicks = 0;

  private async maintain(): Promise<void> {
    try {
      await takeBacklogSnapshot(this.o.pool);
      // Retention is counted in hours and buckets in 15 minutes; once a minute is plenty for both.
      if (this.maintenanceTicks++ % 6 === 0) {
        // Seals a 15-minute bucket a few minutes after it ends; one worker does it, the rest skip.
        // Its own failure is logged and must not cost this tick its GC and reconciler pass.
        await rollUpTaskOutcomes(this.o.pool).catch((err: Error) =>
          log.warn(
            { err: err.message },
            "task outcome roll-up failed; the activity charts count from the task table meanwhile",
          ),
        );
        // The freshness SLO's hours, counted once each hour is over (lib/slo/rollup.ts); until they
        // are, the SLO's long windows are read from the tasks, slower but the same figures.
        await rollUpFreshness(this.o.pool, sloDefaults(this.o.cfg)).catch((err: Error) =>
          log.warn({ err: err.message }, "freshness roll-up failed; the SLO is counted from the task table meanwhile"),
        );
        const gc = await collectGarbage(this.o.pool, this.o.cfg.RETENTION_HOURS);
        if (gc > 0) log.info({ removed: gc }, "garbage-collected retired index versions");
      }
      // One pass per interval across the fleet; the pass itself decides whether this worker leads.
      // Migrations that reached coverage get their space's HNSW index and turn READY (or switch).
      await advanceMigrations(this.o.pool, this.o.workerId, migrationSettings(this.o.cfg), {
        spaces: this.spaces,
        tolerance: this.o.cfg.EVALUATION_TOLERANCE,
        mode: this.o.cfg.EVALUATION_GATE_MODE,
      }).catch((err: Error) => log.warn({ err: err.message }, "migration maintenance failed"));
      // The evaluation schedule queues its runs first, so this same pass may run them; one per
      // tenant is queued however many workers pass at once (a unique partial index).
      await scheduleEvaluations(this.o.pool, {
        minutes: this.o.cfg.EVALUATION_SCHEDULE_MINUTES,
        worker: this.o.workerId,
      }).catch((err: Error) => log.warn({ err: err.message }, "evaluation schedule failed"));
      // Evaluation runs (asked for through the API, scheduled, or queued by a switch;
      // docs/evaluation.md), claimed with SKIP LOCKED.
      await runPendingEvaluations(this.o.pool, this.spaces, this.o.workerId).catch((err: Error) =>
        log.warn({ err: err.message }, "evaluation runs failed"),
      );
      await reconcileTick(this.o.pool, {
        actor: this.o.workerId,
        embedding: this.o.embedder,
        maxAttempts: this.o.cfg.MAX_ATTEMPTS,
        retentionHours: this.o.cfg.RETENTION_HOURS,
      });
    } catch (err) {
      log.warn({ err: (err as Error).message }, "maintenance failed");
    }
  }

  /** Stop claiming, let running tasks finish within the grace period, release the rest, deregister. */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loopDone;
    // No claim is in flight once the loop has ended; the in-flight tasks use the shared pool.
    await this.claimPool?.end().catch(() => undefined);
    const all = Promise.all([...this.inflight.values()].map((e) => e.promise));
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref()),
    ]);
    if (timedOut) {
      for (const e of this.inflight.values()) e.controller.abort(SHUTDOWN);
      await all;
    }
    if (this.registryTimer) clearInterval(this.registryTimer);
    if (this.maintenanceTimer) clearInterval(this.maintenanceTimer);
    await this.listener?.end().catch(() => undefined);
    await this.o.pool
      .query(`UPDATE workers SET stopped_at = now(), current_tasks = '{}' WHERE id = $1`, [this.o.workerId])
      .catch((err) => log.warn({ err: err.message }, "deregister failed"));
    log.info({ workerId: this.o.workerId, ...this.stats }, "worker stopped");
  }
}
