/**
 * Every refusal's stable code. The code is the contract (clients branch on it); which HTTP status
 * carries it is the HTTP edge's business (lib/http/errors.ts), so the domain never speaks HTTP.
 */
export type ErrorCode =
  | "ALREADY_PAUSED"
  | "CAPABILITY_NOT_ALLOWED"
  | "CONTENT_TOO_LARGE"
  | "DELIVERY_IN_FLIGHT"
  | "EMAIL_TAKEN"
  | "EMPTY_DOCUMENT"
  | "EVALUATION_REGRESSED"
  | "EVALUATION_SET_INVALID"
  | "FLEET_SCOPE_REQUIRED"
  | "FORBIDDEN"
  | "GRANT_EXCEEDS_OWN"
  | "HASHING_BUSY"
  | "IDEMPOTENCY_KEY_REUSED"
  | "INVALID_CONTENT"
  | "INVALID_CURSOR"
  | "INVALID_ENCODING"
  | "INVALID_IDEMPOTENCY_KEY"
  | "INVALID_JSON"
  | "INVALID_MULTIPART"
  | "INVALID_STATE"
  | "KEY_CHANGED"
  | "KEY_TAKEN"
  | "MIGRATION_NOT_READY"
  | "MIGRATION_OPEN"
  | "NOT_FOUND"
  | "ORIGIN_MISMATCH"
  | "PASSWORD_REQUIRED"
  | "PAYLOAD_TOO_LARGE"
  | "PRINCIPALS_NOT_ALLOWED"
  | "ROLLBACK_INCOMPATIBLE"
  | "ROLLBACK_UNAVAILABLE"
  | "SELF_GRANT"
  | "SLO_INVALID"
  | "SPACE_DIMENSIONS_MISMATCH"
  | "SPACE_IN_USE"
  | "SPACE_KEY_MISSING"
  | "SPACE_NAME_TAKEN"
  | "SPACE_RETIRED"
  | "SPACE_UNREACHABLE"
  | "TASK_NOT_CANCELLABLE"
  | "TASK_SUPERSEDED"
  | "TEXT_TOO_LONG_FOR_MODEL"
  | "UNAUTHORIZED"
  | "UNSUPPORTED_DOCUMENT"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "USER_DISABLED"
  | "VALIDATION_FAILED"
  | "WEBHOOK_URL_INVALID"
  | "WEBHOOK_URL_PRIVATE";

/** A request refused for a reason its caller can act on, rendered as {"error":{"code","message"}}. */
export class DomainError extends Error {
  constructor(
    public readonly code: ErrorCode,
    message: string,
    /** Facts a client acts on (e.g. how many documents a switch still waits for), rendered beside the message. */
    public readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new DomainError("NOT_FOUND", `${what} not found`);
