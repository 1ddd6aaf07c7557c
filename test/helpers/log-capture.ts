import pino from "pino";
import { log } from "../../lib/log";

/**
 * The lines the process logger writes, as parsed JSON, while capturing. Taken where pino hands a
 * line to its destination (JSON whether or not the destination prettifies it); the level is
 * raised to info meanwhile, since test files often start with LOG_LEVEL=silent.
 */
export function captureLog(): { lines: () => Record<string, any>[]; stop: () => void } {
  const stream = (log as any)[pino.symbols.streamSym] as { write: (chunk: string) => boolean };
  const original = stream.write;
  const level = log.level;
  const chunks: string[] = [];
  stream.write = (chunk: string) => {
    chunks.push(chunk);
    return true;
  };
  log.level = "info";
  return {
    lines: () =>
      chunks
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    stop: () => {
      stream.write = original;
      log.level = level;
    },
  };
}
