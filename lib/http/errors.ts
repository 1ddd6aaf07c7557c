import { DomainError, type ErrorCode } from "../domain/errors";

/** The one place a refusal's code becomes an HTTP status: typed, so a new code cannot go unmapped. */
const STATUS: Record<ErrorCode, number> = {
  CAPABILITY_NOT_ALLOWED: 400,
  EMPTY_DOCUMENT: 400,
  EVALUATION_SET_INVALID: 400,
  INVALID_CONTENT: 400,
  INVALID_CURSOR: 400,
  INVALID_ENCODING: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  INVALID_JSON: 400,
  INVALID_MULTIPART: 400,
  PASSWORD_REQUIRED: 400,
  SLO_INVALID: 400,
  TEXT_TOO_LONG_FOR_MODEL: 400,
  VALIDATION_FAILED: 400,
  WEBHOOK_URL_INVALID: 400,
  WEBHOOK_URL_PRIVATE: 400,
  UNAUTHORIZED: 401,
  FLEET_SCOPE_REQUIRED: 403,
  FORBIDDEN: 403,
  GRANT_EXCEEDS_OWN: 403,
  ORIGIN_MISMATCH: 403,
  PRINCIPALS_NOT_ALLOWED: 403,
  SELF_GRANT: 403,
  NOT_FOUND: 404,
  ALREADY_PAUSED: 409,
  DELIVERY_IN_FLIGHT: 409,
  EMAIL_TAKEN: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  INVALID_STATE: 409,
  KEY_CHANGED: 409,
  KEY_TAKEN: 409,
  MIGRATION_NOT_READY: 409,
  MIGRATION_OPEN: 409,
  // The candidate answers the tenant's evaluation set worse than the active space (docs/evaluation.md).
  EVALUATION_REGRESSED: 409,
  SPACE_IN_USE: 409,
  SPACE_NAME_TAKEN: 409,
  SPACE_RETIRED: 409,
  ROLLBACK_INCOMPATIBLE: 409,
  ROLLBACK_UNAVAILABLE: 409,
  TASK_NOT_CANCELLABLE: 409,
  TASK_SUPERSEDED: 409,
  USER_DISABLED: 409,
  CONTENT_TOO_LARGE: 413,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_DOCUMENT: 415,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // The space was refused after one probe call: nothing is wrong with the request's shape.
  SPACE_DIMENSIONS_MISMATCH: 422,
  SPACE_KEY_MISSING: 422,
  SPACE_UNREACHABLE: 422,
  HASHING_BUSY: 503,
};

// A busy hasher frees up within a request or two: say when to come back rather than leave clients to guess.
const HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = { HASHING_BUSY: { "retry-after": "2" } };

export const statusOf = (err: DomainError): number => STATUS[err.code];
export const headersOf = (err: DomainError): Record<string, string> => HEADERS[err.code] ?? {};

/**
 * A refusal raised at the HTTP edge that carries its rendering with it, for callers that answer
 * from it directly (the sign-in hash gate's 503 and Retry-After); status and headers come from the
 * table above like every other code's.
 */
export class ApiError extends DomainError {
  readonly status = STATUS[this.code];
  readonly headers = HEADERS[this.code] ?? {};
}
