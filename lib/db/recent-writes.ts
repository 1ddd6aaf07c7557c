// The last write of each caller this web process served: when it happened and, with a read
// replica, the primary's WAL position after it. Read-your-writes rests on it for callers that send
// nothing back (a script with a token), and shared answers (sharedRead) are never handed to a
// caller who wrote after they were read. Kept a few minutes; bounded in size.
const REMEMBER_MS = 5 * 60_000;
const REMEMBER_MAX = 10_000;
type Write = { at: number; lsn: bigint | null };
const lastWrites = new Map<string, Write>();

export function noteWrite(subject: string, lsn: bigint | null = null): void {
  lastWrites.delete(subject);
  lastWrites.set(subject, { at: Date.now(), lsn });
  if (lastWrites.size > REMEMBER_MAX) lastWrites.delete(lastWrites.keys().next().value as string);
}

export function lastWrite(subject: string): Write | null {
  const w = lastWrites.get(subject);
  if (!w) return null;
  if (Date.now() - w.at > REMEMBER_MS) {
    lastWrites.delete(subject);
    return null;
  }
  return w;
}

/** Test seam. */
export function forgetWrites(): void {
  lastWrites.clear();
}
