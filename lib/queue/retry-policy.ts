import { ERROR_CODES, isErrorCode, type ErrorCode } from "../domain/constants";

export type RetryPolicyOptions = { baseSeconds: number; maxSeconds: number; jitter: number };
export const DEFAULT_RETRY: RetryPolicyOptions = { baseSeconds: 2, maxSeconds: 300, jitter: 0.2 };

export type RetryDecision = { status: "RETRY_WAIT"; delaySeconds: number } | { status: "DEAD"; delaySeconds: 0 };

/** Backoff before the retry that follows lease attempt `attempt` (1-based): min(base·2^(a-1), cap) ± jitter. */
export function backoffSeconds(
  attempt: number,
  opts: RetryPolicyOptions = DEFAULT_RETRY,
  random: () => number = Math.random,
): number {
  const raw = Math.min(opts.baseSeconds * 2 ** Math.max(0, attempt - 1), opts.maxSeconds);
  const factor = 1 + opts.jitter * (2 * random() - 1);
  return Math.max(0, raw * factor);
}

/**
 * Retry decisions read the error code only, never message text. `retryAfterSeconds` (a provider's
 * Retry-After) is a floor for the delay: retrying earlier than the provider asked only earns
 * another 429 and burns an attempt. It is capped at `maxSeconds`, so a hostile or buggy header
 * cannot park a task for a day; it never changes whether the task retries at all.
 */
export function decide(
  code: ErrorCode | string,
  attempt: number,
  maxAttempts: number,
  opts: RetryPolicyOptions = DEFAULT_RETRY,
  random?: () => number,
  retryAfterSeconds?: number,
): RetryDecision {
  const retryable = isErrorCode(code) ? ERROR_CODES[code].retryable : false;
  if (!retryable || attempt >= maxAttempts) return { status: "DEAD", delaySeconds: 0 };
  const backoff = backoffSeconds(attempt, opts, random);
  const floor =
    retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0
      ? Math.min(retryAfterSeconds, opts.maxSeconds)
      : 0;
  return { status: "RETRY_WAIT", delaySeconds: Math.max(backoff, floor) };
}
