import { handler } from "@/lib/http/handler";
import { taskExportQuery } from "@/lib/exports/schemas";
import { TASK_COLUMNS } from "@/lib/exports/columns";
import { exportResponse } from "@/lib/exports/stream";
import { listTasks } from "@/lib/operations/repository";
import { readDb } from "@/lib/server";

export const dynamic = "force-dynamic";

/** The tasks list with its filters, every page, as CSV or JSON (the list's own query and tenant scoping). */
export const GET = handler("GET /api/v1/tasks/export", async (req, params, p) => {
  const { format, ...filters } = taskExportQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  // Chosen now: the pages are read while the body streams, after this handler has returned.
  const pool = readDb();
  return exportResponse({
    kind: "tasks",
    format,
    filters,
    columns: TASK_COLUMNS,
    page: (cursor) => listTasks(pool, { ...filters, tenants: p.tenants, cursor: cursor ?? undefined, limit: 200 }),
  });
});

export * from "@/lib/http/method-fallback";
