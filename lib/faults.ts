// Fault switches: each makes this process crash (or stop renewing) at one chosen point, so the
// fault matrix (test/faults) can prove what a real crash there leaves behind. Every switch is a
// setting of lib/config.ts, off unless set; tests arm one through a child process's environment.
import type { Config } from "./config";

export type FaultSwitches = Partial<
  Pick<
    Config,
    | "FAULT_AFTER_CHUNK_BATCH"
    | "FAULT_BEFORE_INDEX_SWITCH"
    | "FAULT_DROP_LEASE_HEARTBEAT"
    | "FAULT_AFTER_PUBLISH_COMMIT"
  >
>;

function armed(v: string | undefined): boolean {
  return v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
}

/** A simulated crash: no cleanup, no lease release, no answer. */
function crash(reason: string): never {
  // Straight to stderr: the fault's one line must be seen whatever LOG_LEVEL silences.
  process.stderr.write(`[fault] ${reason}: exiting abruptly\n`);
  process.exit(137);
}

/** Process-wide, because the switch counts embedding batches across tasks and batches. */
let embeddingBatches = 0;

/** FAULT_AFTER_CHUNK_BATCH=n: crash once this process has sent its n-th embedding batch. */
export function afterEmbeddingBatch(f: FaultSwitches | undefined): void {
  embeddingBatches++;
  if (f?.FAULT_AFTER_CHUNK_BATCH && embeddingBatches >= f.FAULT_AFTER_CHUNK_BATCH)
    crash(`FAULT_AFTER_CHUNK_BATCH=${f.FAULT_AFTER_CHUNK_BATCH}`);
}

/** FAULT_BEFORE_INDEX_SWITCH: crash inside the switch transaction, after the pointer moved and before COMMIT. */
export function beforeIndexSwitch(f: FaultSwitches | undefined): void {
  if (armed(f?.FAULT_BEFORE_INDEX_SWITCH)) crash("FAULT_BEFORE_INDEX_SWITCH");
}

/** FAULT_DROP_LEASE_HEARTBEAT: the worker stops renewing its leases, as a hung process would. */
export function heartbeatDropped(f: FaultSwitches | undefined): boolean {
  return armed(f?.FAULT_DROP_LEASE_HEARTBEAT);
}

/** FAULT_AFTER_PUBLISH_COMMIT: crash after a publish committed, before it is answered. */
export function afterPublishCommit(f: FaultSwitches | undefined): void {
  if (armed(f?.FAULT_AFTER_PUBLISH_COMMIT)) crash("FAULT_AFTER_PUBLISH_COMMIT");
}
