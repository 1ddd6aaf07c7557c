import pino from "pino";

// One JSON logger per process; ids of tasks/documents go in log fields, never in metric labels.
export const log = pino({
  level: process.env.LOG_LEVEL ?? "info",
  base: { svc: process.env.INDEXWRIGHT_PROCESS ?? "indexwright" },
  timestamp: pino.stdTimeFunctions.isoTime,
});
