import { z } from "zod";

/** The chunk browser's query (route and page). */
export const chunkListQuery = z
  .object({
    /** An index version id; the version search serves (else the newest) when absent. */
    indexVersion: z.uuid().optional(),
    // Strings in the query, read as numbers where used: 0 abstract, 1 overview, 2 body chunks.
    level: z.enum(["0", "1", "2"]).optional(),
    /** The last ordinal of the previous page (nextCursor). */
    cursor: z
      .string()
      .regex(/^\d{1,9}$/, "cursor must be a chunk ordinal")
      .optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
export type ChunkListQuery = z.infer<typeof chunkListQuery>;
