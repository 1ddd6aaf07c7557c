import { json } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

/** Any /api path no route serves: a JSON 404 like every other API error, not the HTML not-found page. */
function notFound(req: Request): Response {
  const { pathname } = new URL(req.url);
  return json({ error: { code: "NOT_FOUND", message: `no API route at ${pathname}` } }, 404);
}

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
