import { isErrorCode, type ErrorCode } from "../domain/constants";

/** A failure with a stable code (docs/architecture.md, "Task error codes"). */
export class TaskError extends Error {
  /** The provider's own word on when to come back (Retry-After), in seconds; a floor for the retry delay. */
  public readonly retryAfterSeconds?: number;
  constructor(
    public readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TaskError";
    const ra = options?.retryAfterSeconds;
    if (ra !== undefined && Number.isFinite(ra) && ra >= 0) this.retryAfterSeconds = ra;
  }
}

/** Thrown when a fenced statement touched no row: the lease is gone; write nothing more. */
export class LeaseLostError extends Error {
  constructor(taskId: string, where: string) {
    super(`lease lost for task ${taskId} (${where})`);
    this.name = "LeaseLostError";
  }
}

// Secrets can appear in provider error text (URLs with keys, bearer tokens); strip them before
// anything is stored or shown.
export function redact(message: string): string {
  return message
    .replace(/(bearer\s+)[A-Za-z0-9._~+\/-]+=*/gi, "$1[redacted]")
    .replace(/\b(sk|pk|api|key|token)[-_][A-Za-z0-9_-]{8,}\b/gi, "[redacted]")
    .replace(/([?&](?:api[-_]?key|key|token|access_token)=)[^&\s]+/gi, "$1[redacted]")
    .replace(/(postgres(?:ql)?:\/\/[^:\s]+:)[^@\s]+@/gi, "$1[redacted]@")
    .slice(0, 2000);
}

export function classify(err: unknown): { code: ErrorCode; message: string; retryAfterSeconds?: number } {
  if (err instanceof TaskError) {
    return err.retryAfterSeconds === undefined
      ? { code: err.code, message: redact(err.message) }
      : { code: err.code, message: redact(err.message), retryAfterSeconds: err.retryAfterSeconds };
  }
  const code = (err as { code?: unknown })?.code;
  if (isErrorCode(code)) return { code, message: redact(String((err as Error).message ?? err)) };
  return {
    code: "INTERNAL_ERROR",
    message: redact(err instanceof Error ? `${err.name}: ${err.message}` : String(err)),
  };
}
