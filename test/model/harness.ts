// Model-based test harness: drives the real library (publish, delete, operator actions, claim +
// executeTask) against one PostgreSQL database, keeps a small model of what each document should
// be, and checks the invariants of docs/testing.md, "Model-based test", after every step and at quiescence.
//
// Workers are not background loops here: every worker step is one deterministic claim + run, so
// a failing sequence replays exactly from its seed. A "crash" runs a task up to its switch
// transaction and drops it (the lease stays held, as when a process dies); a "pause" stops it at
// the same point and resumes it later, after its lease may have expired and been taken over, so
// its late writes must be fenced out. Time is simulated by moving lease_until / next_attempt_at
// into the past instead of sleeping.

import { PRIORITY } from "../../lib/queue/sql";
import fc from "fast-check";
import type pg from "pg";
import { publish } from "../../lib/documents/publish";
import { requestDelete, reindex, rename, rollback, unpin, getDocument } from "../../lib/documents/repository";
import { bulkRetry, cancelTask, forceDone, pauseQueue, resumeQueue, retryTask } from "../../lib/operations/repository";
import { claim, fail, release, renew, type Lease } from "../../lib/queue/engine";
import { classify, LeaseLostError, TaskError } from "../../lib/queue/errors";
import { collectGarbage, executeTasks } from "../../lib/pipeline/run";
import { search, type SearchHit } from "../../lib/search/search";
import { LocalEmbedder } from "../../lib/embedding";
import type { Embedder } from "../../lib/embedding/types";
import { LOCAL_MODEL } from "../../lib/pipeline/local-embedder";
import { CHUNKER_VERSION } from "../../lib/pipeline/chunker";
import { ERROR_CODES, isErrorCode } from "../../lib/domain/constants";
import { DomainError } from "../../lib/domain/errors";
import { statusOf } from "../../lib/http/errors";
import { loadConfig } from "../../lib/config";
import { log } from "../../lib/log";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import type { MigrationState, Space } from "../../lib/spaces/types";
import { actOnMigration, getMigration, startMigration, type MigrationAction } from "../../lib/spaces/repository";
import { advanceMigrations } from "../../lib/spaces/maintenance";
import { registerEnvironmentSpace } from "../../lib/spaces/registry";
import { spaceIndexName } from "../../lib/spaces/indexes";

// ---------------------------------------------------------------------------------------------
// Configuration of the system under test: short budgets so DEAD happens within a sequence.

export const TENANT = "mbt";
export const KEYS = ["k1", "k2", "k3"] as const;
const MAX_ATTEMPTS = 3;
const RETRY_BUDGET = 3;
const LEASE_SECONDS = 60;
const RETENTION_HOURS = 168;
const POLICY = { baseSeconds: 0, maxSeconds: 0, jitter: 0.2 };
const PIPELINE = { batchSize: 2, batchMaxBytes: 1 << 20 };
const ACTOR = { subject: "model-operator" };
const PUBLISHER = "model-publisher";
/**
 * The two index spaces (docs/index-spaces.md): the migrated database's default and a second local
 * space of other dimensions, so a vector of one can never pass for the other's. The second is
 * registered as the environment would register it (lib/spaces/registry.ts), so a "restart with
 * other settings" finds it.
 */
export const SPACES = [
  { name: "local", model: LOCAL_MODEL, dims: 384 },
  { name: "local-256", model: LOCAL_MODEL, dims: 256 },
] as const;
const spaceLabel = (i: number) => `${SPACES[i].name} (${SPACES[i].dims})`;
/** Off with MODEL_MIGRATIONS=0: the sequences of before index-space migrations. */
const MIGRATIONS = process.env.MODEL_MIGRATIONS !== "0";
/** Settings of a maintenance pass (the bulk HNSW build of a candidate space). */
const MIGRATION_SETTINGS = { indexMemoryMb: 64, parallelWorkers: 0 };
/** Principals that see every ACL used below. */
const ALL_PRINCIPALS = ["group:a", "group:b"];

/**
 * Document contents. They share one H1 so the "Shared" section has the same path (and content
 * hash) across variants: re-publishing reuses its embedding. The last one has no text at all and
 * fails with EMPTY_DOCUMENT (non-retryable), a DEAD task with a visible reason.
 */
export const VARIANTS = [
  "# Handbook\n\nApple rule: returns are accepted within thirty days.",
  "# Handbook\n\nBirch rule: refunds go back to the original card.\n\n## Shared\n\nShared clause: contact support with the order number.",
  "# Handbook\n\nCedar rule: exchanges are free of charge.\n\n## Shared\n\nShared clause: contact support with the order number.",
  "# Handbook\n\nDune rule: gift cards never expire.\n\n## Later\n\nDune later: store credit is issued at once.\n\n## Last\n\nDune last: receipts are optional.",
  "   \n\n",
] as const;
const EMPTY_VARIANT = 4;
/**
 * Optional summaries (docs/api.md, "Routes": abstract → level 0, overview → level 1 chunks), by index; 0 = none.
 * With one, even the empty variant has something to index.
 */
export const SUMMARIES: readonly ({ abstract: string; overview: string } | null)[] = [
  null,
  {
    abstract: "Summary one: how returns and refunds work.",
    overview: "Overview one: the returns desk, refunds to cards, and the thirty-day rule.",
  },
  {
    abstract: "Summary two: gift cards and store credit.",
    overview: "Overview two: gift cards that never expire and credit issued at once.",
  },
];
export const ACLS: readonly (readonly string[])[] = [[], ["group:a"], ["group:b"]];

// ---------------------------------------------------------------------------------------------
// The model.

type Version = { variant: number; acl: readonly string[]; summary: number };
type DocModel = {
  id: string;
  key: string;
  /** Newest published version (versions[business - 1]). */
  business: number;
  deleted: boolean;
  /** Version an operator rollback pinned search to; cleared by publish and unpin. */
  pin: number | null;
  versions: Version[];
  /** Search version seen after the previous step (for the forward-only rule). */
  lastPointer: number | null;
};

type MigrationModel = { id: string; from: number; to: number; state: MigrationState; autoSwitch: boolean };
const OPEN_STATES: readonly MigrationState[] = ["BUILDING", "READY", "SWITCHED"];

export class Model {
  docs = new Map<string, DocModel>();
  byKey = new Map<string, string>();
  /** "from->to" → document id, for repeated renames. */
  renames = new Map<string, string>();
  /** Index into SPACES of the tenant's active index space (before the tenant exists: the default). */
  space = 0;
  /** Index into SPACES of the default space, where a new tenant starts. */
  defaultSpace = 0;
  /** Whether each space has its HNSW index (dropped at every reset; built by a migration's maintenance or a start). */
  indexed = [false, false];
  /** The tenant's latest migration (open or ended), or none. */
  migration: MigrationModel | null = null;
  /**
   * Pointers a move by hand left in the previous space (document id → index version id): search
   * serves none of them; each stays until the pointer moves.
   */
  legacy = new Map<string, string>();
  /** ACTIVE index versions no pointer names, with the flag they were found under (while relaxed). */
  orphans = new Map<string, string>();
  /** Whether the tenant's migration is open: its shadow space is kept in step. */
  get open(): boolean {
    return !!this.migration && OPEN_STATES.includes(this.migration.state);
  }
  /** The shadow space of the open migration: the candidate before its switch, the previous space after. */
  get shadow(): number | null {
    if (!this.open) return null;
    return this.migration!.state === "SWITCHED" ? this.migration!.from : this.migration!.to;
  }
  paused = 0;
  /** Operator pauses of the queue: "tenant" (the one tenant) or a task type, by pause id. */
  holds = new Map<string, string>();
  /** Whether an operator pause keeps this task from being claimed. */
  held(t: { task_type: string }): boolean {
    return this.holds.has("tenant") || this.holds.has(t.task_type);
  }
  doc(key: string): DocModel | undefined {
    const id = this.byKey.get(key);
    return id ? this.docs.get(id) : undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Database snapshot: one round trip after every step.

type TaskRow = {
  task_id: string;
  document_id: string;
  version_number: number;
  task_type: string;
  status: string;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_live: boolean;
  has_lease: boolean;
  overdue: boolean;
  error_code: string | null;
  error_message: string | null;
};
type IvRow = {
  id: string;
  document_id: string;
  version_number: number;
  task_id: string | null;
  status: string;
  chunk_count: number;
  expected_chunk_count: number;
  embedding_model: string;
  embedding_dimensions: number;
  space_id: number;
  n: number;
  n_ids: number;
  n_bad_vectors: number;
};
type PtrRow = { document_id: string; index_version_id: string; version_number: number; pinned: boolean };
type SpacePtrRow = PtrRow & { space_id: number; tenant_id: string };
type MigrationRowSnap = {
  id: string;
  tenant_id: string;
  state: MigrationState;
  from_space_id: number;
  to_space_id: number;
  auto_switch: boolean;
};
type DocRow = { id: string; key: string; business_version: number; deleted: boolean; search_version: number | null };
type VersionRow = {
  document_id: string;
  version_number: number;
  acl: string[];
  content: string;
  abstract: string | null;
  overview: string | null;
};

export type Snapshot = {
  tasks: Map<string, TaskRow>;
  ivs: Map<string, IvRow>;
  ptrs: Map<string, PtrRow>;
  docs: Map<string, DocRow>;
  /** document id + chunk id → versions whose index versions hold that chunk id. */
  chunkVersions: Map<string, Set<number>>;
  versions: VersionRow[];
  audit: Map<string, number>;
  /** Shadow pointers by "space id|document id". */
  spacePtrs: Map<string, SpacePtrRow>;
  migrations: MigrationRowSnap[];
  /** The tenant's active space id (null: no tenant row yet). */
  tenantSpace: number | null;
  defaultSpace: number | null;
  /** Spaces whose HNSW index exists. */
  indexed: Set<number>;
};

const SNAPSHOT_SQL = `
SELECT task_id::text, document_id::text, version_number, task_type, status, attempts, max_attempts, lease_owner,
       coalesce(lease_until > now(), false) AS lease_live, lease_until IS NOT NULL AS has_lease,
       CASE WHEN status IN ('PENDING', 'RETRY_WAIT') THEN next_attempt_at <= now() - interval '500 milliseconds'
            WHEN status = 'RUNNING' THEN lease_until <= now() - interval '500 milliseconds'
            ELSE false END AS overdue,
       error_code, error_message
  FROM index_tasks t ORDER BY t.task_id; -- qualified: the bare name would sort the ::text column ('10' < '9')
SELECT iv.id::text, iv.document_id::text, iv.version_number, iv.task_id::text, iv.status, iv.chunk_count, iv.expected_chunk_count,
       iv.embedding_model, iv.embedding_dimensions, iv.space_id,
       (SELECT count(*)::int FROM chunks c WHERE c.index_version_id = iv.id) AS n,
       (SELECT count(DISTINCT c.chunk_id)::int FROM chunks c WHERE c.index_version_id = iv.id) AS n_ids,
       -- Records whose vector is not the one stored for their own document, content and the version's space.
       (SELECT count(*)::int FROM chunks c LEFT JOIN chunk_vectors v ON v.id = c.vector_id
         WHERE c.index_version_id = iv.id
           AND (v.id IS NULL OR v.document_id <> c.document_id OR v.content_hash <> c.content_hash
                OR v.embedding_model <> iv.embedding_model OR v.dims <> iv.embedding_dimensions OR v.chunker_version <> iv.chunker_version
                OR v.space_id <> iv.space_id)) AS n_bad_vectors
  FROM index_versions iv ORDER BY iv.created_at, iv.id;
SELECT document_id::text, index_version_id::text, version_number, pinned FROM search_pointers;
SELECT id::text, key, business_version, deleted_at IS NOT NULL AS deleted, search_version FROM documents;
SELECT DISTINCT c.document_id::text, c.chunk_id, iv.version_number FROM chunks c JOIN index_versions iv ON iv.id = c.index_version_id;
SELECT document_id::text, version_number, acl, convert_from(content, 'UTF8') AS content, abstract, overview FROM document_versions;
SELECT action, count(*)::int AS n FROM audit_log GROUP BY action;
SELECT space_id, document_id::text, tenant_id, index_version_id::text, version_number, pinned FROM space_pointers;
SELECT m.id::text, m.tenant_id, m.state, m.from_space_id, m.to_space_id, m.auto_switch FROM space_migrations m ORDER BY m.id; -- the bigint, not the text
SELECT (SELECT active_space_id FROM tenants WHERE id = '${TENANT}') AS tenant_space,
       (SELECT id FROM embedding_spaces WHERE is_default) AS default_space;
SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'chunk_vectors_space_%_hnsw';`;

async function snapshot(pool: pg.Pool): Promise<Snapshot> {
  const r = (await pool.query(SNAPSHOT_SQL)) as unknown as pg.QueryResult[];
  const chunkVersions = new Map<string, Set<number>>();
  for (const c of r[4].rows) {
    const k = `${c.document_id}|${c.chunk_id}`;
    if (!chunkVersions.has(k)) chunkVersions.set(k, new Set());
    chunkVersions.get(k)!.add(c.version_number);
  }
  return {
    tasks: new Map(r[0].rows.map((t: TaskRow) => [t.task_id, t])),
    ivs: new Map(r[1].rows.map((iv: IvRow) => [iv.id, iv])),
    ptrs: new Map(r[2].rows.map((p: PtrRow) => [p.document_id, p])),
    docs: new Map(r[3].rows.map((d: DocRow) => [d.id, d])),
    chunkVersions,
    versions: r[5].rows,
    audit: new Map(r[6].rows.map((a: { action: string; n: number }) => [a.action, a.n])),
    spacePtrs: new Map(r[7].rows.map((p: SpacePtrRow) => [`${p.space_id}|${p.document_id}`, p])),
    migrations: r[8].rows,
    tenantSpace: r[9].rows[0].tenant_space,
    defaultSpace: r[9].rows[0].default_space,
    indexed: new Set(
      r[10].rows.map((x: { indexname: string }) => Number(/^chunk_vectors_space_(\d+)_hnsw$/.exec(x.indexname)?.[1])),
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// The system-under-test driver.

/** The local embedder whose provider can be made to fail for the next k calls. */
class BurstEmbedder extends LocalEmbedder {
  constructor(
    private readonly burst: { left: number; thrown: number },
    model: string,
    dims: number,
  ) {
    super(dims, model);
  }
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    if (this.burst.left > 0) {
      this.burst.left--;
      this.burst.thrown++;
      throw new TaskError("EMBEDDING_PROVIDER_UNAVAILABLE", "provider answered 503 (model test burst)");
    }
    return super.embed(texts, signal);
  }
}

/**
 * The workers' embedders: every space's goes through the same failing provider, so a burst fails
 * an INDEX in the active space and a MIGRATE in the shadow space alike.
 */
class BurstSpaces extends SpaceEmbedders {
  private readonly made = new Map<number, Embedder>();
  constructor(private readonly burst: { left: number; thrown: number }) {
    super({ timeoutMs: 30_000, preset: null });
  }
  override embedderFor(space: Space): Embedder {
    let e = this.made.get(space.id);
    if (!e) this.made.set(space.id, (e = new BurstEmbedder(this.burst, space.model, space.dimensions)));
    return e;
  }
}

/** Thrown into a task at its switch: the process died there. */
class CrashSignal extends Error {
  constructor() {
    super("worker crashed (model test)");
  }
}

type Outcome =
  | { kind: "completed" }
  | { kind: "lost"; message: string }
  | { kind: "crashed" }
  | { kind: "failed"; code: string; message: string; status: string }
  | { kind: "failed-lost"; code: string; message: string };

type Paused = { lease: Lease; open: () => void; crash: () => void; done: Promise<Outcome> };
type Held = { taskId: string; workerId: string; attempt: number };

/**
 * A pool whose first connect() (the task's switch transaction; every read before it goes through
 * pool.query) waits for `gate`. Rejecting the gate is a crash at that point.
 */
function stallingPool(pool: pg.Pool, reached: () => void, gate: Promise<void>): pg.Pool {
  let stalled = false;
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === "connect") {
        return async () => {
          if (!stalled) {
            stalled = true;
            reached();
            await gate;
          }
          return target.connect();
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

export class Violation extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Violation";
  }
}

export class Sut {
  readonly burst = { left: 0, thrown: 0 };
  readonly paused: Paused[] = [];
  /** Leases whose holder stalled or died; a RUNNING task must belong to one of these (or to nobody after expiry). */
  readonly held: Held[] = [];
  snap!: Snapshot;
  /** What the database looked like at the last search check. */
  searchedAt = "";
  readonly trace: string[] = [];
  private step = 0;

  constructor(readonly pool: pg.Pool) {}

  /** What the workers embed with: each space's own embedder, all behind the failing provider. */
  readonly spaces = new BurstSpaces(this.burst);
  /** What the checks search with: each space's embedder, never failing. */
  readonly readers = new SpaceEmbedders({ timeoutMs: 30_000, preset: null });
  private readonly ids: number[] = [];
  /** The database id of SPACES[i]. */
  spaceId(i: number): number {
    return this.ids[i];
  }
  /** The index into SPACES of a space id (-1: not one of them). */
  spaceIndex(id: number): number {
    return this.ids.indexOf(id);
  }
  /** Both spaces exist (the second registered once, as the registry would have). */
  private async ensureSpaces(): Promise<void> {
    if (this.ids.length === SPACES.length) return;
    for (const [i, sp] of SPACES.entries()) {
      const { rows } = await this.pool.query<{ id: number }>(
        `WITH ins AS (
           INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version)
           VALUES ($1, 'local', $2, $3, $4) ON CONFLICT (name) DO NOTHING RETURNING id)
         SELECT id FROM ins UNION ALL SELECT id FROM embedding_spaces WHERE name = $1`,
        [sp.name, sp.model, sp.dims, CHUNKER_VERSION],
      );
      this.ids[i] = rows[0].id;
    }
  }
  /** SPACES[i] becomes the default space (where a new tenant starts). */
  async makeDefault(i: number): Promise<void> {
    await this.pool.query(`UPDATE embedding_spaces SET is_default = false WHERE is_default AND id <> $1`, [
      this.spaceId(i),
    ]);
    await this.pool.query(`UPDATE embedding_spaces SET is_default = true WHERE id = $1 AND NOT is_default`, [
      this.spaceId(i),
    ]);
  }
  /**
   * SPACES[i] becomes the default (where a new tenant starts) and the tenant, if it exists, is
   * moved there by hand, as an operator with SQL would (no migration, no space lock): what
   * search reads and builds go to from then on, with nothing built there yet.
   */
  async moveTenant(i: number): Promise<void> {
    await this.makeDefault(i);
    await this.pool.query(`UPDATE tenants SET active_space_id = $2 WHERE id = $1`, [TENANT, this.spaceId(i)]);
  }

  /** How often each kind of event happened over the whole run (printed at the end: is the run exercising anything?). */
  readonly stats = new Map<string, number>();
  readonly timings = new Map<string, number>();
  time(what: string, since: number) {
    this.timings.set(what, (this.timings.get(what) ?? 0) + performance.now() - since);
  }
  count(what: string) {
    this.stats.set(what, (this.stats.get(what) ?? 0) + 1);
  }

  resetStepCounter() {
    this.step = 0;
  }

  note(line: string, category?: string) {
    this.trace.push(`${++this.step}. ${line}`);
    if (category) this.count(category);
  }

  private resets = 0;

  /** Empties the content tables; the schema stays migrated. */
  async reset(): Promise<void> {
    const t0 = performance.now();
    // Mostly DELETE, which is several times faster than TRUNCATE on tables this small; every 25th
    // reset truncates, so dead rows (and HNSW entries) do not pile up over thousands of sequences.
    if (this.resets++ % 25 === 0) {
      await this.pool.query(
        `TRUNCATE chunks, space_pointers, search_pointers, index_versions, task_events, index_tasks, document_versions, documents,
                  space_migrations, tenants, audit_log, idempotency_keys CASCADE`,
      );
    }
    await this.pool.query(
      `DELETE FROM chunks; DELETE FROM chunk_vectors; DELETE FROM space_pointers; DELETE FROM search_pointers; DELETE FROM index_versions;
       DELETE FROM task_events; DELETE FROM index_tasks; DELETE FROM document_versions; DELETE FROM documents; DELETE FROM space_migrations;
       DELETE FROM tenants; DELETE FROM audit_log; DELETE FROM idempotency_keys;
       DELETE FROM task_pauses; SELECT setval(pg_get_serial_sequence('index_tasks', 'task_id'), 1, false);`,
    );
    // A new model starts on SPACES[0], and no space has its HNSW index: a migration's maintenance
    // builds its candidate's in one bulk build, and a switch waits for it.
    await this.ensureSpaces();
    await this.makeDefault(0);
    for (const id of this.ids) await this.pool.query(`DROP INDEX IF EXISTS ${spaceIndexName(id)}`);
    this.snap = await snapshot(this.pool);
    this.searchedAt = "";
    this.time("reset", t0);
  }

  /** Kills the stalled tasks of the previous sequence (a failed one may leave some) before the next starts. */
  async abandon(): Promise<void> {
    for (const p of this.paused.splice(0)) {
      p.crash();
      await p.done.catch(() => undefined);
    }
  }

  /** Runs a claimed task the way worker/loop.ts does: classify failures, record them fenced. */
  async execute(lease: Lease, embedder: SpaceEmbedders, pool: pg.Pool = this.pool): Promise<Outcome> {
    try {
      // executeTask (test/helpers/pipeline.ts) over the spaces' embedders: a slot of one.
      const [r] = await executeTasks(
        pool,
        embedder,
        [{ lease, hooks: { signal: new AbortController().signal, progress: () => undefined } }],
        PIPELINE,
      );
      if (r.status === "rejected") throw r.reason;
      return { kind: "completed" };
    } catch (err) {
      return this.outcomeOf(lease, err);
    }
  }

  /** A task's outcome from what its run threw (null: nothing), with a failure recorded fenced as a worker does. */
  async outcomeOf(lease: Lease, err: unknown): Promise<Outcome> {
    if (err === null) return { kind: "completed" };
    if (err instanceof CrashSignal) return { kind: "crashed" };
    if (err instanceof LeaseLostError) return { kind: "lost", message: err.message };
    const { code, message, retryAfterSeconds } = classify(err);
    try {
      const r = await fail(this.pool, lease, code, message, POLICY, retryAfterSeconds);
      return { kind: "failed", code, message, status: r.status };
    } catch (e) {
      if (e instanceof LeaseLostError) return { kind: "failed-lost", code, message };
      throw e;
    }
  }

  /** Starts a claimed task and stops it at its switch: stalled (kept) or crashed (dropped). */
  async startStalled(
    lease: Lease,
    mode: "pause" | "crash",
  ): Promise<{ stalled: Paused | null; outcome: Outcome | null; thrown: number }> {
    let open!: () => void;
    let crash!: () => void;
    const gate = new Promise<void>((res, rej) => {
      open = res;
      crash = () => rej(new CrashSignal());
    });
    gate.catch(() => undefined);
    if (mode === "crash") crash();
    let reached!: () => void;
    const atGate = new Promise<"stalled">((r) => (reached = () => r("stalled")));
    const before = this.burst.thrown;
    // Each task builds in the space its tenant's pointers are in when it runs (and again, if a
    // switch moved them before its write): the embedder is the space's.
    const done = this.execute(lease, this.spaces, stallingPool(this.pool, reached, gate));
    const first = await Promise.race([atGate, done]);
    const thrown = this.burst.thrown - before;
    if (first === "stalled" && mode === "pause") {
      return { stalled: { lease, open, crash, done }, outcome: null, thrown };
    }
    return { stalled: null, outcome: await done, thrown };
  }
}

// ---------------------------------------------------------------------------------------------
// Invariants.

type StepExpect = {
  /** Allowed growth of each audit action in this step: [min, max]; unlisted actions must not grow. */
  audit?: Record<string, [number, number]>;
  /** Documents an operator rolled back in this step (their pointers may move backwards). */
  rolledBack?: string[];
};

/**
 * For hunting bugs past a known one, never for the committed run: MODEL_RELAX="text1,text2" makes
 * a violation whose message contains one of the texts end its sequence as a pass, counted in the
 * MODEL_STATS summary, so the search goes on for other bugs.
 */
const RELAX = (process.env.MODEL_RELAX ?? "")
  .split(",")
  .map((x) => x.trim())
  .filter(Boolean);

class RelaxedStop extends Error {}

/** A violation after which the run can safely go on: when relaxed, it is only counted. */
function flag(s: Sut, m: Model, what: string, detail: unknown = undefined): void {
  if (RELAX.some((r) => what.includes(r))) s.count(`RELAXED: ${what.replace(/#\d+|v\d+/g, "…").slice(0, 120)}`);
  else violation(s, m, what, detail);
}

function violation(s: Sut, m: Model, what: string, detail: unknown = undefined): never {
  if (RELAX.some((r) => what.includes(r))) {
    s.count(`RELAXED: ${what.replace(/#\d+|v\d+/g, "…").slice(0, 120)}`);
    throw new RelaxedStop(what);
  }
  const docs = [...m.docs.values()].map((d) => ({
    id: d.id.slice(0, 8),
    key: d.key,
    business: d.business,
    deleted: d.deleted,
    pin: d.pin,
    versions: d.versions
      .map(
        (v, i) =>
          `v${i + 1}:${v.variant}${v.acl.length ? "/" + v.acl.join("+") : ""}${v.summary ? "+s" + v.summary : ""}`,
      )
      .join(" "),
  }));
  const tasks = [...s.snap.tasks.values()].map(
    (t) =>
      `#${t.task_id} ${t.document_id.slice(0, 8)} v${t.version_number} ${t.task_type} ${t.status} a${t.attempts}/${t.max_attempts}${t.lease_owner ? " " + t.lease_owner : ""}${t.error_code ? " " + t.error_code : ""}`,
  );
  const ivs = [...s.snap.ivs.values()].map(
    (iv) =>
      `${iv.id.slice(0, 8)} ${iv.document_id.slice(0, 8)} v${iv.version_number} task#${iv.task_id} ${iv.status} ${iv.n}/${iv.expected_chunk_count} space ${iv.space_id}`,
  );
  const ptrs = [...s.snap.ptrs.values()].map(
    (p) =>
      `${p.document_id.slice(0, 8)} → v${p.version_number} iv ${p.index_version_id.slice(0, 8)}${p.pinned ? " pinned" : ""}`,
  );
  const shadow = [...s.snap.spacePtrs.values()].map(
    (p) =>
      `space ${p.space_id}: ${p.document_id.slice(0, 8)} → v${p.version_number} iv ${p.index_version_id.slice(0, 8)}${p.pinned ? " pinned" : ""}`,
  );
  const spaces = SPACES.map((x, i) => `${i}=${x.name}#${s.spaceId(i)}`).join(" ");
  const mig = m.migration
    ? `#${m.migration.id} ${m.migration.state} ${m.migration.from}→${m.migration.to}${m.migration.autoSwitch ? " autoSwitch" : ""}`
    : "none";
  throw new Violation(
    [
      `INVARIANT VIOLATED: ${what}`,
      detail === undefined ? "" : `detail: ${JSON.stringify(detail)}`,
      `model: ${JSON.stringify(docs)}`,
      `spaces: ${spaces}; active ${m.space}, default ${m.defaultSpace}, indexed [${m.indexed}]; migration ${mig}; legacy pointers ${m.legacy.size}`,
      `tasks (last snapshot):\n  ${tasks.join("\n  ")}`,
      `index versions:\n  ${ivs.join("\n  ")}`,
      `pointers:\n  ${ptrs.join("\n  ")}`,
      `shadow pointers:\n  ${shadow.join("\n  ")}`,
      `migrations (db): ${JSON.stringify(s.snap.migrations)}`,
      `trace:\n  ${s.trace.slice(-40).join("\n  ")}`,
    ]
      .filter(Boolean)
      .join("\n"),
  );
}

const UNFINISHED = new Set(["PENDING", "RUNNING", "RETRY_WAIT"]);

/** The status an event leaves its task in (null: no change; CREATED re-opens a finished task). */
const EVENT_EFFECT: Record<string, string | null> = {
  CREATED: null,
  CLAIMED: "RUNNING",
  LEASE_TAKEN_OVER: "RUNNING",
  LEASE_EXPIRED_DEAD: "DEAD",
  RENEW_LOST: null,
  PROGRESS: null,
  FAILED: null,
  RETRY_SCHEDULED: "RETRY_WAIT",
  DEAD: "DEAD",
  SUPERSEDED: "SUPERSEDED",
  SUCCEEDED: "SUCCEEDED",
  RELEASED: "RETRY_WAIT",
  OPERATOR_RETRY: "PENDING",
  OPERATOR_FORCE_DONE: "RESOLVED",
  OPERATOR_CANCEL: "CANCELLED",
};

/**
 * Per the target semantics: the document moved on without this task. A MIGRATE is bound to the
 * version search serves (its shadow must serve the same), so it is obsolete once search serves
 * another, the document is deleted, or the migration it was for ended.
 */
function obsolete(t: { task_type: string; version_number: number }, d: DocModel, m: Model, snap: Snapshot): boolean {
  if (t.task_type === "MIGRATE")
    return d.deleted || !m.open || snap.ptrs.get(d.id)?.version_number !== t.version_number;
  return t.task_type === "DELETE"
    ? !d.deleted || t.version_number < d.business
    : d.deleted || t.version_number < d.business;
}

/** Tasks that build what search serves (a MIGRATE builds the shadow space only). */
const BUILDS_ACTIVE = (t: { task_type: string }) => t.task_type === "INDEX" || t.task_type === "REINDEX";

type Coverage = { total: number; built: number; unverified: number; missing: string[] };

/**
 * How far the shadow space `spaceId` is from serving what search serves, from one snapshot
 * (docs/index-spaces.md, "The switch"): every live document with a search pointer needs a shadow
 * pointer at the same version and pin, each naming a complete ACTIVE index version of that space.
 */
function coverageIn(snap: Snapshot, m: Model, spaceId: number): Coverage {
  const c: Coverage = { total: 0, built: 0, unverified: 0, missing: [] };
  for (const p of snap.ptrs.values()) {
    if (snap.docs.get(p.document_id)?.deleted) continue;
    c.total++;
    const sp = snap.spacePtrs.get(`${spaceId}|${p.document_id}`);
    if (sp && sp.version_number === p.version_number && sp.pinned === p.pinned) c.built++;
    else c.missing.push(p.document_id);
  }
  for (const sp of snap.spacePtrs.values()) {
    if (sp.space_id !== spaceId) continue;
    const iv = snap.ivs.get(sp.index_version_id);
    if (!iv || iv.status !== "ACTIVE" || iv.chunk_count !== iv.expected_chunk_count || iv.space_id !== spaceId)
      c.unverified++;
  }
  return c;
}
const covered = (c: Coverage) => c.built === c.total && c.unverified === 0;

function completeIv(iv: IvRow): boolean {
  return (
    ["READY", "ACTIVE", "RETIRED"].includes(iv.status) &&
    iv.chunk_count === iv.expected_chunk_count &&
    iv.n === iv.expected_chunk_count
  );
}

/** Takes a snapshot and checks everything that must hold after any step. */
export async function checkStep(m: Model, s: Sut, expect: StepExpect = {}): Promise<Snapshot> {
  const pre = s.snap;
  let t0 = performance.now();
  const snap = await snapshot(s.pool);
  s.time("snapshot", t0);
  s.snap = snap;
  const active = s.spaceId(m.space);

  // Documents: the database agrees with the model on what exists, under which key, at which version.
  if (snap.docs.size !== m.docs.size)
    violation(s, m, "document count differs from the model", { db: snap.docs.size, model: m.docs.size });
  for (const d of m.docs.values()) {
    const row = snap.docs.get(d.id);
    if (!row) violation(s, m, `document ${d.key} missing from the database`);
    if (row.key !== d.key || row.business_version !== d.business || row.deleted !== d.deleted) {
      violation(s, m, `document ${d.key} differs from the model`, {
        db: row,
        model: { key: d.key, business: d.business, deleted: d.deleted },
      });
    }
    const p = snap.ptrs.get(d.id);
    if ((p?.version_number ?? null) !== row.search_version)
      violation(s, m, `documents.search_version of ${d.key} disagrees with its pointer`, { row, p });
  }

  // Tasks: attempts within budget, RUNNING only under a lease someone holds, DEAD always with a reason.
  for (const t of snap.tasks.values()) {
    if (t.attempts > t.max_attempts)
      violation(s, m, `task #${t.task_id} has attempts ${t.attempts} > max_attempts ${t.max_attempts}`);
    if (t.status === "RUNNING") {
      if (!t.lease_owner || !t.has_lease) violation(s, m, `task #${t.task_id} is RUNNING without a lease`);
      if (!s.held.some((h) => h.taskId === t.task_id && h.workerId === t.lease_owner && h.attempt === t.attempts)) {
        violation(
          s,
          m,
          `task #${t.task_id} is RUNNING under a lease (${t.lease_owner}, attempt ${t.attempts}) that no worker holds`,
        );
      }
    }
    if (t.status === "DEAD" && !t.error_code) violation(s, m, `task #${t.task_id} is DEAD without an error code`);
    // A cancel is always an operator's, with its reason, and never of a DELETE (its chunks would stay).
    if (
      t.status === "CANCELLED" &&
      (t.error_code !== "OPERATOR_CANCELLED" || !t.error_message?.startsWith(`Cancelled by ${ACTOR.subject}: `))
    ) {
      violation(s, m, `task #${t.task_id} is CANCELLED without the operator's reason`, t);
    }
    if (t.status === "CANCELLED" && t.task_type === "DELETE")
      violation(s, m, `task #${t.task_id}: a DELETE was cancelled`);
    if (t.error_code === "INTERNAL_ERROR")
      violation(s, m, `task #${t.task_id} failed with an unclassified error`, t.error_message);
    const d = m.docs.get(t.document_id);
    if (!d) violation(s, m, `task #${t.task_id} belongs to an unknown document`);
    if (t.version_number > d.business)
      violation(s, m, `task #${t.task_id} is for v${t.version_number}, beyond the business version`);
  }

  // Every task queued in this step (new, or a finished one started over) has the configured
  // budget: MAX_ATTEMPTS for new work, RETRY_BUDGET for an operator's retry (both 3 here).
  for (const t of snap.tasks.values()) {
    const was = pre.tasks.get(t.task_id);
    if (t.status !== "PENDING" || (was && UNFINISHED.has(was.status))) continue;
    if (t.max_attempts - t.attempts !== MAX_ATTEMPTS)
      flag(
        s,
        m,
        `${t.task_type} task #${t.task_id} queued with ${t.max_attempts - t.attempts} attempts left; the configured budget is ${MAX_ATTEMPTS}`,
        t,
      );
  }

  // Index versions: never a half-built one committed; complete ones hold exactly their chunks, ids unique.
  for (const iv of snap.ivs.values()) {
    if (iv.status === "BUILDING") violation(s, m, `index version ${iv.id} committed in BUILDING`);
    if (iv.chunk_count !== iv.expected_chunk_count || iv.n !== iv.expected_chunk_count)
      violation(s, m, `index version ${iv.id} is incomplete`, iv);
    if (iv.n_ids !== iv.n) violation(s, m, `index version ${iv.id} holds duplicate chunk ids`, iv);
    if (iv.n_bad_vectors !== 0)
      violation(
        s,
        m,
        `index version ${iv.id} has ${iv.n_bad_vectors} records referencing another content's or space's vector`,
        iv,
      );
    const sp = SPACES[s.spaceIndex(iv.space_id)];
    if (!sp || iv.embedding_dimensions !== sp.dims || iv.embedding_model !== sp.model)
      violation(s, m, `index version ${iv.id} in an unknown embedding space, or not the one its space_id names`, iv);
    const t = iv.task_id ? snap.tasks.get(iv.task_id) : undefined;
    if (!t || t.document_id !== iv.document_id || t.version_number !== iv.version_number)
      violation(s, m, `index version ${iv.id} does not match its task`, { iv, t });
  }
  // A chunk id hashes tenant, document, version, chunker version, ordinal and content hash
  // (docs/parsing.md, "Chunk ids").
  for (const [k, vs] of snap.chunkVersions)
    if (vs.size > 1) flag(s, m, `chunk id ${k} is shared by versions ${[...vs].join(",")}`);

  // Pointers: name a complete ACTIVE index version of the same document and version; ACTIVE = pointed at.
  for (const p of snap.ptrs.values()) {
    const iv = snap.ivs.get(p.index_version_id);
    if (!iv || iv.document_id !== p.document_id || iv.version_number !== p.version_number)
      violation(s, m, `pointer of ${p.document_id} names the wrong index version`, { p, iv });
    if (iv.status !== "ACTIVE" && m.docs.get(p.document_id)?.deleted && iv.status === "RETIRED")
      flag(
        s,
        m,
        `search pointer of a deleted document names a RETIRED index version (a switch-back retired it with the shadow)`,
        { p, iv },
      );
    else if (iv.status !== "ACTIVE")
      violation(s, m, `pointer of ${p.document_id} names an index version in ${iv.status}`, { p, iv });
  }
  // ACTIVE = named by a pointer: search's, or a migration's shadow pointer.
  const named = new Set([...snap.ptrs.values(), ...snap.spacePtrs.values()].map((p) => p.index_version_id));
  for (const iv of snap.ivs.values()) {
    if (iv.status !== "ACTIVE" || named.has(iv.id)) continue;
    // Two known ways to leave one (test/spaces/migration-seams.test.ts), flagged where they happen and
    // for as long as the version stays so.
    const wasOffSpace =
      pre.ptrs.get(iv.document_id)?.index_version_id === iv.id && pre.ivs.get(iv.id)?.space_id !== pre.tenantSpace;
    const known = m.orphans.get(iv.id);
    if (known) flag(s, m, known, iv);
    else if (m.docs.get(iv.document_id)?.deleted || wasOffSpace) {
      const what = wasOffSpace
        ? `a version search named outside the active space is left ACTIVE with no pointer naming it`
        : `an index version of a deleted document is left ACTIVE with no pointer naming it`;
      m.orphans.set(iv.id, what);
      flag(s, m, what, iv);
    } else violation(s, m, `index version ${iv.id} is ACTIVE but no pointer names it`, iv);
  }
  checkSpaces(m, s, snap);

  for (const d of m.docs.values()) {
    const p = snap.ptrs.get(d.id);
    const cur = p?.version_number ?? null;
    if (cur !== null && cur > d.business)
      violation(s, m, `${d.key}: search version v${cur} is ahead of the business version v${d.business}`);
    if (!d.deleted) {
      if (d.pin !== null && (!p || !p.pinned || p.version_number !== d.pin))
        violation(s, m, `${d.key}: pinned at v${d.pin} but the pointer says`, p ?? null);
      if (d.pin === null && p?.pinned) violation(s, m, `${d.key}: pointer pinned though nothing pins it`, p);
    }
    // Forward only, except by an operator rollback.
    if (d.lastPointer !== null && cur !== null && cur < d.lastPointer && !expect.rolledBack?.includes(d.id)) {
      violation(s, m, `${d.key}: search version moved backwards v${d.lastPointer} → v${cur} without a rollback`);
    }
    d.lastPointer = cur;
  }

  // Operator actions: each one that succeeded left exactly its audit record, and nothing else did.
  const actions = new Set([...snap.audit.keys(), ...pre.audit.keys(), ...Object.keys(expect.audit ?? {})]);
  for (const a of actions) {
    const grew = (snap.audit.get(a) ?? 0) - (pre.audit.get(a) ?? 0);
    const [lo, hi] = expect.audit?.[a] ?? [0, 0];
    if (grew < lo || grew > hi)
      violation(s, m, `audit log: ${a} grew by ${grew}, expected ${lo === hi ? lo : `${lo}..${hi}`}`);
  }

  // search() is a pure function of these rows: when none changed, the last step's check stands.
  const fingerprint = JSON.stringify([
    active,
    [...snap.ptrs.values()],
    [...snap.docs.values()].map((d) => [d.id, d.key, d.deleted]),
    [...snap.ivs.values()].map((iv) => [iv.id, iv.status]),
  ]);
  if (fingerprint !== s.searchedAt) {
    t0 = performance.now();
    await checkSearch(m, s, snap, ALL_PRINCIPALS);
    s.time("search", t0);
    s.searchedAt = fingerprint;
  }
  return snap;
}

/**
 * Index spaces and migrations (docs/index-spaces.md), after every step: the tenant searches the
 * space the model says, every search pointer is in it (but those a move by hand left behind), the
 * migrations are the model's, and every shadow pointer belongs to the open migration's shadow
 * space and names a complete ACTIVE build of its version there, with the active pointer's pin when
 * both serve the same version.
 */
function checkSpaces(m: Model, s: Sut, snap: Snapshot): void {
  const active = s.spaceId(m.space);
  if (m.docs.size > 0 && snap.tenantSpace !== active)
    violation(s, m, `the tenant searches space ${snap.tenantSpace}, the model says ${spaceLabel(m.space)}`);
  if (m.docs.size === 0 && m.space !== m.defaultSpace)
    violation(s, m, `harness: no tenant yet, but its space ${m.space} is not the default ${m.defaultSpace}`);
  if (snap.defaultSpace !== s.spaceId(m.defaultSpace))
    violation(s, m, `the default space is ${snap.defaultSpace}, the model says ${spaceLabel(m.defaultSpace)}`);
  for (const [i] of SPACES.entries())
    if (snap.indexed.has(s.spaceId(i)) !== m.indexed[i])
      violation(s, m, `space ${spaceLabel(i)} ${m.indexed[i] ? "lost" : "got"} its HNSW index unexpectedly`);

  // Migrations: at most one open, and the latest is the model's.
  const open = snap.migrations.filter((r) => OPEN_STATES.includes(r.state));
  if (open.length > 1) violation(s, m, `${open.length} migrations open at once`, open);
  const last = snap.migrations.at(-1) ?? null;
  const want = m.migration;
  if (
    (last === null) !== (want === null) ||
    (last &&
      want &&
      (last.id !== want.id ||
        last.state !== want.state ||
        last.from_space_id !== s.spaceId(want.from) ||
        last.to_space_id !== s.spaceId(want.to) ||
        last.auto_switch !== want.autoSwitch))
  )
    violation(s, m, `the tenant's latest migration differs from the model`, { db: last, model: want });

  // Search pointers: in the active space, but those a move by hand left behind (until they move).
  for (const [doc, iv] of m.legacy) if (snap.ptrs.get(doc)?.index_version_id !== iv) m.legacy.delete(doc);
  for (const p of snap.ptrs.values()) {
    const iv = snap.ivs.get(p.index_version_id)!;
    if (iv.space_id !== active && m.legacy.get(p.document_id) !== iv.id && m.docs.get(p.document_id)?.deleted)
      flag(
        s,
        m,
        `search pointer of a deleted document (its DELETE not run yet, or DEAD) left in space ${iv.space_id} by a switch; the tenant searches ${active}`,
        { p, iv },
      );
    else if (iv.space_id !== active && m.legacy.get(p.document_id) !== iv.id)
      violation(
        s,
        m,
        `search pointer of ${p.document_id} names an index version of space ${iv.space_id}; the tenant searches ${active}`,
        { p, iv },
      );
  }

  // Shadow pointers: only the open migration's shadow space, each a complete ACTIVE build of its version there.
  const shadow = m.shadow === null ? null : s.spaceId(m.shadow);
  for (const sp of snap.spacePtrs.values()) {
    if (sp.space_id !== shadow || sp.tenant_id !== TENANT)
      violation(
        s,
        m,
        `shadow pointer of ${sp.document_id} in space ${sp.space_id}; the shadow space is ${shadow ?? "none (no migration open)"}`,
        sp,
      );
    const iv = snap.ivs.get(sp.index_version_id);
    if (!iv || iv.document_id !== sp.document_id || iv.version_number !== sp.version_number)
      violation(s, m, `shadow pointer of ${sp.document_id} names the wrong index version`, { sp, iv });
    if (iv.space_id !== sp.space_id)
      flag(
        s,
        m,
        `shadow pointer of ${sp.document_id} in space ${sp.space_id} names an index version of another space (${iv.space_id})`,
        { sp, iv },
      );
    if (iv.status !== "ACTIVE" || !completeIv(iv))
      violation(s, m, `shadow pointer of ${sp.document_id} names an index version in ${iv.status}`, { sp, iv });
    const p = snap.ptrs.get(sp.document_id);
    if (!p) violation(s, m, `shadow pointer of ${sp.document_id}, which search does not serve`, sp);
    if (p.version_number === sp.version_number && p.pinned !== sp.pinned)
      violation(
        s,
        m,
        `shadow pointer of ${sp.document_id} at v${sp.version_number}: pinned ${sp.pinned}, search ${p.pinned}`,
        {
          sp,
          p,
        },
      );
  }
}

/**
 * A real search that can see every chunk of the tenant: hits come from at most one version per
 * document, that version is the pointer's, deleted documents give none, each visible search
 * version is complete, and only the configured embedding space is served.
 */
async function checkSearch(m: Model, s: Sut, snap: Snapshot, principals: string[]): Promise<void> {
  const active = s.spaceId(m.space);
  const hits: SearchHit[] = await search(s.pool, s.readers, {
    tenant: TENANT,
    query: "handbook rule clause",
    topK: 500,
    principals,
  });
  const byDoc = new Map<string, SearchHit[]>();
  for (const h of hits) {
    const id = m.byKey.get(h.documentKey);
    if (!id) violation(s, m, `search hit for unknown key ${h.documentKey}`, h);
    if (!byDoc.has(id)) byDoc.set(id, []);
    byDoc.get(id)!.push(h);
  }
  for (const d of m.docs.values()) {
    const got = byDoc.get(d.id) ?? [];
    const p = snap.ptrs.get(d.id);
    const iv = p ? snap.ivs.get(p.index_version_id) : undefined;
    // The served version's ACL and the latest published one's must both admit the caller.
    const admits = (acl: readonly string[]) => acl.length === 0 || acl.some((a) => principals.includes(a));
    const acl = p ? (d.versions[p.version_number - 1]?.acl ?? []) : [];
    const latestAcl = d.versions[d.business - 1]?.acl ?? [];
    // Search reads the tenant's active space only: a version built elsewhere serves nothing.
    const visible = !d.deleted && !!p && !!iv && iv.space_id === active && admits(acl) && admits(latestAcl);
    if (!visible) {
      if (got.length > 0) {
        violation(
          s,
          m,
          `${d.key}: ${got.length} search hits though it should be invisible (${d.deleted ? "deleted" : !p ? "no search version" : iv?.space_id !== active ? "other embedding space" : "ACL"})`,
          got.map((h) => [h.versionNumber, h.text]),
        );
      }
      continue;
    }
    const versions = new Set<number>();
    for (const h of got) {
      const real = snap.chunkVersions.get(`${d.id}|${h.chunkId}`);
      if (!real) violation(s, m, `${d.key}: search hit ${h.chunkId} has no chunk row`, h);
      for (const v of real) versions.add(v);
      versions.add(h.versionNumber);
      const version = d.versions[p!.version_number - 1];
      const summary = SUMMARIES[version.summary];
      if (!VARIANTS[version.variant].includes(h.text) && h.text !== summary?.abstract && h.text !== summary?.overview)
        violation(s, m, `${d.key}: search hit text is not from v${p!.version_number}'s content`, h.text);
    }
    if (versions.size > 1) violation(s, m, `${d.key}: one query saw chunks of versions ${[...versions].join(", ")}`);
    if (got.length > 0 && !versions.has(p!.version_number))
      violation(s, m, `${d.key}: hits are from v${[...versions][0]}, the search version is v${p!.version_number}`);
    if (got.length !== iv!.chunk_count)
      violation(s, m, `${d.key}: search returned ${got.length} of the ${iv!.chunk_count} chunks of its search version`);
  }
}

/** After the system came to rest: what each document must show, and nothing left running. */
export async function checkAtRest(m: Model, s: Sut): Promise<void> {
  const snap = s.snap;
  for (const t of snap.tasks.values()) {
    if (UNFINISHED.has(t.status)) violation(s, m, `at rest, task #${t.task_id} is still ${t.status}`);
  }
  for (const d of m.docs.values()) {
    const p = snap.ptrs.get(d.id);
    const tasksOf = [...snap.tasks.values()].filter((t) => t.document_id === d.id && t.version_number === d.business);
    if (d.deleted) {
      const del = tasksOf.filter((t) => t.task_type === "DELETE").at(-1);
      if (!del) violation(s, m, `${d.key}: deleted without a DELETE task for v${d.business}`);
      s.count(`at rest: deleted, DELETE ${del.status}${p ? ", pointer kept" : ""}`);
      // Only a DEAD DELETE may leave the pointer: a force-done does the delete's work itself.
      if (p && del.status !== "DEAD")
        violation(s, m, `${d.key}: deleted, its DELETE is ${del.status}, yet a search pointer remains`, p);
      continue;
    }
    if (d.pin !== null) {
      s.count("at rest: pinned");
      continue; // checked after every step: the pointer is the pin
    }
    const latest = tasksOf.filter(BUILDS_ACTIVE).at(-1);
    if (!latest) violation(s, m, `${d.key}: no INDEX/REINDEX task for the business version v${d.business}`);
    const at = p?.version_number ?? null;
    s.count(at === d.business ? "at rest: at business version" : `at rest: drift, task ${latest.status}`);
    if (at !== d.business && !["DEAD", "RESOLVED", "CANCELLED"].includes(latest.status)) {
      violation(
        s,
        m,
        `${d.key}: at rest the search version is ${at === null ? "none" : "v" + at}, business v${d.business}, and its task #${latest.task_id} is ${latest.status} (only DEAD/RESOLVED/CANCELLED may leave drift)`,
      );
    }
  }
  // Published versions are stored as published (content and ACL).
  for (const d of m.docs.values()) {
    const rows = snap.versions.filter((v) => v.document_id === d.id);
    if (rows.length !== d.business)
      violation(s, m, `${d.key}: ${rows.length} stored versions, the model has ${d.business}`);
    for (const r of rows) {
      const v = d.versions[r.version_number - 1];
      const summary = SUMMARIES[v.summary];
      if (
        VARIANTS[v.variant] !== r.content ||
        [...r.acl].sort().join(",") !== [...v.acl].sort().join(",") ||
        r.abstract !== (summary?.abstract ?? null) ||
        r.overview !== (summary?.overview ?? null)
      )
        violation(s, m, `${d.key} v${r.version_number} stored differently from what was published`, r);
    }
  }
  // What an operator sees: state, versions and, for drift, its reason.
  for (const d of m.docs.values()) {
    const view = await getDocument(s.pool, TENANT, d.key);
    if (!view) violation(s, m, `${d.key}: the documents view does not find it`);
    const p = snap.ptrs.get(d.id);
    const latest = [...snap.tasks.values()]
      .filter((t) => t.document_id === d.id && t.version_number === d.business && BUILDS_ACTIVE(t))
      .at(-1);
    if (view.businessVersion !== d.business || view.searchVersion !== (p?.version_number ?? null))
      violation(
        s,
        m,
        `${d.key}: the documents view shows business v${view.businessVersion} / search ${view.searchVersion}`,
        view,
      );
    // A version indexed in another embedding space (before a model switch) is not served: the
    // document must not read SEARCHABLE while search cannot find it.
    const served = !!p && snap.ivs.get(p.index_version_id)?.space_id === s.spaceId(m.space);
    // A cancelled build of the business version is FAILED too, never SEARCHABLE on an older version.
    const want = d.deleted
      ? "DELETED"
      : latest?.status === "DEAD" || latest?.status === "CANCELLED"
        ? "FAILED"
        : served
          ? "SEARCHABLE"
          : "NOT_INDEXED";
    if (view.state !== want)
      violation(s, m, `${d.key}: the documents view says ${view.state}, expected ${want}`, { latest, p });
    if (!d.deleted && view.pinned !== (d.pin !== null))
      violation(s, m, `${d.key}: the documents view says pinned=${view.pinned}, the model ${d.pin !== null}`, view);
    const drift = !d.deleted && d.pin === null && (p?.version_number ?? null) !== d.business;
    if (drift && !view.lastError?.code)
      violation(
        s,
        m,
        `${d.key}: drift (search ${p?.version_number ?? "none"}, business v${d.business}) shown without a reason`,
        view,
      );
  }

  // Timelines: replaying each task's events gives its status, and there is one claim event per attempt.
  const events = (
    await s.pool.query<{ task_id: string; kind: string; lease_attempt: number | null }>(
      `SELECT task_id::text, kind, lease_attempt FROM task_events ORDER BY id`,
    )
  ).rows;
  const replay = new Map<string, { state: string | null; claims: number[] }>();
  for (const e of events) {
    const r = replay.get(e.task_id) ?? { state: null, claims: [] };
    replay.set(e.task_id, r);
    const next = EVENT_EFFECT[e.kind];
    if (next === undefined) violation(s, m, `task #${e.task_id}: unknown event kind ${e.kind}`);
    if (e.kind === "CREATED") {
      if (r.state === null || !UNFINISHED.has(r.state)) r.state = "PENDING";
    } else if (next) r.state = next;
    if (e.kind === "CLAIMED" || e.kind === "LEASE_TAKEN_OVER") r.claims.push(e.lease_attempt ?? -1);
  }
  for (const t of snap.tasks.values()) {
    const r = replay.get(t.task_id);
    if (!r) violation(s, m, `task #${t.task_id} has no events at all`);
    if (r.state !== t.status)
      violation(s, m, `task #${t.task_id}: its timeline ends in ${r.state}, the task is ${t.status}`);
    if (r.claims.join() !== Array.from({ length: t.attempts }, (_, i) => i + 1).join())
      violation(
        s,
        m,
        `task #${t.task_id}: claim events for attempts [${r.claims}], the task has ${t.attempts} attempts`,
      );
  }

  // ACLs: a reader without groups sees only open documents; one group sees open + its own.
  await checkSearch(m, s, snap, []);
  await checkSearch(m, s, snap, ["user:someone@example.com", "group:a"]);

  // An open migration has caught up: its shadow serves every live document at the version and pin
  // search serves, unless that version's MIGRATE task says why not (DEAD, CANCELLED, RESOLVED).
  if (m.shadow !== null) {
    const shadow = s.spaceId(m.shadow);
    const c = coverageIn(snap, m, shadow);
    s.count(`at rest: migration ${m.migration!.state}, ${covered(c) ? "covered" : "not covered"}`);
    for (const id of c.missing) {
      const d = m.docs.get(id)!;
      const p = snap.ptrs.get(id)!;
      const mt = [...snap.tasks.values()]
        .filter((t) => t.document_id === id && t.task_type === "MIGRATE" && t.version_number === p.version_number)
        .at(-1);
      s.count(`at rest: shadow lacks a document, its MIGRATE ${mt?.status ?? "missing"}`);
      if (mt?.status === "SUPERSEDED")
        flag(
          s,
          m,
          `${d.key}: at rest the shadow space lacks v${p.version_number}, which search still serves, and its MIGRATE #${mt.task_id} was SUPERSEDED: nothing will build it`,
        );
      else if (!mt || !["DEAD", "CANCELLED", "RESOLVED"].includes(mt.status))
        violation(
          s,
          m,
          `${d.key}: at rest the shadow space ${spaceLabel(m.shadow)} does not serve v${p.version_number}${p.pinned ? " (pinned)" : ""} as search does, and its MIGRATE is ${mt ? `#${mt.task_id} ${mt.status}` : "missing"}`,
          snap.spacePtrs.get(`${shadow}|${id}`) ?? null,
        );
    }
    // Progress is counted, not estimated: the migration's view says what the snapshot says.
    const view = await getMigration(s.pool, TENANT, m.migration!.id);
    if (view.documents.total !== c.total || view.documents.built !== c.built)
      violation(
        s,
        m,
        `migration view counts ${view.documents.built}/${view.documents.total}, the shadow serves ${c.built}/${c.total}`,
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Task outcome checks, shared by work, resume, crash and pause.

function expectOutcome(
  m: Model,
  s: Sut,
  pre: Snapshot,
  lease: Lease,
  out: Outcome,
  providerFailures: number,
  label: string,
): void {
  const snap = s.snap;
  const d = m.docs.get(lease.documentId)!;
  const row = snap.tasks.get(lease.taskId)!;
  const newIvs = [...snap.ivs.values()].filter((iv) => !pre.ivs.has(iv.id));
  const p = snap.ptrs.get(d.id);
  const stale = obsolete({ task_type: lease.taskType, version_number: lease.versionNumber }, d, m, snap);
  const shadowPtr = (sn: Snapshot) =>
    m.shadow === null ? null : (sn.spacePtrs.get(`${s.spaceId(m.shadow)}|${d.id}`) ?? null);
  switch (out.kind) {
    case "completed": {
      if (stale) {
        if (row.status !== "SUPERSEDED")
          violation(
            s,
            m,
            `${label}: task #${lease.taskId} for a document that moved on ended ${row.status}, not SUPERSEDED`,
          );
        if (newIvs.length > 0) violation(s, m, `${label}: a superseded task wrote an index version`, newIvs);
        if (JSON.stringify(pre.ptrs.get(d.id) ?? null) !== JSON.stringify(p ?? null))
          violation(s, m, `${label}: a superseded task moved the pointer`);
        if (lease.taskType === "MIGRATE" && JSON.stringify(shadowPtr(pre)) !== JSON.stringify(shadowPtr(snap)))
          violation(s, m, `${label}: a superseded MIGRATE moved the shadow pointer`);
        return;
      }
      if (row.status !== "SUCCEEDED") violation(s, m, `${label}: task #${lease.taskId} completed but is ${row.status}`);
      if (lease.taskType === "MIGRATE") {
        // Built into the shadow space as it stands now, at the version and pin search serves; search untouched.
        const mine = newIvs.filter((iv) => iv.task_id === lease.taskId);
        if (mine.length !== 1 || newIvs.length !== 1)
          violation(s, m, `${label}: expected one new index version from MIGRATE #${lease.taskId}`, newIvs);
        const iv = mine[0];
        const sp = shadowPtr(snap);
        if (iv.version_number !== lease.versionNumber || iv.space_id !== s.spaceId(m.shadow!))
          violation(s, m, `${label}: MIGRATE built v${iv.version_number} in space ${iv.space_id}`, iv);
        if (sp?.index_version_id !== iv.id || sp.pinned !== p?.pinned)
          violation(s, m, `${label}: MIGRATE #${lease.taskId} succeeded but the shadow pointer says`, { sp, p });
        if (JSON.stringify(pre.ptrs.get(d.id) ?? null) !== JSON.stringify(p ?? null))
          violation(s, m, `${label}: a MIGRATE moved the search pointer`);
        return;
      }
      if (lease.taskType === "DELETE") {
        if (p) violation(s, m, `${label}: DELETE succeeded but the pointer remains`, p);
        const live = [...snap.ivs.values()].filter((iv) => iv.document_id === d.id && iv.status !== "RETIRED");
        if (live.length > 0) violation(s, m, `${label}: DELETE succeeded but index versions are not retired`, live);
        return;
      }
      const mine = newIvs.filter((iv) => iv.task_id === lease.taskId);
      if (mine.length !== 1 || newIvs.length !== 1)
        violation(s, m, `${label}: expected one new index version from task #${lease.taskId}`, newIvs);
      const iv = mine[0];
      if (iv.version_number !== lease.versionNumber)
        violation(s, m, `${label}: index version built for the wrong version`, iv);
      // Into the space the tenant searches when the build switches (a switch meanwhile: built again there).
      if (iv.space_id !== s.spaceId(m.space))
        violation(s, m, `${label}: built in space ${iv.space_id}; the tenant searches ${spaceLabel(m.space)}`, iv);
      if (d.pin === null) {
        if (p?.index_version_id !== iv.id)
          violation(
            s,
            m,
            `${label}: ${d.key} v${lease.versionNumber} (the business version) succeeded but search does not show it`,
            p ?? null,
          );
      } else if (iv.status !== "READY") {
        violation(s, m, `${label}: ${d.key} is pinned; the finished index version must stay READY, is ${iv.status}`);
      }
      return;
    }
    case "failed": {
      const v = d.versions[lease.versionNumber - 1];
      const emptyBody = lease.taskType !== "DELETE" && v?.variant === EMPTY_VARIANT;
      // An empty body with a summary: the contract does not say whether the summary alone is indexable.
      const expected = providerFailures > 0 ? "EMBEDDING_PROVIDER_UNAVAILABLE" : emptyBody ? "EMPTY_DOCUMENT" : null;
      if (out.code !== expected && !(emptyBody && out.code === "EMPTY_DOCUMENT"))
        violation(
          s,
          m,
          `${label}: task #${lease.taskId} failed with ${out.code} (${out.message}); expected ${expected ?? "no failure"}`,
        );
      const retryable = isErrorCode(out.code) && ERROR_CODES[out.code].retryable;
      const want = retryable && lease.leaseAttempt < lease.maxAttempts ? "RETRY_WAIT" : "DEAD";
      if (row.status !== want || row.error_code !== out.code)
        violation(
          s,
          m,
          `${label}: failed task #${lease.taskId} is ${row.status}/${row.error_code}, expected ${want}/${out.code}`,
        );
      if (newIvs.length > 0) violation(s, m, `${label}: a failed task wrote an index version`, newIvs);
      return;
    }
    case "lost":
    case "failed-lost":
      // Nothing else ran between this claim and this write: no one could have taken the lease.
      violation(s, m, `${label}: task #${lease.taskId} lost its lease with no contender`, out);
      break;
    case "crashed":
      if (row.status !== "RUNNING" || row.lease_owner !== lease.workerId || row.attempts !== lease.leaseAttempt)
        violation(s, m, `${label}: crashed task #${lease.taskId} should still hold its lease`, row);
      if (newIvs.length > 0) violation(s, m, `${label}: a crashed task wrote an index version`, newIvs);
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Commands.

type Cmd = fc.AsyncCommand<Model, Sut, false>;

function apiErr(e: unknown): DomainError {
  if (e instanceof DomainError) return e;
  throw e;
}

async function call<T>(f: () => Promise<T>): Promise<{ ok: T } | { err: DomainError }> {
  try {
    return { ok: await f() };
  } catch (e) {
    return { err: apiErr(e) };
  }
}

function expectErr(
  s: Sut,
  m: Model,
  label: string,
  r: { ok: unknown } | { err: DomainError },
  status: number,
  codes: string[],
): void {
  if ("ok" in r) violation(s, m, `${label}: expected ${status} ${codes.join("|")}, got success`, r.ok);
  if (statusOf(r.err) !== status || !codes.includes(r.err.code))
    violation(
      s,
      m,
      `${label}: expected ${status} ${codes.join("|")}, got ${statusOf(r.err)} ${r.err.code}: ${r.err.message}`,
    );
}

function expectOk<T>(s: Sut, m: Model, label: string, r: { ok: T } | { err: DomainError }): T {
  if ("err" in r) violation(s, m, `${label}: expected success, got ${statusOf(r.err)} ${r.err.code}: ${r.err.message}`);
  return r.ok;
}

/**
 * A key as a command names it: "k1".."k3" literally, "@i" for the i-th existing document (by
 * key) when there is one, so operator actions mostly hit documents that exist, or "@pinned".
 */
function resolveKey(m: Model, ref: string): string {
  if (ref === "@pinned") {
    const pinned = [...m.docs.values()]
      .filter((d) => d.pin !== null && !d.deleted)
      .map((d) => d.key)
      .sort();
    return pinned[0] ?? resolveKey(m, "@0");
  }
  if (!ref.startsWith("@")) return ref;
  const i = Number(ref.slice(1));
  const keys = [...m.byKey.keys()].sort();
  return keys.length > 0 ? keys[i % keys.length] : KEYS[i % KEYS.length];
}

class Publish implements Cmd {
  constructor(
    readonly key: string,
    readonly variant: number,
    readonly acl: number,
    /** Re-send the business version's exact content and ACL instead. */
    readonly same: boolean,
    readonly summary = 0,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const d = m.doc(this.key);
    const cur = d ? d.versions[d.business - 1] : undefined;
    const v: Version = this.same && cur ? cur : { variant: this.variant, acl: ACLS[this.acl], summary: this.summary };
    const r = await publish(s.pool, {
      tenant: TENANT,
      key: this.key,
      title: "Handbook",
      contentType: "text/markdown",
      content: Buffer.from(VARIANTS[v.variant]),
      acl: [...v.acl],
      abstract: SUMMARIES[v.summary]?.abstract ?? null,
      overview: SUMMARIES[v.summary]?.overview ?? null,
      actor: PUBLISHER,
      maxAttempts: MAX_ATTEMPTS,
      // Half the variants publish as bulk work (a sync's): the claim orders by class, the outcome must not change.
      priority: v.variant % 2 ? PRIORITY.BULK : PRIORITY.INTERACTIVE,
    });
    const identical =
      !!d &&
      !d.deleted &&
      !!cur &&
      cur.variant === v.variant &&
      cur.summary === v.summary &&
      [...cur.acl].sort().join() === [...v.acl].sort().join();
    s.note(
      `${this} → v${r.versionNumber} created=${r.created} task=${r.taskId}`,
      `publish ${r.created ? "created" : "unchanged"}`,
    );
    if (r.created === identical)
      violation(
        s,
        m,
        `${this}: created=${r.created} but the content is ${identical ? "" : "not "}identical to the business version`,
      );
    let doc = d;
    if (!doc) {
      doc = {
        id: r.documentId,
        key: this.key,
        business: 0,
        deleted: false,
        pin: null,
        versions: [],
        lastPointer: null,
      };
      m.docs.set(doc.id, doc);
      m.byKey.set(this.key, doc.id);
    }
    if (m.docs.size === 1 && !d) m.space = m.defaultSpace; // the tenant starts on the default space
    if (r.documentId !== doc.id)
      violation(s, m, `${this}: published into document ${r.documentId}, expected ${doc.id}`);
    if (r.created) {
      doc.versions.push(v);
      doc.business = doc.versions.length;
      doc.deleted = false;
      doc.pin = null;
    }
    if (r.versionNumber !== doc.business)
      violation(s, m, `${this}: answered v${r.versionNumber}, the model says v${doc.business}`);
    const snap = await checkStep(m, s);
    if (r.created) {
      for (const t of snap.tasks.values()) {
        // A MIGRATE of an older version stays: it is bound to what search serves, which a publish does not move.
        if (
          t.document_id === doc.id &&
          t.version_number < doc.business &&
          UNFINISHED.has(t.status) &&
          t.task_type !== "MIGRATE"
        ) {
          violation(
            s,
            m,
            `${this}: older task #${t.task_id} (${t.task_type} v${t.version_number}) still ${t.status} after a newer publish`,
          );
        }
      }
      const t = r.taskId ? snap.tasks.get(r.taskId) : undefined;
      if (!t || t.task_type !== "INDEX" || t.version_number !== doc.business || t.status !== "PENDING")
        violation(s, m, `${this}: no PENDING INDEX task for the new version`, t ?? null);
    }
  }
  toString() {
    return this.same
      ? `publishSame(${this.key})`
      : `publish(${this.key}, variant ${this.variant}, acl ${JSON.stringify(ACLS[this.acl])}${this.summary ? `, summary ${this.summary}` : ""})`;
  }
}

class Delete implements Cmd {
  constructor(readonly key: string) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const key = resolveKey(m, this.key);
    const d = m.doc(key);
    const r = await requestDelete(s.pool, TENANT, key, ACTOR.subject, MAX_ATTEMPTS);
    s.note(`${this} [${key}] → ${JSON.stringify(r)}`, `delete ${d ? (d.deleted ? "again" : "live") : "missing"}`);
    if (!d) {
      if (r !== null) violation(s, m, `${this} [${key}]: deleting a missing document answered a task`, r);
      await checkStep(m, s);
      return;
    }
    if (!r) violation(s, m, `${this} [${key}]: no task for an existing document`);
    d.deleted = true;
    const snap = await checkStep(m, s, { audit: { "document.delete": [1, 1] } });
    const t = snap.tasks.get(r.taskId);
    if (!t || t.task_type !== "DELETE" || t.document_id !== d.id || t.version_number !== d.business)
      violation(
        s,
        m,
        `${this} [${key}]: the DELETE task is not bound to the business version v${d.business}`,
        t ?? null,
      );
    // Every task gets the configured attempt budget (MAX_ATTEMPTS), a DELETE as much as an INDEX.
    if (t.attempts === 0 && t.max_attempts !== MAX_ATTEMPTS)
      flag(
        s,
        m,
        `${this} [${key}]: new DELETE task #${t.task_id} has max_attempts ${t.max_attempts}, the configured MAX_ATTEMPTS is ${MAX_ATTEMPTS}`,
      );
    for (const o of snap.tasks.values()) {
      // A MIGRATE is left to end SUPERSEDED when it runs (docs/index-spaces.md, "Against everything else").
      if (o.document_id === d.id && BUILDS_ACTIVE(o) && UNFINISHED.has(o.status))
        violation(
          s,
          m,
          `${this} [${key}]: task #${o.task_id} (${o.task_type} v${o.version_number}) still ${o.status} after the delete`,
        );
    }
  }
  toString() {
    return `delete(${this.key})`;
  }
}

class Rollback implements Cmd {
  constructor(
    readonly key: string,
    readonly pick: number,
    /** Aim at a version that has a complete build (when one exists), not at any version. */
    readonly built: boolean,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const key = resolveKey(m, this.key);
    const d = m.doc(key);
    const candidates = d
      ? [
          ...new Set(
            [...s.snap.ivs.values()]
              .filter((iv) => iv.document_id === d.id && completeIv(iv))
              .map((iv) => iv.version_number),
          ),
        ].sort((a, b) => a - b)
      : [];
    const to = d
      ? this.built && candidates.length > 0
        ? candidates[this.pick % candidates.length]
        : 1 + (this.pick % d.business)
      : 1;
    const r = await call(() => rollback(s.pool, TENANT, key, to, "model test", ACTOR, RETENTION_HOURS));
    s.note(`${this} [${key}] → v${to}: ${"ok" in r ? "ok" : r.err.code}`, `rollback ${"ok" in r ? "ok" : r.err.code}`);
    if (!d) {
      expectErr(s, m, `${this} [${key}]`, r, 404, ["NOT_FOUND"]);
      await checkStep(m, s);
      return;
    }
    if (d.deleted) {
      expectErr(s, m, `${this} [${key}]`, r, 409, ["INVALID_STATE"]);
      await checkStep(m, s);
      return;
    }
    const complete = [...s.snap.ivs.values()].filter(
      (iv) => iv.document_id === d.id && iv.version_number === to && completeIv(iv),
    );
    if (complete.some((iv) => iv.space_id === s.spaceId(m.space))) {
      expectOk(s, m, `${this} [${key}]`, r);
      d.pin = to;
      await checkStep(m, s, { audit: { "document.rollback": [1, 1] }, rolledBack: [d.id] });
    } else {
      expectErr(s, m, `${this} [${key}] to v${to}`, r, 409, [
        complete.length > 0 ? "ROLLBACK_INCOMPATIBLE" : "ROLLBACK_UNAVAILABLE",
      ]);
      await checkStep(m, s);
    }
  }
  toString() {
    return `rollback(${this.key}, ${this.built ? "built " : ""}pick ${this.pick})`;
  }
}

class Unpin implements Cmd {
  constructor(readonly key: string) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const key = resolveKey(m, this.key);
    const d = m.doc(key);
    const r = await call(() =>
      unpin(s.pool, TENANT, key, ACTOR, {
        retentionHours: RETENTION_HOURS,
        maxAttempts: MAX_ATTEMPTS,
      }),
    );
    s.note(
      `${this} [${key}] → ${"ok" in r ? JSON.stringify(r.ok) : r.err.code}`,
      `unpin ${"ok" in r ? (d?.pin != null ? "pinned" : "not pinned") : r.err.code}`,
    );
    if (!d) {
      expectErr(s, m, `${this} [${key}]`, r, 404, ["NOT_FOUND"]);
      await checkStep(m, s);
      return;
    }
    if (d.deleted) {
      // Unspecified: refusing (409) or clearing a pin nobody sees are both reasonable.
      if ("ok" in r) d.pin = null;
      else expectErr(s, m, `${this} [${key}]`, r, 409, ["INVALID_STATE"]);
      await checkStep(m, s, { audit: { "document.unpin": "ok" in r ? [1, 1] : [0, 0] } });
      return;
    }
    expectOk(s, m, `${this} [${key}]`, r);
    const wasPinned = d.pin !== null;
    d.pin = null;
    const pre = s.snap;
    const snap = await checkStep(m, s, { audit: { "document.unpin": [1, 1] } });
    // Search returns to the business version at once when a complete build of it exists;
    // otherwise the task that will build it is unfinished, DEAD (visible), or was just enqueued.
    const built = [...pre.ivs.values()].some(
      (iv) =>
        iv.document_id === d.id &&
        iv.version_number === d.business &&
        completeIv(iv) &&
        iv.space_id === s.spaceId(m.space),
    );
    const p = snap.ptrs.get(d.id);
    if (built && wasPinned && p?.version_number !== d.business)
      violation(s, m, `${this} [${key}]: a complete build of v${d.business} exists but search still shows`, p ?? null);
    if (!built && wasPinned) {
      const tasks = [...snap.tasks.values()].filter(
        (t) => t.document_id === d.id && t.version_number === d.business && BUILDS_ACTIVE(t),
      );
      if (!tasks.some((t) => ["PENDING", "RUNNING", "RETRY_WAIT", "DEAD"].includes(t.status)))
        violation(
          s,
          m,
          `${this} [${key}]: no unfinished or DEAD task of v${d.business}, and no REINDEX enqueued`,
          tasks,
        );
    }
  }
  toString() {
    return `unpin(${this.key})`;
  }
}

class Reindex implements Cmd {
  constructor(readonly key: string) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const key = resolveKey(m, this.key);
    const d = m.doc(key);
    const r = await call(() => reindex(s.pool, TENANT, key, ACTOR, MAX_ATTEMPTS));
    s.note(
      `${this} [${key}] → ${"ok" in r ? JSON.stringify(r.ok) : r.err.code}`,
      `reindex ${"ok" in r ? "ok" : r.err.code}`,
    );
    if (!d) {
      expectErr(s, m, `${this} [${key}]`, r, 404, ["NOT_FOUND"]);
      await checkStep(m, s);
      return;
    }
    if (d.deleted) {
      expectErr(s, m, `${this} [${key}]`, r, 409, ["INVALID_STATE"]);
      await checkStep(m, s);
      return;
    }
    const ok = expectOk(s, m, `${this} [${key}]`, r);
    const snap = await checkStep(m, s, { audit: { "document.reindex": [1, 1] } });
    const t = snap.tasks.get(ok.taskId);
    if (!t || t.task_type !== "REINDEX" || t.version_number !== d.business || !UNFINISHED.has(t.status))
      violation(s, m, `${this} [${key}]: no unfinished REINDEX of v${d.business}`, t ?? null);
  }
  toString() {
    return `reindex(${this.key})`;
  }
}

class Rename implements Cmd {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const from = resolveKey(m, this.from);
    const d = m.doc(from);
    const r = await call(() => rename(s.pool, TENANT, from, this.to, ACTOR));
    s.note(
      `${this} [${from}] → ${"ok" in r ? JSON.stringify(r.ok) : r.err.code}`,
      `rename ${"ok" in r ? (r.ok.renamed ? "renamed" : "no-op") : r.err.code}`,
    );
    if (!d) {
      // Only the exact rename that already happened (same document now at `to`) is a repeat.
      const repeat = m.renames.get(`${from}->${this.to}`);
      if (repeat && m.byKey.get(this.to) === repeat) {
        const ok = expectOk(s, m, `${this} [${from}] (a repeat)`, r);
        if (ok.renamed !== false) violation(s, m, `${this} [${from}]: a repeated rename renamed again`, ok);
      } else expectErr(s, m, `${this} [${from}]`, r, 404, ["NOT_FOUND"]);
      await checkStep(m, s);
      return;
    }
    if (from === this.to) {
      const ok = expectOk(s, m, `${this} [${from}]`, r);
      if (ok.renamed !== false) violation(s, m, `${this} [${from}]: renaming to the same key renamed`, ok);
      await checkStep(m, s);
      return;
    }
    if (m.byKey.has(this.to)) {
      expectErr(s, m, `${this} [${from}]`, r, 409, ["KEY_TAKEN"]);
      await checkStep(m, s);
      return;
    }
    const ok = expectOk(s, m, `${this} [${from}]`, r);
    if (ok.renamed !== true) violation(s, m, `${this} [${from}]: not renamed`, ok);
    m.byKey.delete(from);
    m.byKey.set(this.to, d.id);
    d.key = this.to;
    m.renames.set(`${from}->${this.to}`, d.id);
    await checkStep(m, s, { audit: { "document.rename": [1, 1] } });
  }
  toString() {
    return `rename(${this.from} → ${this.to})`;
  }
}

const REVIVABLE = ["DEAD", "CANCELLED"];

/** Picks a task from the last snapshot: one in `wanted` states when asked and one exists, else any (or none). */
function pickTask(s: Sut, pick: number, dead: boolean, wanted: string[] = REVIVABLE): TaskRow | null {
  const all = [...s.snap.tasks.values()];
  const pool = dead && all.some((t) => wanted.includes(t.status)) ? all.filter((t) => wanted.includes(t.status)) : all;
  return pool.length ? pool[pick % pool.length] : null;
}

class Retry implements Cmd {
  constructor(
    readonly pick: number,
    readonly dead: boolean,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const t = pickTask(s, this.pick, this.dead);
    const id = t?.task_id ?? "99999999";
    const r = await call(() => retryTask(s.pool, id, ACTOR, "model test", RETRY_BUDGET, null));
    s.note(
      `${this} → task #${id} (${t ? `${t.task_type} v${t.version_number} ${t.status}` : "none"}): ${"ok" in r ? "ok" : r.err.code}`,
      `retry ${"ok" in r ? "ok" : r.err.code}`,
    );
    if (!t) {
      expectErr(s, m, `${this}`, r, 404, ["NOT_FOUND"]);
      await checkStep(m, s);
      return;
    }
    const d = m.docs.get(t.document_id)!;
    if (!REVIVABLE.includes(t.status)) {
      expectErr(s, m, `${this} of a ${t.status} task`, r, 409, ["INVALID_STATE"]);
      await checkStep(m, s);
      return;
    }
    if (obsolete(t, d, m, s.snap)) {
      expectErr(s, m, `${this} of an obsolete ${t.task_type} v${t.version_number}`, r, 409, ["TASK_SUPERSEDED"]);
      await checkStep(m, s);
      return;
    }
    expectOk(s, m, `${this}`, r);
    const snap = await checkStep(m, s, { audit: { "task.retry": [1, 1] } });
    const after = snap.tasks.get(id)!;
    if (after.status !== "PENDING" || after.max_attempts - after.attempts !== RETRY_BUDGET)
      violation(
        s,
        m,
        `${this}: retried task is ${after.status} with ${after.max_attempts - after.attempts} attempts left`,
      );
    if (t.status === "CANCELLED" && after.error_code !== null)
      violation(s, m, `${this}: a retried cancel still shows ${after.error_code}`);
  }
  toString() {
    return `retry(${this.dead ? "dead " : ""}pick ${this.pick})`;
  }
}

class BulkRetry implements Cmd {
  constructor(readonly type: "INDEX" | "DELETE" | "MIGRATE" | null) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const dead = [...s.snap.tasks.values()].filter(
      (t) => t.status === "DEAD" && (this.type === null || t.task_type === this.type),
    );
    const revive = dead.filter((t) => !obsolete(t, m.docs.get(t.document_id)!, m, s.snap));
    const r = await bulkRetry(
      s.pool,
      { tenant: TENANT, type: this.type ?? undefined },
      ACTOR,
      "model test",
      RETRY_BUDGET,
      null,
    );
    s.note(
      `${this} → ${JSON.stringify(r)}`,
      `bulkRetry ${r.retried > 0 ? "retried" : "none"}${r.skipped > 0 ? "+skipped" : ""}`,
    );
    if (r.retried !== revive.length || r.skipped !== dead.length - revive.length) {
      violation(
        s,
        m,
        `${this}: answered ${JSON.stringify(r)}, expected retried ${revive.length}, skipped ${dead.length - revive.length}`,
      );
    }
    const snap = await checkStep(m, s, { audit: { "task.bulk_retry": [1, 1] } });
    for (const t of dead) {
      const want = revive.includes(t) ? "PENDING" : "DEAD";
      if (snap.tasks.get(t.task_id)!.status !== want)
        violation(s, m, `${this}: task #${t.task_id} is ${snap.tasks.get(t.task_id)!.status}, expected ${want}`);
    }
  }
  toString() {
    return `bulkRetry(${this.type ?? "all"})`;
  }
}

class ForceDone implements Cmd {
  constructor(
    readonly pick: number,
    readonly dead: boolean,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const t = pickTask(s, this.pick, this.dead);
    const id = t?.task_id ?? "99999999";
    const r = await call(() => forceDone(s.pool, id, ACTOR, "model test: acknowledged", null));
    s.note(
      `${this} → task #${id} (${t ? `${t.task_type} v${t.version_number} ${t.status}` : "none"}): ${"ok" in r ? "ok" : r.err.code}`,
      `forceDone ${"ok" in r ? "ok" : r.err.code}`,
    );
    if (!t) expectErr(s, m, `${this}`, r, 404, ["NOT_FOUND"]);
    else if (!REVIVABLE.includes(t.status)) expectErr(s, m, `${this} of a ${t.status} task`, r, 409, ["INVALID_STATE"]);
    else expectOk(s, m, `${this}`, r);
    const ok = !!t && REVIVABLE.includes(t.status);
    const snap = await checkStep(m, s, { audit: { "task.force_done": ok ? [1, 1] : [0, 0] } });
    if (ok && snap.tasks.get(id)!.status !== "RESOLVED")
      violation(s, m, `${this}: force-done task is ${snap.tasks.get(id)!.status}`);
  }
  toString() {
    return `forceDone(${this.dead ? "dead " : ""}pick ${this.pick})`;
  }
}

/** Operator cancel: only PENDING or RETRY_WAIT, never a DELETE; anything else is refused and changes nothing. */
class Cancel implements Cmd {
  constructor(
    readonly pick: number,
    readonly waiting: boolean,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const t = pickTask(s, this.pick, this.waiting, ["PENDING", "RETRY_WAIT"]);
    const id = t?.task_id ?? "99999999";
    const r = await call(() => cancelTask(s.pool, id, ACTOR, "model test: not wanted", null));
    s.note(
      `${this} → task #${id} (${t ? `${t.task_type} v${t.version_number} ${t.status}` : "none"}): ${"ok" in r ? "ok" : r.err.code}`,
      `cancel ${t?.task_type ?? ""} ${"ok" in r ? "ok" : r.err.code}`,
    );
    const ok = !!t && t.task_type !== "DELETE" && ["PENDING", "RETRY_WAIT"].includes(t.status);
    if (!t) expectErr(s, m, `${this}`, r, 404, ["NOT_FOUND"]);
    else if (!ok) expectErr(s, m, `${this} of a ${t.status} ${t.task_type}`, r, 409, ["TASK_NOT_CANCELLABLE"]);
    else expectOk(s, m, `${this}`, r);
    const snap = await checkStep(m, s, { audit: { "task.cancel": ok ? [1, 1] : [0, 0] } });
    if (t && snap.tasks.get(id)!.status !== (ok ? "CANCELLED" : t.status))
      violation(s, m, `${this}: task #${id} is ${snap.tasks.get(id)!.status} after the cancel`);
  }
  toString() {
    return `cancel(${this.waiting ? "waiting " : ""}pick ${this.pick})`;
  }
}

/** Operator pause of the tenant or of a task type; pausing what is paused is 409 ALREADY_PAUSED. */
class PauseQueue implements Cmd {
  constructor(readonly what: "tenant" | "INDEX" | "REINDEX" | "DELETE" | "MIGRATE") {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const target = this.what === "tenant" ? { tenant: TENANT } : { taskType: this.what };
    let r: { ok: { id: string } } | { err: DomainError };
    try {
      r = await call(() => pauseQueue(s.pool, target, ACTOR, "model test: hold", null));
    } catch (e) {
      // Anything but a DomainError is a 500 to the operator (docs/index-spaces.md: "paused by
      // pausing the tenant or the MIGRATE type").
      s.note(`${this}: threw ${(e as Error).message.slice(0, 200)}`, `pauseQueue ${this.what} threw`);
      flag(s, m, `pauseQueue(${this.what}) failed with an unclassified error`, (e as Error).message.slice(0, 300));
      await checkStep(m, s);
      return;
    }
    s.note(`${this}: ${"ok" in r ? "ok" : r.err.code}`, `pauseQueue ${"ok" in r ? "ok" : r.err.code}`);
    const was = m.holds.has(this.what);
    // The tenant row exists once anything was published; before that a tenant pause is 404.
    const known = this.what !== "tenant" || m.docs.size > 0;
    if (was) expectErr(s, m, `${this} twice`, r, 409, ["ALREADY_PAUSED"]);
    else if (!known) expectErr(s, m, `${this} of an unknown tenant`, r, 404, ["NOT_FOUND"]);
    else m.holds.set(this.what, expectOk(s, m, `${this}`, r).id);
    await checkStep(m, s, { audit: { "queue.pause": !was && known ? [1, 1] : [0, 0] } });
  }
  toString() {
    return `pauseQueue(${this.what})`;
  }
}

class ResumeQueue implements Cmd {
  constructor(readonly index: number) {}
  check(m: Model) {
    return m.holds.size > 0;
  }
  async run(m: Model, s: Sut) {
    const [what, id] = [...m.holds][this.index % m.holds.size];
    expectOk(s, m, `${this}`, await call(() => resumeQueue(s.pool, id, ACTOR, null, null)));
    m.holds.delete(what);
    s.note(`${this} → ${what}`, "resumeQueue");
    await checkStep(m, s, { audit: { "queue.resume": [1, 1] } });
  }
  toString() {
    return `resumeQueue(${this.index})`;
  }
}

/**
 * What a claim must take when it is due: the worker's claim takes every due task but MIGRATE ones
 * and every expired lease (MIGRATE ones too); its migration claim (worker/loop.ts
 * claimMigrationWork, into free slots) takes due MIGRATE tasks only.
 */
function claimable(t: TaskRow, migrate: boolean): boolean {
  const waiting = t.status === "PENDING" || t.status === "RETRY_WAIT";
  return migrate ? t.task_type === "MIGRATE" && waiting : t.task_type !== "MIGRATE" || !waiting;
}

/** A claim as a worker slot makes it: its ordinary claim, or its migration claim. */
function claimFor(s: Sut, workerId: string, limit: number, migrate: boolean): Promise<Lease[]> {
  return claim(s.pool, workerId, LEASE_SECONDS, limit, migrate ? { migrate: true } : {});
}

/** One worker step: claim one task and run it to its end (success, failure or recorded no-op). */
export async function workStep(m: Model, s: Sut, workerId: string, migrate = false): Promise<boolean> {
  const pre = s.snap;
  const what = migrate ? "workMigrate" : "work";
  const [lease] = await claimFor(s, workerId, 1, migrate);
  if (!lease) {
    s.note(`${what}(${workerId}) → nothing due`, `${what} idle`);
    const snap = await checkStep(m, s);
    const overdue = [...snap.tasks.values()].filter((t) => t.overdue && !m.held(t) && claimable(t, migrate));
    if (overdue.length > 0)
      violation(
        s,
        m,
        `${what}(${workerId}) claimed nothing though tasks are due`,
        overdue.map((t) => t.task_id),
      );
    return false;
  }
  if (m.held({ task_type: lease.taskType }))
    violation(
      s,
      m,
      `${what}(${workerId}) claimed task #${lease.taskId} (${lease.taskType}) though the queue holds it (${[...m.holds.keys()].join(", ")})`,
    );
  if (migrate && lease.taskType !== "MIGRATE")
    violation(s, m, `${what}(${workerId}) claimed a ${lease.taskType} task #${lease.taskId}`);
  if (!migrate && lease.taskType === "MIGRATE" && !lease.takenOver)
    violation(s, m, `${what}(${workerId}) claimed a due MIGRATE #${lease.taskId} into a publish slot`);
  const before = s.burst.thrown;
  const out = await s.execute(lease, s.spaces);
  s.note(
    `${what}(${workerId}) → #${lease.taskId} ${lease.taskType} v${lease.versionNumber} attempt ${lease.leaseAttempt}${lease.takenOver ? " (takeover)" : ""}: ${describe(out)}`,
  );
  await checkStep(m, s);
  s.count(
    `${what} ${lease.taskType}${lease.takenOver ? " takeover" : ""}: ${describe(out)}${out.kind === "completed" ? " → " + s.snap.tasks.get(lease.taskId)?.status : ""}`,
  );
  expectOutcome(m, s, pre, lease, out, s.burst.thrown - before, `${what}(${workerId})`);
  return true;
}

/**
 * One worker slot's batch (worker/loop.ts): claim up to three tasks and run them together
 * (executeTasks). Each task's outcome is recorded as a worker would, then checked on its own: a
 * task is judged by the index versions it wrote and its own row, whatever its siblings did.
 */
export async function workBatchStep(m: Model, s: Sut, workerId: string, migrate = false): Promise<void> {
  const pre = s.snap;
  const what = migrate ? "workMigrateBatch" : "workBatch";
  const leases = await claimFor(s, workerId, 3, migrate);
  for (const l of leases) {
    if (m.held({ task_type: l.taskType }))
      violation(s, m, `${what}(${workerId}) claimed task #${l.taskId} (${l.taskType}) though the queue holds it`);
    if (migrate !== (l.taskType === "MIGRATE") && !l.takenOver)
      violation(s, m, `${what}(${workerId}) claimed a due ${l.taskType} task #${l.taskId}`);
  }
  if (leases.length === 0) {
    s.note(`${what}(${workerId}) → nothing due`, `${what} idle`);
    await checkStep(m, s);
    return;
  }
  const before = s.burst.thrown;
  const results = await executeTasks(
    s.pool,
    s.spaces,
    leases.map((lease) => ({ lease, hooks: { signal: new AbortController().signal, progress: () => undefined } })),
    PIPELINE,
  );
  const outs: Outcome[] = [];
  for (const [i, r] of results.entries())
    outs.push(await s.outcomeOf(leases[i], r.status === "fulfilled" ? null : r.reason));
  s.note(
    `${what}(${workerId}) → ${leases.map((l, i) => `#${l.taskId} ${l.taskType} v${l.versionNumber}: ${describe(outs[i])}`).join("; ")}`,
    `${what} of ${leases.length}`,
  );
  await checkStep(m, s);
  const snap = s.snap;
  for (const [i, lease] of leases.entries()) {
    s.count(`${what} ${lease.taskType}: ${describe(outs[i])}`);
    // A sibling of the same document may move its pointer too; such a task is covered by the
    // step's invariants only.
    if (leases.some((l, j) => j !== i && l.documentId === lease.documentId)) continue;
    const others = [...snap.ivs.values()].filter((iv) => !pre.ivs.has(iv.id) && iv.task_id !== lease.taskId);
    const own = { ...pre, ivs: new Map([...pre.ivs, ...others.map((iv) => [iv.id, iv] as const)]) };
    expectOutcome(m, s, own, lease, outs[i], s.burst.thrown - before, `${what}(${workerId}) #${lease.taskId}`);
  }
}

class WorkBatch implements Cmd {
  constructor(
    readonly worker: string,
    readonly migrate = false,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    await workBatchStep(m, s, this.worker, this.migrate);
  }
  toString() {
    return `${this.migrate ? "workMigrateBatch" : "workBatch"}(${this.worker})`;
  }
}

function describe(o: Outcome): string {
  return o.kind === "failed"
    ? `failed ${o.code} → ${o.status}`
    : o.kind === "failed-lost"
      ? `failed ${o.code}, lease lost`
      : o.kind;
}

class Work implements Cmd {
  constructor(
    readonly worker: string,
    readonly migrate = false,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    await workStep(m, s, this.worker, this.migrate);
  }
  toString() {
    return `${this.migrate ? "workMigrate" : "work"}(${this.worker})`;
  }
}

/** Claim a task and stop it at its switch: "crash" drops it (lease held till it expires), "pause" keeps it for resume(). */
class Stall implements Cmd {
  constructor(
    readonly worker: string,
    readonly mode: "crash" | "pause",
    /** Pause past the lease: its lease expires at once (simulated time). */
    readonly expire: boolean,
    /** Claimed by the migration claim (a MIGRATE task). */
    readonly migrate = false,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const pre = s.snap;
    const [lease] = await claimFor(s, this.worker, 1, this.migrate);
    if (!lease) {
      s.note(`${this} → nothing due`);
      await checkStep(m, s);
      return;
    }
    const { stalled, outcome, thrown } = await s.startStalled(lease, this.mode);
    s.note(
      `${this} → #${lease.taskId} ${lease.taskType} v${lease.versionNumber} attempt ${lease.leaseAttempt}: ${stalled ? "stalled at its switch" : describe(outcome!)}`,
      `${this.mode} ${lease.taskType} ${stalled ? "stalled" : describe(outcome!)}`,
    );
    if (stalled || outcome?.kind === "crashed")
      s.held.push({ taskId: lease.taskId, workerId: lease.workerId, attempt: lease.leaseAttempt });
    if (stalled) {
      s.paused.push(stalled);
      m.paused = s.paused.length;
      if (this.expire)
        await s.pool.query(`UPDATE index_tasks SET lease_until = now() - interval '1 second' WHERE task_id = $1`, [
          lease.taskId,
        ]);
      await checkStep(m, s);
      const newIvs = [...s.snap.ivs.values()].filter((iv) => !pre.ivs.has(iv.id));
      if (newIvs.length > 0) violation(s, m, `${this}: a stalled task wrote an index version`, newIvs);
      return;
    }
    await checkStep(m, s);
    expectOutcome(m, s, pre, lease, outcome!, thrown, `${this}`);
  }
  toString() {
    const m = this.migrate ? ", migration claim" : "";
    return this.mode === "crash"
      ? `crash(${this.worker}${m})`
      : `pause(${this.worker}${this.expire ? ", past its lease" : ""}${m})`;
  }
}

/** Let a paused worker carry on into its switch transaction. */
export async function resumeStep(m: Model, s: Sut, index: number): Promise<void> {
  const [p] = s.paused.splice(index % s.paused.length, 1);
  m.paused = s.paused.length;
  const pre = s.snap;
  const row = pre.tasks.get(p.lease.taskId)!;
  const holds =
    row.status === "RUNNING" &&
    row.lease_owner === p.lease.workerId &&
    row.attempts === p.lease.leaseAttempt &&
    row.lease_live;
  // A resumed build whose tenant switched spaces meanwhile embeds again there (and may meet a burst).
  const thrownBefore = s.burst.thrown;
  p.open();
  const out = await p.done;
  s.note(
    `resume #${p.lease.taskId} (${p.lease.workerId}, attempt ${p.lease.leaseAttempt}, lease ${holds ? "held" : "gone"}) → ${describe(out)}`,
    `resume lease ${holds ? "held" : "gone"}: ${describe(out)}`,
  );
  const snap = await checkStep(m, s);
  if (holds) {
    expectOutcome(m, s, pre, p.lease, out, s.burst.thrown - thrownBefore, `resume #${p.lease.taskId}`);
    return;
  }
  // Fenced out: the late worker must have noticed and written nothing at all.
  if (out.kind !== "lost" && out.kind !== "failed-lost")
    violation(s, m, `resume #${p.lease.taskId}: a worker whose lease is gone finished with ${describe(out)}`);
  const fields = (t: TaskRow | undefined) =>
    t && [t.status, t.attempts, t.max_attempts, t.lease_owner, t.error_code].join("|");
  if (fields(snap.tasks.get(p.lease.taskId)) !== fields(row))
    violation(s, m, `resume #${p.lease.taskId}: a fenced-out worker changed its task`, {
      before: row,
      after: snap.tasks.get(p.lease.taskId),
    });
  if ([...snap.ivs.keys()].some((id) => !pre.ivs.has(id)))
    violation(s, m, `resume #${p.lease.taskId}: a fenced-out worker wrote an index version`);
  if (JSON.stringify([...snap.ptrs.entries()].sort()) !== JSON.stringify([...pre.ptrs.entries()].sort()))
    violation(s, m, `resume #${p.lease.taskId}: a fenced-out worker moved a pointer`);
}

/**
 * The scenario of a worker paused past its lease, in one command: `late` claims a task and stalls
 * at its switch, its lease expires, `other` takes the task over and runs it to its end, then the
 * late one resumes and must be fenced out.
 */
class LateWorker implements Cmd {
  constructor(
    readonly late: string,
    readonly other: string,
    /** The late one held a MIGRATE (taken over by the other's ordinary claim, as expired leases are). */
    readonly migrate = false,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const before = s.paused.length;
    await new Stall(this.late, "pause", true, this.migrate).run(m, s);
    if (s.paused.length === before) return; // nothing due, or the task ended before its switch
    await workStep(m, s, this.other);
    await resumeStep(m, s, s.paused.length - 1);
  }
  toString() {
    return `lateWorker(${this.late} paused past its lease${this.migrate ? " holding a MIGRATE" : ""}, ${this.other} takes over)`;
  }
}

/** Does the paused worker still hold its lease (per the last snapshot)? */
function stillHolds(s: Sut, lease: Lease): boolean {
  const row = s.snap.tasks.get(lease.taskId)!;
  return (
    row.status === "RUNNING" &&
    row.lease_owner === lease.workerId &&
    row.attempts === lease.leaseAttempt &&
    row.lease_live
  );
}

const taskFields = (t: TaskRow | undefined) =>
  t && [t.status, t.attempts, t.max_attempts, t.lease_owner, t.error_code].join("|");

/** A paused worker's heartbeat: it renews only while it holds the lease, and a refused renewal changes nothing. */
class Heartbeat implements Cmd {
  constructor(readonly index: number) {}
  check(m: Model) {
    return m.paused > 0;
  }
  async run(m: Model, s: Sut) {
    const p = s.paused[this.index % s.paused.length];
    const holds = stillHolds(s, p.lease);
    const before = s.snap.tasks.get(p.lease.taskId);
    let renewed = true;
    try {
      await renew(s.pool, p.lease, LEASE_SECONDS, { done: 0, total: 0 });
    } catch (e) {
      if (!(e instanceof LeaseLostError)) throw e;
      renewed = false;
    }
    s.note(
      `heartbeat #${p.lease.taskId} (${p.lease.workerId}, attempt ${p.lease.leaseAttempt}) → ${renewed ? "renewed" : "lease lost"}`,
      `heartbeat ${renewed ? "renewed" : "lost"}`,
    );
    const snap = await checkStep(m, s);
    if (renewed !== holds)
      violation(
        s,
        m,
        `heartbeat #${p.lease.taskId}: renewal ${renewed ? "accepted" : "refused"} though the lease is ${holds ? "held" : "gone"}`,
      );
    if (!renewed && taskFields(snap.tasks.get(p.lease.taskId)) !== taskFields(before))
      violation(s, m, `heartbeat #${p.lease.taskId}: a refused renewal changed the task`);
    if (renewed && !snap.tasks.get(p.lease.taskId)!.lease_live)
      violation(s, m, `heartbeat #${p.lease.taskId}: renewed, but the lease is not live`);
  }
  toString() {
    return `heartbeat(paused ${this.index})`;
  }
}

/**
 * Shutdown with the grace period over: the paused worker's task is aborted and released. A held
 * lease goes back to RETRY_WAIT with its attempt refunded (max_attempts + 1); a lost one changes nothing.
 */
class ShutdownRelease implements Cmd {
  constructor(readonly index: number) {}
  check(m: Model) {
    return m.paused > 0;
  }
  async run(m: Model, s: Sut) {
    const [p] = s.paused.splice(this.index % s.paused.length, 1);
    m.paused = s.paused.length;
    p.crash();
    await p.done;
    const holds = stillHolds(s, p.lease);
    const before = s.snap.tasks.get(p.lease.taskId)!;
    const released = await release(s.pool, p.lease);
    s.note(
      `shutdown releases #${p.lease.taskId} (${p.lease.workerId}, attempt ${p.lease.leaseAttempt}) → ${released ? "released" : "not held"}`,
      `release ${released ? "released" : "not held"}`,
    );
    const snap = await checkStep(m, s);
    const after = snap.tasks.get(p.lease.taskId)!;
    if (released !== holds)
      violation(
        s,
        m,
        `release #${p.lease.taskId}: ${released ? "released" : "refused"} though the lease is ${holds ? "held" : "gone"}`,
      );
    if (
      released &&
      (after.status !== "RETRY_WAIT" ||
        after.attempts !== before.attempts ||
        after.max_attempts !== before.max_attempts + 1 ||
        after.has_lease)
    ) {
      violation(s, m, `release #${p.lease.taskId}: expected RETRY_WAIT with the attempt refunded`, { before, after });
    }
    if (!released && taskFields(after) !== taskFields(before))
      violation(s, m, `release #${p.lease.taskId}: a refused release changed the task`);
  }
  toString() {
    return `shutdownRelease(paused ${this.index})`;
  }
}

/** Garbage collection once the retention window is over: every unreferenced READY/RETIRED index version goes, nothing else. */
class CollectGarbage implements Cmd {
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const pre = s.snap;
    const referenced = new Set([...pre.ptrs.values()].map((p) => p.index_version_id));
    const doomed = [...pre.ivs.values()].filter(
      (iv) => (iv.status === "READY" || iv.status === "RETIRED") && !referenced.has(iv.id),
    );
    const n = await collectGarbage(s.pool, 0);
    s.note(`collectGarbage(retention over) → ${n} removed`, `gc ${n > 0 ? "removed" : "nothing"}`);
    const snap = await checkStep(m, s);
    const gone = [...pre.ivs.keys()].filter((id) => !snap.ivs.has(id));
    if (
      n !== gone.length ||
      gone.sort().join() !==
        doomed
          .map((iv) => iv.id)
          .sort()
          .join()
    ) {
      violation(
        s,
        m,
        `collectGarbage removed [${gone.map((x) => x.slice(0, 8))}] (answered ${n}), expected [${doomed.map((iv) => iv.id.slice(0, 8))}]`,
      );
    }
    // The swept documents keep no vector that no record references.
    const swept = [...new Set(doomed.map((iv) => iv.document_id))];
    const orphans = (
      await s.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM chunk_vectors v WHERE v.document_id = ANY($1::uuid[]) AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.vector_id = v.id)`,
        [swept],
      )
    ).rows[0].n;
    if (orphans !== 0) violation(s, m, `collectGarbage left ${orphans} unreferenced vectors of the documents it swept`);
  }
  toString() {
    return "collectGarbage()";
  }
}

class Resume implements Cmd {
  constructor(readonly index: number) {}
  check(m: Model) {
    return m.paused > 0;
  }
  async run(m: Model, s: Sut) {
    await resumeStep(m, s, this.index);
  }
  toString() {
    return `resume(${this.index})`;
  }
}

/** Time passes: every lease expires, every wait is over (instead of sleeping). */
export async function timePasses(m: Model, s: Sut): Promise<void> {
  await s.pool.query(
    `UPDATE index_tasks SET lease_until = CASE WHEN status = 'RUNNING' THEN now() - interval '1 second' ELSE lease_until END,
                            next_attempt_at = CASE WHEN status IN ('PENDING', 'RETRY_WAIT') THEN least(next_attempt_at, now() - interval '1 second') ELSE next_attempt_at END
      WHERE status IN ('RUNNING', 'PENDING', 'RETRY_WAIT')`,
  );
  s.note("time passes (leases expire)");
  await checkStep(m, s);
}

class TimePasses implements Cmd {
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    await timePasses(m, s);
  }
  toString() {
    return "timePasses()";
  }
}

class ProviderBurst implements Cmd {
  constructor(readonly calls: number) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    s.burst.left = this.calls;
    s.note(`${this}`, "provider burst");
  }
  toString() {
    return `providerFails(next ${this.calls} calls)`;
  }
}

/**
 * The tenant moves to the other index space with nothing built there, by hand (an operator's SQL,
 * or a tenant upgraded from before index spaces with its versions in two spaces): what it serves
 * from the old one serves nothing until rebuilt (docs/decisions/039-index-spaces.md: a change of
 * the environment's settings never does this; restartWithSettings below is what it does). Never
 * while a migration is open: that is no state anything but SQL reaches.
 */
class SwitchModel implements Cmd {
  check(m: Model) {
    return !m.open;
  }
  async run(m: Model, s: Sut) {
    m.space = 1 - m.space;
    m.defaultSpace = m.space;
    await s.moveTenant(m.space);
    m.legacy = new Map([...s.snap.ptrs.values()].map((p) => [p.document_id, p.index_version_id]));
    s.note(`${this} → ${spaceLabel(m.space)}`, "switch model by hand");
    await checkStep(m, s);
  }
  toString() {
    return "moveTenantByHand()";
  }
}

/**
 * A worker starts with the embedding settings of SPACES[i] (lib/spaces/registry.ts): that space
 * becomes the default, and a tenant on the old default with no migration open gets a migration to
 * it (BUILDING, no autoSwitch, by "system"), never a move. A space nothing is loading gets its HNSW
 * index at once.
 */
class RestartWithSettings implements Cmd {
  constructor(readonly space: number) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const cfg = loadConfig({
      EMBEDDING_DIMENSIONS: String(SPACES[this.space].dims),
      MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    });
    const pre = s.snap;
    const r = await quietly(() => registerEnvironmentSpace(s.pool, cfg));
    const becomes = this.space !== m.defaultSpace;
    const migrates = becomes && m.docs.size > 0 && m.space === m.defaultSpace && !m.open;
    s.note(
      `${this} → default ${r.space.name}${r.becameDefault ? " (new)" : ""}, migrations [${r.migrationsStarted}]`,
      `restart with settings: ${becomes ? (migrates ? "migration started" : "new default") : "same"}`,
    );
    if (r.space.id !== s.spaceId(this.space) || r.created)
      violation(
        s,
        m,
        `${this}: registered space ${r.space.name} (created ${r.created}), expected ${spaceLabel(this.space)}`,
      );
    if (r.becameDefault !== becomes || r.migrationsStarted.length !== (migrates ? 1 : 0))
      violation(s, m, `${this}: becameDefault ${r.becameDefault}, ${r.migrationsStarted.length} migrations started`, {
        becomes,
        migrates,
      });
    const from = m.space;
    m.defaultSpace = this.space;
    if (m.docs.size === 0) m.space = this.space;
    if (migrates)
      m.migration = { id: r.migrationsStarted[0], from, to: this.space, state: "BUILDING", autoSwitch: false };
    // Built now unless a migration is loading the space (then at its coverage, in one bulk build).
    if (!(m.migration?.state === "BUILDING" && m.migration.to === this.space)) m.indexed[this.space] = true;
    const snap = await checkStep(m, s);
    if (migrates) expectMigrationQueued(m, s, pre, snap, "system");
  }
  toString() {
    return `restartWithSettings(${spaceLabel(this.space)})`;
  }
}

/** Runs `f` without its info lines (a start's registration, a maintenance pass's index build). */
async function quietly<T>(f: () => Promise<T>): Promise<T> {
  const level = log.level;
  log.level = "warn";
  try {
    return await f();
  } finally {
    log.level = level;
  }
}

/**
 * After a start: one PENDING MIGRATE per live document search serves, for the version it serves,
 * by `actor`, with the configured budget (docs/index-spaces.md, "What the work is").
 */
function expectMigrationQueued(m: Model, s: Sut, pre: Snapshot, snap: Snapshot, label: string): void {
  for (const p of snap.ptrs.values()) {
    const d = m.docs.get(p.document_id)!;
    if (d.deleted) continue;
    const t = [...snap.tasks.values()].find(
      (x) => x.document_id === d.id && x.task_type === "MIGRATE" && x.version_number === p.version_number,
    );
    const was = t ? pre.tasks.get(t.task_id) : undefined;
    if (!t || !UNFINISHED.has(t.status))
      violation(s, m, `${label}: no MIGRATE queued for ${d.key} v${p.version_number}`, t ?? null);
    // A new task, or a finished one started over, gets the configured budget on top of its attempts.
    if ((!was || !UNFINISHED.has(was.status)) && t.max_attempts - t.attempts !== MAX_ATTEMPTS)
      flag(
        s,
        m,
        `${label}: MIGRATE #${t.task_id} queued with ${t.max_attempts - t.attempts} attempts left, the configured MAX_ATTEMPTS is ${MAX_ATTEMPTS}`,
      );
  }
}

/** The operator starts a migration of the tenant (POST /tenants/{t}/migrations), to the other space or (refused) to its own. */
class StartMigration implements Cmd {
  constructor(
    readonly other: boolean,
    readonly autoSwitch: boolean,
  ) {}
  check(m: Model) {
    // Before the first publish there is no tenant (404): only the refused variant tries that.
    return m.docs.size > 0 || !this.other;
  }
  async run(m: Model, s: Sut) {
    const to = this.other ? 1 - m.space : m.space;
    const pre = s.snap;
    const r = await call(() =>
      startMigration(
        s.pool,
        ACTOR,
        TENANT,
        { space: SPACES[to].name, autoSwitch: this.autoSwitch, reason: "model test" },
        MAX_ATTEMPTS,
      ),
    );
    s.note(
      `${this} → ${"ok" in r ? `#${r.ok.id} ${r.ok.state} ${r.ok.documents.built}/${r.ok.documents.total}` : r.err.code}`,
      `startMigration ${"ok" in r ? "ok" : r.err.code}`,
    );
    if (m.docs.size === 0) {
      expectErr(s, m, `${this}`, r, 404, ["NOT_FOUND"]);
      await checkStep(m, s);
      return;
    }
    if (to === m.space || m.open) {
      expectErr(s, m, `${this}`, r, 409, [to === m.space ? "INVALID_STATE" : "MIGRATION_OPEN"]);
      await checkStep(m, s);
      return;
    }
    const view = expectOk(s, m, `${this}`, r);
    m.migration = { id: view.id, from: m.space, to, state: "BUILDING", autoSwitch: this.autoSwitch };
    const snap = await checkStep(m, s, { audit: { "migration.start": [1, 1] } });
    expectMigrationQueued(m, s, pre, snap, `${this}`);
    const c = coverageIn(snap, m, s.spaceId(to));
    if (view.state !== "BUILDING" || view.documents.total !== c.total || view.documents.built !== c.built)
      violation(s, m, `${this}: answered ${view.state} ${view.documents.built}/${view.documents.total}`, c);
  }
  toString() {
    return `startMigration(${this.other ? "other space" : "own space"}${this.autoSwitch ? ", autoSwitch" : ""})`;
  }
}

/**
 * The workers' maintenance pass (lib/spaces/maintenance.ts): a BUILDING migration whose shadow
 * serves every document gets its candidate's HNSW index and turns READY; one started with
 * autoSwitch then switches, if the shadow still serves everything.
 */
class AdvanceMigration implements Cmd {
  check(m: Model) {
    return m.open;
  }
  async run(m: Model, s: Sut) {
    const pre = s.snap;
    const mig = m.migration;
    let ready = false;
    let switched = false;
    if (mig?.state === "BUILDING" && covered(coverageIn(pre, m, s.spaceId(mig.to)))) ready = true;
    if (mig?.autoSwitch && (ready || mig.state === "READY") && covered(coverageIn(pre, m, s.spaceId(mig.to))))
      switched = true;
    const r = await quietly(() => advanceMigrations(s.pool, "model-maintenance", MIGRATION_SETTINGS));
    s.note(
      `${this} → ready [${r.ready}] switched [${r.switched}]`,
      `advanceMigrations: ${switched ? "auto-switched" : ready ? "ready" : mig && OPEN_STATES.includes(mig.state) ? `${mig.state} stays` : "nothing open"}`,
    );
    if (r.ready.join() !== (ready ? mig!.id : "") || r.switched.join() !== (switched ? mig!.id : ""))
      violation(s, m, `${this}: answered ${JSON.stringify(r)}, expected ready ${ready}, switched ${switched}`);
    if (ready) {
      mig!.state = "READY";
      m.indexed[mig!.to] = true;
    }
    if (switched) {
      mig!.state = "SWITCHED";
      m.space = mig!.to;
    }
    const snap = await checkStep(m, s);
    if (switched) expectSwap(m, s, pre, snap, `${this}`, mig!.from);
  }
  toString() {
    return "advanceMigrations()";
  }
}

/**
 * A switch (or switch-back) changed nothing anyone reads but the space: every document served at
 * the same version with the same pin, now from the other space's builds, and the space left
 * behind keeps exactly what search served (switch), or nothing (switch-back).
 */
function expectSwap(m: Model, s: Sut, pre: Snapshot, snap: Snapshot, label: string, keptSpace: number | null): void {
  const fields = (p: PtrRow | undefined) => (p ? `v${p.version_number}${p.pinned ? " pinned" : ""}` : "none");
  for (const d of m.docs.values()) {
    const a = pre.ptrs.get(d.id);
    const b = snap.ptrs.get(d.id);
    // A deleted document's pointer (its DELETE still to run) may go with the swap, as the DELETE would take it.
    if (d.deleted && !b) continue;
    if (fields(a) !== fields(b))
      violation(s, m, `${label}: ${d.key} was served as ${fields(a)}, after the switch as ${fields(b)}`);
    // (A deleted document's pointer, its DELETE still to run, is checkSpaces' to flag.)
    if (b && !d.deleted && snap.ivs.get(b.index_version_id)?.space_id !== s.spaceId(m.space))
      violation(s, m, `${label}: ${d.key} is served from space ${snap.ivs.get(b.index_version_id)?.space_id}`, b);
    if (keptSpace !== null && a && !d.deleted) {
      const kept = snap.spacePtrs.get(`${s.spaceId(keptSpace)}|${d.id}`);
      if (pre.ivs.get(a.index_version_id)?.space_id === s.spaceId(keptSpace)) {
        if (kept?.index_version_id !== a.index_version_id || kept.pinned !== a.pinned)
          violation(s, m, `${label}: ${d.key}'s previous pointer was not kept as the previous space's`, { a, kept });
      } else {
        // A pointer of yet another space (moved by hand) is no build of the previous space: the
        // previous space lacks the document, and its MIGRATE is queued to build it there.
        const mt = [...snap.tasks.values()].find(
          (t) => t.document_id === d.id && t.task_type === "MIGRATE" && t.version_number === a.version_number,
        );
        if (kept || !mt || !UNFINISHED.has(mt.status))
          violation(s, m, `${label}: ${d.key} was served from another space; the previous space should build it`, {
            a,
            kept,
            mt,
          });
      }
    }
  }
  if (keptSpace === null && snap.spacePtrs.size > 0)
    violation(s, m, `${label}: shadow pointers remain after the migration ended`, [...snap.spacePtrs.values()]);
}

/**
 * The migration catches up and the operator acts at once: migration work until none is due (as
 * free slots would take it), a maintenance pass, then a switch or a switch-back; every step is
 * checked on its own. Without it a switch rarely finds coverage within 25 random commands.
 */
class CatchUpAndAct implements Cmd {
  constructor(
    /** After the switch: switch back (or finish). */
    readonly back: boolean,
    readonly worker: string,
  ) {}
  check(m: Model) {
    return m.open;
  }
  async run(m: Model, s: Sut) {
    for (let i = 0; i < 12 && (await workStep(m, s, this.worker, true)); i++);
    if (m.open) await new AdvanceMigration().run(m, s);
    const action = m.migration?.state !== "SWITCHED" ? "switch" : this.back ? "switch-back" : "finish";
    await new ActOnMigration(action, true).run(m, s);
  }
  toString() {
    return `catchUpAnd(${this.back ? "switch, or back" : "switch, or finish"}, ${this.worker})`;
  }
}

/** The operator's next step for the migration as it stands: switch or abort before the switch, switch back or finish after. */
class NextMigrationStep implements Cmd {
  constructor(readonly pick: number) {}
  check(m: Model) {
    return m.open;
  }
  async run(m: Model, s: Sut) {
    const options: MigrationAction[] =
      m.migration!.state === "SWITCHED" ? ["switch-back", "switch-back", "finish"] : ["switch", "switch", "abort"];
    await new ActOnMigration(options[this.pick % options.length], true).run(m, s);
  }
  toString() {
    return `nextMigrationStep(pick ${this.pick})`;
  }
}

/** switch | switch-back | abort | finish of the tenant's latest migration (or, unaimed, of one that does not exist). */
class ActOnMigration implements Cmd {
  constructor(
    readonly action: MigrationAction,
    readonly aimed: boolean,
  ) {}
  check(m: Model) {
    return !this.aimed || m.migration !== null;
  }
  async run(m: Model, s: Sut) {
    const pre = s.snap;
    const mig = this.aimed ? m.migration : null;
    const id = mig?.id ?? "987654321";
    const r = await call(() => actOnMigration(s.pool, ACTOR, TENANT, id, this.action, "model test"));
    s.note(
      `${this} → #${id} ${"ok" in r ? r.ok.state : r.err.code}`,
      `${this.action} ${"ok" in r ? "ok" : r.err.code}`,
    );
    const done = () => checkStep(m, s);
    if (!mig) {
      expectErr(s, m, `${this}`, r, 404, ["NOT_FOUND"]);
      await done();
      return;
    }
    const allowed: Record<MigrationAction, MigrationState[]> = {
      switch: ["BUILDING", "READY"],
      "switch-back": ["SWITCHED"],
      abort: ["BUILDING", "READY"],
      finish: ["SWITCHED"],
    };
    if (!allowed[this.action].includes(mig.state)) {
      expectErr(s, m, `${this} of a ${mig.state} migration`, r, 409, ["INVALID_STATE"]);
      await done();
      return;
    }
    // A switch needs the candidate's index and full coverage; a switch-back, the previous space's coverage.
    const target = this.action === "switch" ? mig.to : mig.from;
    const c = coverageIn(pre, m, s.spaceId(target));
    const ready =
      this.action === "switch" ? m.indexed[mig.to] && covered(c) : this.action === "switch-back" ? covered(c) : true;
    if (!ready) {
      expectErr(
        s,
        m,
        `${this} (${c.built}/${c.total}, ${c.unverified} unverified, indexed ${m.indexed[mig.to]})`,
        r,
        409,
        ["MIGRATION_NOT_READY"],
      );
      await done();
      return;
    }
    const view = expectOk(s, m, `${this}`, r);
    const next: Record<MigrationAction, MigrationState> = {
      switch: "SWITCHED",
      "switch-back": "SWITCHED_BACK",
      abort: "ABORTED",
      finish: "FINISHED",
    };
    mig.state = next[this.action];
    if (this.action === "switch") m.space = mig.to;
    if (this.action === "switch-back") m.space = mig.from;
    if (view.state !== mig.state) violation(s, m, `${this}: answered ${view.state}, expected ${mig.state}`);
    const shadowBefore = [...pre.spacePtrs.values()].map((p) => p.index_version_id);
    const snap = await checkStep(m, s, { audit: { [`migration.${this.action.replace("-", "_")}`]: [1, 1] } });
    if (this.action === "switch") expectSwap(m, s, pre, snap, `${this}`, mig.from);
    else if (this.action === "switch-back") expectSwap(m, s, pre, snap, `${this}`, null);
    else {
      // Search untouched; the dropped shadow's builds age out, its queued work is superseded.
      if (JSON.stringify([...snap.ptrs.entries()].sort()) !== JSON.stringify([...pre.ptrs.entries()].sort()))
        violation(s, m, `${this}: search pointers moved`);
      if (snap.spacePtrs.size > 0) violation(s, m, `${this}: shadow pointers remain`, [...snap.spacePtrs.values()]);
      for (const id of shadowBefore)
        if (snap.ivs.get(id) && snap.ivs.get(id)!.status !== "RETIRED")
          violation(s, m, `${this}: the dropped shadow's index version ${id} is ${snap.ivs.get(id)!.status}`);
    }
    if (this.action !== "switch") {
      const queued = [...snap.tasks.values()].filter(
        (t) => t.task_type === "MIGRATE" && (t.status === "PENDING" || t.status === "RETRY_WAIT"),
      );
      if (queued.length > 0)
        violation(
          s,
          m,
          `${this}: MIGRATE work still queued after the migration ended`,
          queued.map((t) => t.task_id),
        );
    }
  }
  toString() {
    return `${this.action}(${this.aimed ? "latest migration" : "a migration that does not exist"})`;
  }
}

/** Quiescence: resume every paused worker, let leases expire, drain, then check the at-rest rules. */
export async function settle(m: Model, s: Sut): Promise<void> {
  while (s.paused.length > 0) await resumeStep(m, s, 0);
  for (const [what, id] of [...m.holds]) {
    await resumeQueue(s.pool, id, ACTOR, "settle", null);
    m.holds.delete(what);
    s.note(`resumeQueue(${what}) before settling`);
    await checkStep(m, s, { audit: { "queue.resume": [1, 1] } });
  }
  await timePasses(m, s);
  // Publishes first, migration work in the slots they leave free: until neither claim finds work.
  for (let i = 0, idle = 0; idle < 2; i++) {
    if (i > 300) violation(s, m, "the queue did not drain within 300 worker steps");
    const migrate = i % 2 === 1;
    if (await workStep(m, s, "settler", migrate)) idle = 0;
    else idle++;
  }
  s.note("at rest", "settle");
  await checkAtRest(m, s);
}

class Settle implements Cmd {
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    await settle(m, s);
  }
  toString() {
    return "settle()";
  }
}

// ---------------------------------------------------------------------------------------------
// Opt-in concurrency (MODEL_RACE=1): a few operations at once on the shared pool. The outcome
// depends on how PostgreSQL interleaves them, so the model accepts any serial order: it checks
// that each operation either worked or was refused with an expected code (never a deadlock, a
// serialization failure or an unclassified error), resyncs what was published, and then the
// general invariants must hold as after any step. Not in the default run: a race does not replay.

type RaceOp =
  | { kind: "publish"; key: string; variant: number; acl: number }
  | { kind: "delete" | "unpin" | "reindex"; key: string }
  | { kind: "rollback"; key: string; pick: number }
  | { kind: "work"; worker: string }
  | { kind: "resume" }
  | { kind: "gc" }
  | { kind: "bulkRetry" }
  | { kind: "retry"; pick: number }
  | { kind: "workMigrate"; worker: string }
  | { kind: "migration"; action: MigrationAction }
  | { kind: "advance" };

const RACE_REFUSALS = new Set([
  "NOT_FOUND",
  "INVALID_STATE",
  "ROLLBACK_UNAVAILABLE",
  "ROLLBACK_INCOMPATIBLE",
  "TASK_SUPERSEDED",
  "MIGRATION_NOT_READY",
]);

function raceOpString(o: RaceOp): string {
  switch (o.kind) {
    case "publish":
      return `publish(${o.key}, variant ${o.variant}, acl ${JSON.stringify(ACLS[o.acl])})`;
    case "rollback":
      return `rollback(${o.key}, pick ${o.pick})`;
    case "work":
      return `work(${o.worker})`;
    case "resume":
      return "resume()";
    case "gc":
      return "collectGarbage()";
    case "bulkRetry":
      return "bulkRetry(all)";
    case "retry":
      return `retry(dead pick ${o.pick})`;
    case "workMigrate":
      return `workMigrate(${o.worker})`;
    case "migration":
      return `${o.action}(latest migration)`;
    case "advance":
      return "advanceMigrations()";
    default:
      return `${o.kind}(${o.key})`;
  }
}

class Race implements Cmd {
  constructor(readonly ops: RaceOp[]) {}
  check() {
    return true;
  }
  async run(m: Model, s: Sut) {
    const audit: Record<string, [number, number]> = {};
    const bump = (a: string) => {
      const n = (audit[a]?.[0] ?? 0) + 1;
      audit[a] = [n, n];
    };
    const rolledBack: string[] = [];
    const published = new Map<string, Version[]>();
    const keys = this.ops.map((o) => ("key" in o ? resolveKey(m, o.key) : ""));
    const mig = m.migration;
    const paused = this.ops
      .filter((o) => o.kind === "resume")
      .map(() => s.paused.shift())
      .filter((p): p is Paused => !!p);
    m.paused = s.paused.length;
    s.note(`${this} starts`);
    // allSettled: every operation ends before anything is judged, so none leaks into the next step.
    const settled = await Promise.allSettled(
      this.ops.map(async (o, i): Promise<string> => {
        const key = keys[i];
        try {
          switch (o.kind) {
            case "publish": {
              const v: Version = { variant: o.variant, acl: ACLS[o.acl], summary: 0 };
              published.set(key, [...(published.get(key) ?? []), v]);
              const r = await publish(s.pool, {
                tenant: TENANT,
                key,
                title: "Handbook",
                contentType: "text/markdown",
                content: Buffer.from(VARIANTS[v.variant]),
                acl: [...v.acl],
                abstract: null,
                overview: null,
                actor: PUBLISHER,
                maxAttempts: MAX_ATTEMPTS,
              });
              return `v${r.versionNumber} created=${r.created}`;
            }
            case "delete": {
              const r = await requestDelete(s.pool, TENANT, key, ACTOR.subject, MAX_ATTEMPTS);
              if (r) bump("document.delete");
              return r ? `task ${r.taskId}` : "missing";
            }
            case "rollback": {
              const d = m.doc(key);
              const to = d ? 1 + (o.pick % d.business) : 1;
              await rollback(s.pool, TENANT, key, to, "model race", ACTOR, RETENTION_HOURS);
              bump("document.rollback");
              if (d) rolledBack.push(d.id);
              return `ok v${to}`;
            }
            case "unpin":
              await unpin(s.pool, TENANT, key, ACTOR, {
                retentionHours: RETENTION_HOURS,
                maxAttempts: MAX_ATTEMPTS,
              });
              bump("document.unpin");
              return "ok";
            case "reindex":
              await reindex(s.pool, TENANT, key, ACTOR, MAX_ATTEMPTS);
              bump("document.reindex");
              return "ok";
            case "workMigrate":
            case "work": {
              const [lease] = await claimFor(s, o.worker, 1, o.kind === "workMigrate");
              if (!lease) return "nothing due";
              const out = await s.execute(lease, s.spaces);
              if (
                out.kind === "failed" &&
                out.code !== "EMBEDDING_PROVIDER_UNAVAILABLE" &&
                out.code !== "EMPTY_DOCUMENT"
              ) {
                violation(s, m, `race: task #${lease.taskId} failed with ${out.code} under concurrency`, out.message);
              }
              return `#${lease.taskId} ${lease.taskType} v${lease.versionNumber}: ${describe(out)}`;
            }
            case "gc":
              return `${await collectGarbage(s.pool, 0)} removed`;
            case "migration": {
              if (!mig) return "no migration";
              const v = await actOnMigration(s.pool, ACTOR, TENANT, mig.id, o.action, "model race");
              bump(`migration.${o.action.replace("-", "_")}`);
              return v.state;
            }
            case "advance": {
              const r = await quietly(() => advanceMigrations(s.pool, "model-race", MIGRATION_SETTINGS));
              return JSON.stringify(r);
            }
            case "bulkRetry": {
              const r = await bulkRetry(s.pool, { tenant: TENANT }, ACTOR, "model race", RETRY_BUDGET, null);
              bump("task.bulk_retry");
              return JSON.stringify(r);
            }
            case "retry": {
              const t = pickTask(s, o.pick, true);
              if (!t) return "no task";
              await retryTask(s.pool, t.task_id, ACTOR, "model race", RETRY_BUDGET, null);
              bump("task.retry");
              return `#${t.task_id} ok`;
            }
            case "resume": {
              const p = paused.shift();
              if (!p) return "nothing paused";
              p.open();
              const out = await p.done;
              if (
                out.kind === "failed" &&
                out.code !== "EMBEDDING_PROVIDER_UNAVAILABLE" &&
                out.code !== "EMPTY_DOCUMENT"
              ) {
                violation(
                  s,
                  m,
                  `race: resumed task #${p.lease.taskId} failed with ${out.code} under concurrency`,
                  out.message,
                );
              }
              return `#${p.lease.taskId}: ${describe(out)}`;
            }
          }
        } catch (e) {
          if (e instanceof DomainError && RACE_REFUSALS.has(e.code)) return e.code;
          if (e instanceof Violation || e instanceof RelaxedStop) throw e;
          violation(s, m, `race: ${raceOpString(o)} failed under concurrency: ${(e as Error).message}`, {
            code: (e as { code?: string }).code,
          });
        }
      }),
    );
    const failure = settled.find((r) => r.status === "rejected");
    if (failure) throw failure.reason;
    const results = settled.map((r) => (r as PromiseFulfilledResult<string>).value);
    s.note(
      `${this} → ${results.map((r, i) => `${raceOpString(this.ops[i])}${keys[i] && this.ops[i].kind !== "publish" ? ` [${keys[i]}]` : ""}: ${r}`).join("; ")}`,
      `race`,
    );
    for (const [i, o] of this.ops.entries()) if (o.kind === "migration") s.count(`race ${o.action}: ${results[i]}`);

    // Resync the model with what the race made of the documents, within what it could make.
    const rows = (
      await s.pool.query<{
        id: string;
        key: string;
        business_version: number;
        deleted: boolean;
        pinned: number | null;
        versions: { n: number; content: string; acl: string[] }[];
      }>(
        `SELECT d.id::text, d.key, d.business_version, d.deleted_at IS NOT NULL AS deleted,
                (SELECT sp.version_number FROM search_pointers sp WHERE sp.document_id = d.id AND sp.pinned) AS pinned,
                (SELECT json_agg(json_build_object('n', v.version_number, 'content', convert_from(v.content, 'UTF8'), 'acl', v.acl) ORDER BY v.version_number)
                   FROM document_versions v WHERE v.document_id = d.id) AS versions
           FROM documents d`,
      )
    ).rows;
    for (const r of rows) {
      let d = m.docs.get(r.id);
      if (!d) {
        d = { id: r.id, key: r.key, business: 0, deleted: false, pin: null, versions: [], lastPointer: null };
        m.docs.set(d.id, d);
        m.byKey.set(r.key, d.id);
      }
      const touched = (kinds: string[]) => this.ops.some((o, i) => kinds.includes(o.kind) && keys[i] === d.key);
      for (const v of r.versions ?? []) {
        if (v.n <= d.business) continue;
        const match = (published.get(d.key) ?? []).find(
          (p) => VARIANTS[p.variant] === v.content && [...p.acl].sort().join() === [...v.acl].sort().join(),
        );
        if (!match) violation(s, m, `race: ${d.key} v${v.n} holds content nobody published`, v);
        d.versions.push(match);
      }
      if (r.business_version !== d.versions.length)
        violation(s, m, `race: ${d.key} business v${r.business_version} with ${d.versions.length} versions`);
      const newVersion = r.business_version > d.business;
      d.business = r.business_version;
      if (r.deleted !== d.deleted && !(r.deleted ? touched(["delete"]) : newVersion))
        violation(s, m, `race: ${d.key} deleted=${r.deleted} though nothing in the race could do that`);
      d.deleted = r.deleted;
      if (!d.deleted && r.pinned !== d.pin) {
        if (r.pinned !== null ? !touched(["rollback"]) : !(touched(["unpin"]) || newVersion))
          violation(s, m, `race: ${d.key} pin ${d.pin} → ${r.pinned} though nothing in the race could do that`);
        d.pin = r.pinned;
      }
    }
    // And with what it made of the migration: a state and an active space only its own operations could reach.
    if (mig) {
      const [row] = (
        await s.pool.query<{ state: MigrationState; active: number }>(
          `SELECT m.state, t.active_space_id AS active FROM space_migrations m JOIN tenants t ON t.id = m.tenant_id WHERE m.id = $1::bigint`,
          [mig.id],
        )
      ).rows;
      if (row.state !== mig.state) {
        const by = (a: MigrationAction) => this.ops.some((o) => o.kind === "migration" && o.action === a);
        const advanced = this.ops.some((o) => o.kind === "advance");
        const reachable: Record<string, boolean> = {
          READY: advanced && mig.state === "BUILDING",
          SWITCHED: by("switch") || (advanced && mig.autoSwitch),
          SWITCHED_BACK: by("switch-back"),
          ABORTED: by("abort"),
          FINISHED: by("finish"),
        };
        if (!reachable[row.state])
          violation(s, m, `race: migration ${mig.state} → ${row.state} though nothing in the race could do that`);
        if (row.state !== "ABORTED" && row.state !== "SWITCHED_BACK" && mig.state === "BUILDING" && advanced)
          m.indexed[mig.to] = true;
        mig.state = row.state;
      }
      m.space = s.spaceIndex(row.active);
    }
    await checkStep(m, s, { audit, rolledBack });
  }
  toString() {
    return `race(${this.ops.map(raceOpString).join(" ‖ ")})`;
  }
}

const raceOp: fc.Arbitrary<RaceOp> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom<string>(...KEYS.slice(0, 2)),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: ACLS.length - 1 }),
      )
      .map(([key, variant, acl]) => ({ kind: "publish" as const, key, variant, acl })),
  },
  { weight: 4, arbitrary: fc.constantFrom("w1", "w2").map((worker) => ({ kind: "work" as const, worker })) },
  { weight: 1, arbitrary: fc.constantFrom("@0", "@1").map((key) => ({ kind: "delete" as const, key })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("@0", "@1"), fc.nat(5))
      .map(([key, pick]) => ({ kind: "rollback" as const, key, pick })),
  },
  { weight: 1, arbitrary: fc.constantFrom("@0", "@1", "@pinned").map((key) => ({ kind: "unpin" as const, key })) },
  { weight: 1, arbitrary: fc.constantFrom("@0", "@1").map((key) => ({ kind: "reindex" as const, key })) },
  { weight: 2, arbitrary: fc.constant({ kind: "resume" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "gc" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "bulkRetry" as const }) },
  { weight: 1, arbitrary: fc.nat(7).map((pick) => ({ kind: "retry" as const, pick })) },
  // A switch racing the builds, unpins and rollbacks that point search at a version (the space lock).
  ...(MIGRATIONS
    ? [
        {
          weight: 3,
          arbitrary: fc.constantFrom("w1", "w2").map((worker) => ({ kind: "workMigrate" as const, worker })),
        },
        {
          weight: 3,
          arbitrary: fc
            .constantFrom<MigrationAction>("switch", "switch", "switch-back", "abort", "finish")
            .map((action) => ({ kind: "migration" as const, action })),
        },
        { weight: 1, arbitrary: fc.constant({ kind: "advance" as const }) },
      ]
    : []),
);

// ---------------------------------------------------------------------------------------------
// Command arbitraries, weighted towards publishing and working so that tasks actually run.

// Mostly two keys, so operations collide on the same documents; the third is mainly a rename target.
const key = fc.oneof(
  { weight: 3, arbitrary: fc.constant(KEYS[0]) },
  { weight: 2, arbitrary: fc.constant(KEYS[1]) },
  { weight: 1, arbitrary: fc.constant(KEYS[2]) },
);
const worker = fc.constantFrom("w1", "w2");
/** For operator actions: mostly an existing document, sometimes any key (missing ones answer 404). */
const target = fc.oneof({ weight: 3, arbitrary: fc.constantFrom("@0", "@1", "@2") }, { weight: 1, arbitrary: key });

const migrationCommands: { weight: number; arbitrary: fc.Arbitrary<Cmd> }[] = [
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
        fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      )
      .map(([other, auto]) => new StartMigration(other, auto)),
  },
  { weight: 5, arbitrary: worker.map((w) => new Work(w, true)) },
  { weight: 2, arbitrary: worker.map((w) => new WorkBatch(w, true)) },
  { weight: 1, arbitrary: worker.map((w) => new Stall(w, "crash", false, true)) },
  { weight: 1, arbitrary: fc.tuple(worker, fc.boolean()).map(([w, e]) => new Stall(w, "pause", e, true)) },
  { weight: 1, arbitrary: fc.tuple(worker, worker).map(([a, b]) => new LateWorker(a, b, true)) },
  { weight: 4, arbitrary: fc.constant(new AdvanceMigration()) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
        worker,
      )
      .map(([back, w]) => new CatchUpAndAct(back, w)),
  },
  { weight: 5, arbitrary: fc.nat(5).map((p) => new NextMigrationStep(p)) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom<MigrationAction>("switch", "switch-back", "abort", "finish")
      .map((a) => new ActOnMigration(a, true)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<MigrationAction>("switch", "switch-back", "abort", "finish")
      .map((a) => new ActOnMigration(a, false)),
  },
  { weight: 1, arbitrary: fc.nat(1).map((i) => new RestartWithSettings(i)) },
];

export const commandArbitrary: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 6, arbitrary: worker.map((w) => new Work(w)) },
  { weight: 3, arbitrary: worker.map((w) => new WorkBatch(w)) },
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        key,
        fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: 0, max: 3 }) },
          { weight: 1, arbitrary: fc.constant(EMPTY_VARIANT) },
        ),
        fc.integer({ min: 0, max: ACLS.length - 1 }),
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(0) },
          { weight: 1, arbitrary: fc.integer({ min: 1, max: SUMMARIES.length - 1 }) },
        ),
      )
      .map(([k, v, a, sm]) => new Publish(k, v, a, false, sm)),
  },
  { weight: 1, arbitrary: key.map((k) => new Publish(k, 0, 0, true)) },
  { weight: 2, arbitrary: target.map((k) => new Delete(k)) },
  { weight: 2, arbitrary: fc.tuple(target, fc.nat(5), fc.boolean()).map(([k, p, b]) => new Rollback(k, p, b)) },
  { weight: 2, arbitrary: fc.oneof(target, fc.constant("@pinned")).map((k) => new Unpin(k)) },
  { weight: 1, arbitrary: target.map((k) => new Reindex(k)) },
  { weight: 1, arbitrary: fc.tuple(target, key).map(([a, b]) => new Rename(a, b)) },
  // Mostly aimed at DEAD tasks (when there are any); sometimes at any task, to see the refusals.
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.nat(7),
        fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      )
      .map(([p, d]) => new Retry(p, d)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<"INDEX" | "DELETE" | "MIGRATE" | null>(null, "INDEX", "DELETE", "MIGRATE")
      .map((t) => new BulkRetry(t)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.nat(7),
        fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      )
      .map(([p, d]) => new ForceDone(p, d)),
  },
  // Mostly aimed at waiting tasks; sometimes at any, to see the refusals (RUNNING, finished, DELETE).
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.nat(7),
        fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      )
      .map(([p, w]) => new Cancel(p, w)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<"tenant" | "INDEX" | "REINDEX" | "DELETE" | "MIGRATE">(
        "tenant",
        "tenant",
        "INDEX",
        "DELETE",
        "REINDEX",
        "MIGRATE",
      )
      .map((w) => new PauseQueue(w)),
  },
  { weight: 2, arbitrary: fc.nat(3).map((i) => new ResumeQueue(i)) },
  { weight: 2, arbitrary: worker.map((w) => new Stall(w, "crash", false)) },
  { weight: 1, arbitrary: fc.tuple(worker, worker).map(([a, b]) => new LateWorker(a, b)) },
  { weight: 3, arbitrary: fc.tuple(worker, fc.boolean()).map(([w, e]) => new Stall(w, "pause", e)) },
  { weight: 2, arbitrary: fc.nat(3).map((i) => new Resume(i)) },
  { weight: 2, arbitrary: fc.nat(3).map((i) => new Heartbeat(i)) },
  { weight: 2, arbitrary: fc.nat(3).map((i) => new ShutdownRelease(i)) },
  { weight: 1, arbitrary: fc.constant(new CollectGarbage()) },
  { weight: 2, arbitrary: fc.constant(new TimePasses()) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 8 }).map((k) => new ProviderBurst(k)) },
  { weight: 2, arbitrary: fc.constant(new SwitchModel()) },
  { weight: 2, arbitrary: fc.constant(new Settle()) },
  // Index-space migrations (docs/index-spaces.md), interleaved with everything above.
  ...(MIGRATIONS ? migrationCommands : []),
  ...(process.env.MODEL_RACE
    ? [{ weight: 8, arbitrary: fc.array(raceOp, { minLength: 2, maxLength: 3 }).map((ops) => new Race(ops)) }]
    : []),
);

/** One sequence: reset, run the commands, settle, check the at-rest rules. */
export async function runSequence(s: Sut, cmds: Iterable<Cmd>): Promise<void> {
  await s.abandon();
  s.held.length = 0;
  s.trace.length = 0;
  s.resetStepCounter();
  s.burst.left = 0;
  await s.reset();
  const m = new Model();
  try {
    await fc.asyncModelRun(() => Promise.resolve({ model: m, real: s }), cmds);
    // A provider burst still running carries into the drain: whatever it kills must show as DEAD.
    await settle(m, s);
  } catch (e) {
    if (!(e instanceof RelaxedStop)) throw e;
  }
}
