import { z } from "zod";
import { documentListQuery } from "../documents/schemas";
import { taskListQuery } from "../operations/schemas";

// An export takes the list's own filters (the same schema, without the page cursor and size) and
// a format, so an export and the list it was started from cannot disagree on what a filter means.

export const exportFormat = z.enum(["csv", "json"]).default("csv");

export const documentExportQuery = documentListQuery
  .omit({ cursor: true, limit: true })
  .extend({ format: exportFormat })
  .strict();
export type DocumentExportQuery = z.infer<typeof documentExportQuery>;

export const taskExportQuery = taskListQuery
  .omit({ cursor: true, limit: true })
  .extend({ format: exportFormat })
  .strict();
export type TaskExportQuery = z.infer<typeof taskExportQuery>;
