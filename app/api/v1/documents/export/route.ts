import { handler } from "@/lib/http/handler";
import { documentExportQuery } from "@/lib/exports/schemas";
import { DOCUMENT_COLUMNS } from "@/lib/exports/columns";
import { exportResponse } from "@/lib/exports/stream";
import { listDocuments } from "@/lib/documents/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

/** The documents list with its filters, every page, as CSV or JSON (the list's own query and tenant scoping). */
export const GET = handler("GET /api/v1/documents/export", async (req, params, principal) => {
  const { format, ...q } = documentExportQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  const filters = { ...q, q: q.q?.trim() || undefined };
  // Chosen now: the pages are read while the body streams, after this handler has returned.
  const pool = readDb();
  return exportResponse({
    kind: "documents",
    format,
    filters,
    columns: DOCUMENT_COLUMNS,
    page: (cursor) =>
      listDocuments(pool, { ...filters, tenants: principal.tenants, cursor: cursor ?? undefined, limit: 200 }),
  });
});

export * from "@/lib/http/method-fallback";
