import "server-only";
import type pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "../generated/prisma/client";
import { getPool, type Queryable, type Statement } from "./pool";
import { outsideActiveSpaceArm, SPACES_OFF_TENANTS_SQL, type SpaceOffTenants } from "../documents/state";

// The dashboard's data layer: lists, details, admin, audit and operator actions go through Prisma
// in lib/**/repository.ts. The task engine's hot path stays in lib/queue/sql.ts (raw pg), and the
// statements it shares with the actions (document lock, pointer moves, supersede, notify) run here
// through the transaction's connection with the text written there: one statement, one place.

export { Prisma };
export type Tx = Prisma.TransactionClient;

/**
 * pg waits for a pooled connection and for row locks without limit; a Prisma transaction gives
 * up after 2 s / 5 s by default. An action queued behind a long switch or a bulk retry over many
 * documents must not be cut off where it was not before, so both limits are out of reach (the
 * largest delay a Node timer takes): the database's own timeouts stay the only bounds.
 */
const NO_LIMIT_MS = 2_147_483_647;

// One client per pg pool: the adapter borrows the pool the rest of the process uses (lib/db/pool.ts
// getPool, lib/server.ts db()), so a web process keeps one pool. A WeakMap lets a closed pool go.
const clients = new WeakMap<pg.Pool, PrismaClient>();

/** Prisma Client over `pool`, by default the process's shared pool for DATABASE_URL. */
export function prisma(pool: pg.Pool = getPool()): PrismaClient {
  let client = clients.get(pool);
  if (!client) {
    const adapter = new PrismaPg(pool);
    // The adapter borrows a pool only if it is an instance of the pg it imports itself; given one
    // from a second copy of pg it would quietly open a pool of its own. Refuse instead.
    if ((adapter as unknown as { externalPool: unknown }).externalPool !== pool)
      throw new Error("Prisma's pg adapter did not take the shared pool (two copies of the pg package?)");
    client = new PrismaClient({ adapter, transactionOptions: { maxWait: NO_LIMIT_MS, timeout: NO_LIMIT_MS } });
    clients.set(pool, client);
  }
  return client;
}

/**
 * Whether the database answers on the process's pool (the health check). Asked of the pool itself,
 * which Prisma runs on too: the answer is the same, and a failure reads as the driver says it
 * ("connect ECONNREFUSED …") rather than wrapped in a Prisma invocation report.
 */
export async function ping(pool: pg.Pool = getPool()): Promise<void> {
  await pool.query("SELECT 1");
}

/** One interactive transaction on one connection of `pool`; a throw rolls it back. */
export function transaction<T>(pool: pg.Pool, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return prisma(pool).$transaction(fn);
}

/**
 * The transaction as the `Queryable` that the shared statement helpers take (lib/pipeline/pointer.ts,
 * lib/queue/engine.ts): each statement's text and values go to Postgres unchanged. Rows come back
 * typed by Prisma (int8 as bigint), so only helpers that read text, int and timestamp columns, or
 * none, are called through it; rowCount is the number of rows returned.
 */
export function asQueryable(tx: Tx): Queryable {
  const query = async (text: string, values: unknown[] = []) => {
    const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(text, ...values);
    return { rows, rowCount: rows.length };
  };
  return { query } as unknown as Queryable;
}

/** A shared statement whose result is not read (pg_notify returns `void`, which Prisma cannot type). */
export async function execute(tx: Tx, stmt: Statement): Promise<number> {
  return tx.$executeRawUnsafe(stmt.text, ...stmt.values);
}

/** A shared statement's rows. */
export async function queryRows<T>(tx: Tx, stmt: Statement): Promise<T[]> {
  return tx.$queryRawUnsafe<T[]>(stmt.text, ...stmt.values);
}

/**
 * The search pointers (document_id, tenant_id) that name an index version outside their tenant's
 * active space, among `tenants` (null: every tenant): search reads only the active space, so these
 * serve nothing. A subquery built in two steps: the spaces some of the tenants are not on, with
 * those tenants (a few rows), then one arm per such space (outsideActiveSpaceArm), planned with
 * them as values. With every tenant on one space the arms are one probe of the (model,
 * dimensions) index per other registered space; with tenants on several, an arm reads the
 * pointers of the tenants off its space or that space's versions, whichever the tenant counts say
 * is fewer. (An index on index versions by space and tenant would make it a probe in every case.)
 */
export async function pointersOutsideActiveSpace(
  db: Pick<Tx, "$queryRawUnsafe">,
  tenants: string[] | null,
): Promise<Prisma.Sql> {
  const spaces = (await db.$queryRawUnsafe<SpaceOffTenants[]>(SPACES_OFF_TENANTS_SQL, tenants)).filter(
    (s) => s.tenants.length > 0,
  );
  if (spaces.length === 0) return Prisma.sql`SELECT NULL::uuid AS document_id, NULL::text AS tenant_id WHERE false`;
  return Prisma.join(
    spaces.map((space) => {
      const values: unknown[] = [];
      const text = outsideActiveSpaceArm(space, "sp.document_id, sp.tenant_id", (v) => (values.push(v), "\u0000"));
      return new Prisma.Sql(text.split("\u0000"), values);
    }),
    " UNION ALL ",
  );
}

/**
 * Whether `err` is a unique violation (SQLSTATE 23505) on `constraint`: from pg directly, or from a
 * Prisma raw query, which wraps the driver's error (P2010, meta.driverAdapterError.cause).
 */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as {
    code?: unknown;
    constraint?: unknown;
    meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; constraint?: { index?: unknown } } } };
  };
  if (e.code === "23505") return e.constraint === constraint;
  const cause = e.meta?.driverAdapterError?.cause;
  return e.code === "P2010" && cause?.originalCode === "23505" && cause.constraint?.index === constraint;
}

/** ISO string of a timestamp column that may be null. */
export const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
