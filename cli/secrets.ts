import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

// Secrets `start` keeps under the data directory (bootstrap-token, session-secret, admin-password,
// db-password). Only their owner may read them: created 0600, and narrowed to 0600 when an older
// version or a copy left one wider, since a secret readable by the group is a secret shared with it.

export const SECRET_MODE = 0o600;

/** Narrows an existing secret file to 0600; says whether it had to. */
export function keepPrivate(file: string): boolean {
  if (process.platform === "win32") return false;
  if ((statSync(file).mode & 0o777) === SECRET_MODE) return false;
  chmodSync(file, SECRET_MODE);
  return true;
}

/** Writes a secret file 0600 (also when it existed before: writeFileSync's mode applies only to new files). */
export function writeSecret(file: string, value: string): void {
  writeFileSync(file, value + "\n", { mode: SECRET_MODE });
  keepPrivate(file);
}

/** A secret kept under the data dir: read it, or make it once (0600). `created` says which. */
export function fileSecret(
  dir: string,
  name: string,
  bytes: number,
): { value: string; file: string; created: boolean } {
  const file = path.join(dir, name);
  if (existsSync(file)) {
    keepPrivate(file);
    return { value: readFileSync(file, "utf8").trim(), file, created: false };
  }
  const value = randomBytes(bytes).toString("base64url");
  writeSecret(file, value);
  return { value, file, created: true };
}

/**
 * What start prints about the bootstrap token. The token itself only the one time it is made: a
 * start's output ends up in terminals' scrollback and log collectors, and a token printed on every
 * start lands there on every start. Later starts say where it is kept.
 */
export function bootstrapTokenLine(
  t: { value: string; file: string; created: boolean } | "configured",
  shown: (p: string) => string,
): string {
  if (t === "configured") return "admin token: from INDEXWRIGHT_BOOTSTRAP_TOKEN";
  if (t.created) return `admin token: ${t.value}  (shown once; kept in ${shown(t.file)})`;
  return `admin token: kept in ${shown(t.file)} (rotate: npm run cli -- token rotate-bootstrap)`;
}
