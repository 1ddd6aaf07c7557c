import { randomBytes, scryptSync } from "node:crypto";

/** A password hash as the previous release wrote it (scrypt N=2^14, r=8, p=1). */
export function legacyHash(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}
