import "server-only";
import { log } from "../log";
import {
  CONTENT_TYPE,
  csvRows,
  exportFileName,
  jsonHead,
  jsonItem,
  jsonTail,
  type Column,
  type ExportFormat,
} from "./format";

export type Page<T> = { items: T[]; nextCursor: string | null };

type ExportOptions<T> = {
  kind: string;
  format: ExportFormat;
  /** What the export holds, written at the top of a JSON export. */
  filters: Record<string, unknown>;
  columns: readonly Column<T>[];
  /** One page of the list, after `cursor`; the list's own read function, so filters and tenant scoping are the list's. */
  page: (cursor: string | null) => Promise<Page<T>>;
};

const encoder = new TextEncoder();

/**
 * A streamed export: the list read page by page on keyset cursors, each page written as it
 * arrives, the next read only when the client has taken the previous one (pull), so memory stays
 * at one page whatever the list's length, and a client that goes away stops the reads. The first
 * page is read before the response starts: a failure there is still a JSON error with its status.
 */
export async function exportResponse<T>(o: ExportOptions<T>): Promise<Response> {
  const at = new Date();
  const first = await o.page(null);
  let pending: Page<T> | null = first;
  let cursor: string | null = first.nextCursor;
  let count = 0;
  let started = false;

  function encodePage(items: T[]): string {
    let out = "";
    if (o.format === "csv") {
      out = csvRows(o.columns, items, !started);
    } else {
      if (!started) out += jsonHead({ kind: o.kind, exportedAt: at.toISOString(), filters: o.filters });
      for (const item of items) out += jsonItem(rowObject(o.columns, item), count++ === 0);
    }
    started = true;
    return out;
  }

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (pending) {
          const p: Page<T> = pending;
          pending = null;
          controller.enqueue(encoder.encode(encodePage(p.items)));
          return;
        }
        if (cursor === null) {
          if (o.format === "json") controller.enqueue(encoder.encode(jsonTail(count)));
          else if (!started) controller.enqueue(encoder.encode(encodePage([])));
          controller.close();
          return;
        }
        const next = await o.page(cursor);
        cursor = next.nextCursor;
        controller.enqueue(encoder.encode(encodePage(next.items)));
      } catch (err) {
        // Headers are gone: the only honest signal left is a broken stream (no closing bracket,
        // a truncated CSV), never a file that looks complete.
        log.error({ err, kind: o.kind }, "export failed while streaming");
        controller.error(err);
      }
    },
  });

  return new Response(body, {
    status: 200,
    headers: {
      "content-type": CONTENT_TYPE[o.format],
      "content-disposition": `attachment; filename="${exportFileName(o.kind, o.format, at)}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

/** A JSON export's item: the CSV's columns as keys, so both formats carry the same fields. */
function rowObject<T>(columns: readonly Column<T>[], row: T): Record<string, unknown> {
  return Object.fromEntries(columns.map((c) => [c.header, c.value(row)]));
}
