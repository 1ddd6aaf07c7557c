// The parse process's side of lib/pipeline/parsers/sandbox.ts: one message in (a document and
// the limits), one message out (its sections, or the error as code + message). The process runs
// the parsers of lib/pipeline/parse.ts unchanged; the pool around it owns heap, time and restarts.

import { parseDocumentInProcess } from "../parse";
import { PipelineError, ParserUnavailableError, type Section } from "./common";
import { limitExceeded, type ParseLimits, type ParseReply, type ParseRequest } from "./limits";

/** Sections within the output limits, or PARSE_LIMIT_EXCEEDED naming the one broken. */
export function checkOutput(sections: Section[], limits: ParseLimits): Section[] {
  if (sections.length > limits.maxSections) throw limitExceeded("sections", limits, `(${sections.length})`);
  let bytes = 0;
  for (const s of sections) {
    bytes += Buffer.byteLength(s.text) + s.headingPath.reduce((n, h) => n + Buffer.byteLength(h), 0);
    if (bytes > limits.maxOutputBytes) throw limitExceeded("output", limits);
  }
  return sections;
}

async function handle(req: ParseRequest): Promise<ParseReply> {
  try {
    const sections = await parseDocumentInProcess(req.contentType, req.content, {
      limits: req.limits,
      onTruncated: (info) => send({ id: req.id, kind: "truncated", ...info } satisfies ParseReply),
    });
    return { id: req.id, kind: "ok", sections: checkOutput(sections, req.limits) };
  } catch (e) {
    if (e instanceof PipelineError)
      return { id: req.id, kind: "error", name: e.name, code: e.code, message: e.message };
    if (e instanceof ParserUnavailableError) return { id: req.id, kind: "error", name: e.name, message: e.message };
    return { id: req.id, kind: "error", name: "Error", message: e instanceof Error ? e.message : String(e) };
  }
}

function send(m: ParseReply | { kind: "ready" }): void {
  process.send?.(m);
}

if (process.send) {
  process.on("message", (req: ParseRequest) => void handle(req).then(send));
  // The worker went away (crashed, killed): nothing is left to parse for.
  process.on("disconnect", () => process.exit(0));
  // The pool starts a parse's clock only once the process can parse: loading the parsers is not
  // the document's time.
  send({ kind: "ready" });
}
