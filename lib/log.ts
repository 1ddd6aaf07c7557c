import pino from "pino";
import pretty from "pino-pretty";
import { setting, settings } from "./config";

/**
 * JSON lines for machines, readable lines for a person at a terminal: pretty when stdout is a TTY,
 * unless LOG_FORMAT says otherwise (json | pretty). Both write synchronously on this thread, so a
 * line logged just before process.exit (the fault switches) is not lost, and no worker thread is
 * started (pino transports run in one).
 */
export function logFormat(
  env: { LOG_FORMAT?: string } = settings("LOG_FORMAT"),
  isTTY = Boolean(process.stdout.isTTY),
): "json" | "pretty" {
  const f = env.LOG_FORMAT?.trim().toLowerCase();
  if (!f) return isTTY ? "pretty" : "json";
  if (f === "json" || f === "pretty") return f;
  throw new Error(`invalid configuration: LOG_FORMAT: expected "json" or "pretty", got "${env.LOG_FORMAT}"`);
}

const options: pino.LoggerOptions = {
  level: setting("LOG_LEVEL") ?? "info",
  base: { svc: setting("INDEXWRIGHT_PROCESS") ?? "indexwright" },
  timestamp: pino.stdTimeFunctions.isoTime,
};

// One logger per process; ids of tasks/documents go in log fields, never in metric labels.
export const log =
  logFormat() === "pretty"
    ? pino(
        options,
        pretty({
          sync: true,
          colorize: Boolean(process.stdout.isTTY),
          translateTime: "SYS:HH:MM:ss.l",
          ignore: "pid,hostname,svc",
          messageFormat: "[{svc}] {msg}",
        }),
      )
    : pino(options, pino.destination({ dest: 1, sync: true }));
