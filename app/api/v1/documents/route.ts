import { handler, json } from "@/lib/http/handler";
import { documentListQuery } from "@/lib/documents/schemas";
import { listDocuments } from "@/lib/documents/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/documents", async (req, params, principal) => {
  const q = documentListQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return json(await listDocuments(readDb(), { ...q, q: q.q?.trim() || undefined, tenants: principal.tenants }));
});

export * from "@/lib/http/method-fallback";
