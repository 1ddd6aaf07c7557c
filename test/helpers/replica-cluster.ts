import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, chownSync, chmodSync, writeFileSync, statSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { freePort } from "./db";

// A primary and a streaming replica of it, as two PostgreSQL clusters of this machine's server
// (Debian's pg_createcluster, pg_basebackup -R): small and the test's own, so a base backup does
// not copy whatever else the machine's main cluster holds. Needs root (the clusters belong to the
// postgres user) and the server's binaries, which CI's machine and a developer's have.

const VERSION = "15";
const PREFIX = "iwt_";

export type ReplicaPair = {
  primaryUrl: string;
  replicaUrl: string;
  /** Holds back the replica's apply of each commit by `ms` (recovery_min_apply_delay), 0 to let it run. */
  setApplyDelay: (ms: number) => Promise<void>;
  stopReplica: () => void;
  startReplica: () => void;
  /** The replica has replayed everything the primary has written now. */
  caughtUp: () => Promise<void>;
  drop: () => void;
};

export const replicaPairPossible = (): boolean =>
  process.getuid?.() === 0 && existsSync("/usr/bin/pg_createcluster") && existsSync("/usr/bin/pg_basebackup");

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"] }).toString();
  } catch (err) {
    const e = err as { stderr?: Buffer };
    throw new Error(`${cmd} ${args.join(" ")}: ${e.stderr?.toString().trim() || (err as Error).message}`);
  }
}

function dropCluster(name: string): void {
  try {
    sh("pg_dropcluster", ["--stop", VERSION, name]);
  } catch {
    // Not there, or half made: nothing more to drop.
  }
}

/** Clusters left by an earlier run that was killed before it dropped them. */
function dropLeftovers(): void {
  const list = sh("pg_lsclusters", ["-h"]);
  for (const line of list.split("\n")) {
    const [ver, name] = line.trim().split(/\s+/);
    if (ver === VERSION && name?.startsWith(PREFIX)) dropCluster(name);
  }
}

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

export async function startReplicaPair(): Promise<ReplicaPair> {
  dropLeftovers();
  const tag = randomBytes(3).toString("hex");
  const primary = `${PREFIX}p_${tag}`;
  const replica = `${PREFIX}r_${tag}`;
  const [pPort, rPort] = [await freePort(), await freePort()];
  sh("pg_createcluster", [VERSION, primary, "-p", String(pPort), "--", "-A", "trust"]);
  sh("pg_ctlcluster", [VERSION, primary, "start"]);
  // The replica's configuration (port, conf.d) from pg_createcluster; its data from the primary.
  sh("pg_createcluster", [VERSION, replica, "-p", String(rPort), "--", "-A", "trust"]);
  const dataDir = `/var/lib/postgresql/${VERSION}/${replica}`;
  execFileSync("rm", ["-rf", dataDir]);
  mkdirSync(dataDir);
  const owner = statSync(`/var/lib/postgresql/${VERSION}/${primary}`);
  chownSync(dataDir, owner.uid, owner.gid);
  chmodSync(dataDir, 0o700);
  execFileSync("su", [
    "postgres",
    "-c",
    `pg_basebackup -h 127.0.0.1 -p ${pPort} -U postgres -D ${dataDir} -R -X stream -c fast`,
  ]);
  sh("pg_ctlcluster", [VERSION, replica, "start"]);
  const primaryUrl = `postgresql://postgres@127.0.0.1:${pPort}/postgres`;
  const replicaUrl = `postgresql://postgres@127.0.0.1:${rPort}/postgres`;
  const confFile = `/etc/postgresql/${VERSION}/${replica}/conf.d/apply-delay.conf`;
  const pair: ReplicaPair = {
    primaryUrl,
    replicaUrl,
    async setApplyDelay(ms) {
      writeFileSync(confFile, `recovery_min_apply_delay = '${ms}ms'\n`);
      await query(replicaUrl, "SELECT pg_reload_conf()");
      // A reload is asynchronous: wait until the replica's sessions see the new value.
      for (let i = 0; i < 200; i++) {
        const { rows } = await query(replicaUrl, "SHOW recovery_min_apply_delay");
        const shown = String(rows[0].recovery_min_apply_delay);
        if ((ms === 0 && shown === "0") || shown === `${ms}ms` || shown === `${ms / 1000}s`) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`the replica did not take recovery_min_apply_delay = ${ms}ms`);
    },
    stopReplica: () => void sh("pg_ctlcluster", [VERSION, replica, "stop", "-m", "fast"]),
    startReplica: () => void sh("pg_ctlcluster", [VERSION, replica, "start"]),
    async caughtUp() {
      const { rows } = await query(primaryUrl, "SELECT pg_current_wal_lsn()::text AS lsn");
      for (let i = 0; i < 400; i++) {
        const r = await query(replicaUrl, `SELECT pg_last_wal_replay_lsn() >= '${rows[0].lsn}'::pg_lsn AS ok`);
        if (r.rows[0].ok) return;
        await new Promise((res) => setTimeout(res, 25));
      }
      throw new Error("the replica did not catch up with the primary within 10 s");
    },
    drop() {
      dropCluster(replica);
      dropCluster(primary);
    },
  };
  return pair;
}
