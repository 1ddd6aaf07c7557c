import createClient from "openapi-fetch";
import type { components, operations, paths } from "./openapi-types";

// A typed client for the HTTP API: openapi-fetch over the types openapi-typescript generates from
// the OpenAPI document (lib/client/openapi-types.ts, `npm run openapi`). Paths, parameters, bodies
// and answers are checked by the compiler against the document the server serves. Runs anywhere
// fetch does (the CLI, scripts); it imports nothing from the server.

export type { components, operations, paths };
export type Schemas = components["schemas"];

export type ClientOptions = {
  /** The server's root, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** An API token (sent as Authorization: Bearer). */
  token?: string;
  fetch?: typeof fetch;
};

export function createIndexwrightClient(opts: ClientOptions) {
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/$/, ""),
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}

export type IndexwrightClient = ReturnType<typeof createIndexwrightClient>;

/** An answer that was not 2xx, with the API's stable error code. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiRequestError";
  }
}

type Outcome<T> = { data?: T; error?: unknown; response: Response };

/** The answer's data, or an ApiRequestError carrying its code (INTERNAL_ERROR when the body has none). */
export async function unwrap<T>(call: Promise<Outcome<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  const e = (error as { error?: { code?: string; message?: string } } | undefined)?.error;
  throw new ApiRequestError(
    response.status,
    e?.code ?? (response.ok ? "EMPTY_ANSWER" : "HTTP_ERROR"),
    e?.message ?? `${response.status} ${response.statusText}`,
  );
}
