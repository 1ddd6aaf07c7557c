/** An error with a stable code, rendered as {"error":{"code","message"}} with its HTTP status. */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    /** Extra response headers, e.g. Retry-After on a 429 or 503. */
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string) => new ApiError(400, code, message);
export const notFound = (what: string) => new ApiError(404, "NOT_FOUND", `${what} not found`);
