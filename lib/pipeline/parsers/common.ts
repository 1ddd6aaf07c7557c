// Pieces every parser shares: the error types the queue classifies, the section builder, the
// cancellation handle of the asynchronous parsers, and whitespace helpers.

export type Section = { headingPath: string[]; text: string };

export type PipelineErrorCode = "UNSUPPORTED_DOCUMENT" | "PARSE_ERROR" | "EMPTY_DOCUMENT" | "PARSE_LIMIT_EXCEEDED";

/** A non-retryable document problem. `code` matches the task error codes of the queue. */
export class PipelineError extends Error {
  readonly code: PipelineErrorCode;
  constructor(code: PipelineErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = "PipelineError";
  }
}

/**
 * The PDF/DOCX library could not be loaded: a broken installation, not a broken document, so it
 * is deliberately not a PipelineError (a queue should retry or alert, not fail the document).
 */
export class ParserUnavailableError extends Error {
  constructor(library: string, cause: unknown) {
    super(`the ${library} library could not be loaded: ${errorSummary(cause)}`, { cause });
    this.name = "ParserUnavailableError";
  }
}

export async function loadLibrary<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw new ParserUnavailableError(name, e);
  }
}

/** Lets the caller stop a running parse; the parser checks `cancelled` whenever it regains control. */
export class CancellableJob {
  cancelled = false;
  private readonly onCancel: (() => void)[] = [];
  whenCancelled(fn: () => void): void {
    this.onCancel.push(fn);
  }
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const fn of this.onCancel) {
      try {
        fn();
      } catch {
        // best effort
      }
    }
  }
  check(): void {
    if (this.cancelled) throw new PipelineError("PARSE_ERROR", "parsing was cancelled");
  }
}

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One readable line from whatever a library threw, at most 300 characters. */
export function errorSummary(e: unknown): string {
  let msg = e instanceof Error ? e.message : typeof e === "string" ? e : "";
  if (!msg && e && typeof e === "object" && "message" in e) msg = String((e as { message: unknown }).message);
  msg = collapseWs(msg || String(e));
  return msg.length > 300 ? msg.slice(0, 297) + "..." : msg || "unknown error";
}

export function isWs(c: number): boolean {
  // space, \t, \n, \v, \f, \r, NBSP, and the other Unicode spaces JS's \s knows about.
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

export function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isWs(s.charCodeAt(i))) return false;
  return true;
}

/** Collapse every whitespace run to one space and trim. */
export function collapseWs(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

export function normaliseNewlines(s: string): string {
  if (s.indexOf("\r") < 0) return s;
  return s.replace(/\r\n?/g, "\n");
}

/**
 * Accumulates paragraphs under the current heading path. A heading of level L replaces the
 * level-L entry and clears everything deeper. Sections whose body is empty are not emitted
 * (this covers "a heading immediately followed by its sub-heading").
 */
export class SectionBuilder {
  private readonly stack: (string | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined];
  private path: string[] = [];
  private paras: string[] = [];
  private readonly out: Section[] = [];

  heading(level: number, rawText: string): void {
    const text = collapseWs(rawText);
    if (!text) return; // an empty heading changes nothing
    this.flushSection();
    const l = Math.min(6, Math.max(1, Math.floor(level)));
    this.stack[l - 1] = text;
    for (let k = l; k < 6; k++) this.stack[k] = undefined;
    this.path = this.stack.filter((h): h is string => h !== undefined);
  }

  paragraph(text: string): void {
    if (!isBlank(text)) this.paras.push(text);
  }

  private flushSection(): void {
    if (this.paras.length > 0) {
      const text = this.paras.join("\n\n").trim();
      if (text) this.out.push({ headingPath: this.path.slice(), text });
    }
    this.paras = [];
  }

  finish(): Section[] {
    this.flushSection();
    return this.out;
  }
}
