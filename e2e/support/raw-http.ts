import { connect } from "node:net";

/**
 * HTTP/1.1 over a bare socket, for requests a client library refuses to send or quietly repairs:
 * bytes that are not UTF-8, a Content-Length that lies, chunked bodies, a header given twice, a
 * path with dot segments or escapes that URL parsers would normalise first.
 */

export type RawReply = {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
};

export type RawRequest = {
  method: string;
  /** Sent exactly as given: no normalisation, no escaping. */
  target: string;
  /** Header lines in order; a name may appear more than once. Host and Connection are added. */
  headers?: [string, string][];
  /** A body sent after the head as it is (give Content-Length yourself, or use `chunks`). */
  body?: Buffer | string;
  /** Sent as Transfer-Encoding: chunked, one chunk per element, then the terminating chunk. */
  chunks?: (Buffer | string)[];
  /**
   * Pause between chunks, and stop sending once an answer has begun. A server that refuses a body
   * half way closes the connection; bytes still arriving then make its kernel reset the connection,
   * which can discard the answer before it is read.
   */
  chunkDelayMs?: number;
  /**
   * Leave out "Connection: close". Needed when the body is followed by a pipelined request: Node
   * refuses bytes after a "Connection: close" request outright (an empty 400), before the app runs.
   */
  keepAlive?: boolean;
  timeoutMs?: number;
};

const CRLF = "\r\n";

function headerEnd(buf: Buffer): number {
  return buf.indexOf("\r\n\r\n");
}

/** A complete response in `buf`, or null while more bytes are needed. */
function parseResponse(buf: Buffer): RawReply | null {
  const end = headerEnd(buf);
  if (end < 0) return null;
  const lines = buf.subarray(0, end).toString("latin1").split(CRLF);
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  if (!m) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(":");
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const status = Number(m[1]);
  const rest = buf.subarray(end + 4);
  if (status === 204 || status === 304 || (status >= 100 && status < 200))
    return { status, headers, body: Buffer.alloc(0) };
  if ((headers["transfer-encoding"] ?? "").toLowerCase().includes("chunked")) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf(CRLF, at);
      if (lineEnd < 0) return null;
      const size = parseInt(rest.subarray(at, lineEnd).toString("latin1").split(";")[0], 16);
      if (Number.isNaN(size)) throw new Error("malformed chunked response");
      const start = lineEnd + 2;
      if (size === 0) return { status, headers, body: Buffer.concat(parts) };
      if (rest.length < start + size + 2) return null;
      parts.push(rest.subarray(start, start + size));
      at = start + size + 2;
    }
  }
  if (headers["content-length"] !== undefined) {
    const n = Number(headers["content-length"]);
    return rest.length >= n ? { status, headers, body: rest.subarray(0, n) } : null;
  }
  return null; // body runs until the connection closes
}

/** Sends one request on a fresh connection and resolves with the first response on it. */
export function rawRequest(port: number, req: RawRequest): Promise<RawReply> {
  const head: string[] = [`${req.method} ${req.target} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  if (!req.keepAlive) head.push("Connection: close");
  for (const [k, v] of req.headers ?? []) head.push(`${k}: ${v}`);
  if (req.chunks) head.push("Transfer-Encoding: chunked");
  const timeoutMs = req.timeoutMs ?? 30_000;

  return new Promise<RawReply>((resolve, reject) => {
    let received = Buffer.alloc(0);
    let settled = false;
    const socket = connect({ host: "127.0.0.1", port });
    const finish = (err: Error | null, reply?: RawReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(reply!);
    };
    const timer = setTimeout(
      () => finish(new Error(`no complete response within ${timeoutMs} ms (got ${received.length} bytes)`)),
      timeoutMs,
    );
    const tryParse = (atEnd: boolean) => {
      try {
        const r = parseResponse(received);
        if (r) return finish(null, r);
        if (atEnd) {
          const end = headerEnd(received);
          if (end < 0)
            return finish(new Error(`connection closed after ${received.length} bytes without a response head`));
          // A response without length or chunking ends with the connection.
          const partial = parseResponse(
            Buffer.concat([
              received.subarray(0, end),
              Buffer.from("\r\nContent-Length: " + (received.length - end - 4)),
              received.subarray(end),
            ]),
          );
          return finish(partial ? null : new Error("truncated response"), partial ?? undefined);
        }
      } catch (err) {
        finish(err as Error);
      }
    };
    socket.on("data", (d: Buffer) => {
      received = Buffer.concat([received, d]);
      tryParse(false);
    });
    socket.on("end", () => tryParse(true));
    socket.on("close", () => tryParse(true));
    // The server may answer (413) and close while the body is still being written: once a
    // response is in, a broken pipe is the expected end of the story, not a failure.
    socket.on("error", (err) => {
      if (parseResponse(received)) tryParse(true);
      else if (received.length > 0) tryParse(true);
      else finish(err);
    });
    const sendChunks = async (chunks: (Buffer | string)[]) => {
      for (const c of chunks) {
        if (received.length > 0 || settled) return;
        const b = typeof c === "string" ? Buffer.from(c) : c;
        if (b.length === 0) continue;
        socket.write(Buffer.concat([Buffer.from(`${b.length.toString(16)}${CRLF}`), b, Buffer.from(CRLF)]));
        if (req.chunkDelayMs) await new Promise((r) => setTimeout(r, req.chunkDelayMs));
      }
      if (received.length === 0 && !settled) socket.write(`0${CRLF}${CRLF}`);
    };
    socket.on("connect", () => {
      socket.write(head.join(CRLF) + CRLF + CRLF);
      if (req.body !== undefined) socket.write(req.body);
      if (req.chunks) void sendChunks(req.chunks);
    });
  });
}
