import { ZodError } from "zod";
import { ApiError } from "./errors";
import { log } from "../log";

export function json(data: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(data), { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers } });
}

export function errorResponse(err: unknown): Response {
  if (err instanceof ApiError) return json({ error: { code: err.code, message: err.message } }, err.status);
  if (err instanceof ZodError) {
    const first = err.issues[0];
    const where = first?.path.length ? `${first.path.join(".")}: ` : "";
    return json({ error: { code: "VALIDATION_FAILED", message: `${where}${first?.message ?? "invalid request"}` } }, 400);
  }
  log.error({ err }, "unhandled error in request");
  return json({ error: { code: "INTERNAL_ERROR", message: "internal error" } }, 500);
}

type Ctx<P> = { params: Promise<P> };

/** Wraps a route handler so every failure becomes a JSON error with a stable code. */
export function handler<P = Record<string, string>>(fn: (req: Request, params: P) => Promise<Response>) {
  return async (req: Request, ctx: Ctx<P>): Promise<Response> => {
    try {
      return await fn(req, (await ctx?.params) as P);
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/** Reads a JSON body with a size cap; malformed JSON is a 400, never a 500. */
export async function readJson(req: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new ApiError(413, "PAYLOAD_TOO_LARGE", `request body exceeds ${maxBytes} bytes`);
  const text = await req.text();
  if (Buffer.byteLength(text) > maxBytes) throw new ApiError(413, "PAYLOAD_TOO_LARGE", `request body exceeds ${maxBytes} bytes`);
  if (!text.trim()) throw new ApiError(400, "INVALID_JSON", "request body is empty");
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "INVALID_JSON", "request body is not valid JSON");
  }
}

/** Like readJson, but an absent/empty body is `{}` (for actions whose fields are all optional). */
export async function readOptionalJson(req: Request, maxBytes: number): Promise<unknown> {
  const text = await req.clone().text();
  if (!text.trim()) return {};
  return readJson(req, maxBytes);
}
