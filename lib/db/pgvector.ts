import pg from "pg";

/** Iterative index scans (`hnsw.iterative_scan`), which filtered search relies on, arrived in 0.8.0. */
export const PGVECTOR_MIN_VERSION = "0.8.0";

const INSTALL =
  "Install pgvector " +
  PGVECTOR_MIN_VERSION +
  " or later on the database server: Debian/Ubuntu `apt install postgresql-<major>-pgvector` from the PostgreSQL apt repository (apt.postgresql.org; distribution packages can be older), macOS `brew install pgvector`, otherwise build it (https://github.com/pgvector/pgvector#installation); managed services (Amazon RDS, Cloud SQL, Azure, Supabase, Neon) list it among their extensions.";

function newer(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * What is wrong with pgvector in a database, as a message for the operator, or null when it is
 * usable: `installed` is the extension's version in this database, `available` the version the
 * server would install (CREATE EXTENSION vector takes the default), null when absent.
 */
export function pgvectorProblem(installed: string | null, available: string | null): string | null {
  if (installed !== null) {
    if (newer(installed, PGVECTOR_MIN_VERSION) >= 0) return null;
    const upgrade =
      available !== null && newer(available, PGVECTOR_MIN_VERSION) >= 0
        ? `The server already has ${available}: run ALTER EXTENSION vector UPDATE; in this database.`
        : `${INSTALL} Then run ALTER EXTENSION vector UPDATE; in this database.`;
    return `pgvector ${installed} is installed in this database; Indexwright needs ${PGVECTOR_MIN_VERSION} or later (iterative HNSW index scans). ${upgrade}`;
  }
  if (available === null) {
    return `pgvector is not installed on the PostgreSQL server at DATABASE_URL. ${INSTALL} The first migration then creates the extension (CREATE EXTENSION vector needs a superuser; otherwise have one run it in this database first).`;
  }
  if (newer(available, PGVECTOR_MIN_VERSION) < 0) {
    return `the PostgreSQL server at DATABASE_URL offers pgvector ${available}; Indexwright needs ${PGVECTOR_MIN_VERSION} or later (iterative HNSW index scans). ${INSTALL}`;
  }
  return null;
}

/** Stops with a clear message when the database cannot give us pgvector >= 0.8.0. */
export async function requirePgvector(url: string): Promise<{ installed: string | null; available: string | null }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ installed: string | null; available: string | null }>(
      `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed,
              (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS available`,
    );
    const { installed, available } = rows[0];
    const problem = pgvectorProblem(installed, available);
    if (problem) throw Object.assign(new Error(`PGVECTOR_UNSUPPORTED: ${problem}`), { code: "PGVECTOR_UNSUPPORTED" });
    return { installed, available };
  } finally {
    await client.end().catch(() => undefined);
  }
}
