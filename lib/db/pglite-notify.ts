import type { PGlite } from "@electric-sql/pglite";

const NOTIFICATION = 0x41; // 'A'
const COMMAND_COMPLETE = 0x43; // 'C'
const ERROR_RESPONSE = 0x45; // 'E'
const QUERY = 0x51; // 'Q'
const PARSE = 0x50; // 'P'

/**
 * Rewritten in place of a client's UNLISTEN: the shared session must keep listening for the other
 * connections, and the client still gets the "UNLISTEN" command tag it expects. Nobody listens on it.
 */
const NOOP_CHANNEL = "pglite_server_unlisten_noop";

/** A LISTEN (`listen`) or UNLISTEN statement of one connection; `channel` null is `UNLISTEN *`. */
export type ListenAction = { listen: boolean; channel: string | null };

type Notification = { channel: string; raw: Uint8Array };

type Connection = {
  send: (bytes: Uint8Array) => void;
  channels: Set<string>;
  /** Actions of the connection's open transaction, applied when it commits. */
  pending: ListenAction[];
  /** Whether the last transaction-ending event seen in its output was an abort (error or ROLLBACK tag). */
  aborted: boolean;
};

/**
 * Frames the backend messages of one response as they stream out of the single session: takes the
 * NotificationResponse messages out (they belong to whichever connections listen, not to the one
 * whose statement committed them) and notes how the transaction ended. Everything else is forwarded
 * untouched, in the chunks it came in except around a removed message.
 */
export class BackendStream {
  readonly notifications: Notification[] = [];
  /** null: no COMMIT, ROLLBACK or error in this response. */
  aborted: boolean | null = null;
  private header = new Uint8Array(5);
  private headerLength = 0;
  private left = 0;
  private type = 0;
  private body: Uint8Array[] = [];

  constructor(private readonly forward: (d: Uint8Array) => void) {}

  write(chunk: Uint8Array): void {
    const n = chunk.length;
    let i = 0;
    let run = -1; // start of the bytes of this chunk being forwarded as one piece
    const flush = (end: number) => {
      if (run !== -1 && end > run) this.forward(chunk.subarray(run, end));
      run = -1;
    };
    while (i < n) {
      if (this.left === 0) {
        // A header split across chunks is held back until its type is known.
        const start = i;
        const carried = this.headerLength;
        const take = Math.min(5 - carried, n - i);
        this.header.set(chunk.subarray(i, i + take), carried);
        this.headerLength += take;
        i += take;
        if (this.headerLength < 5) {
          flush(start);
          break;
        }
        this.headerLength = 0;
        this.type = this.header[0];
        this.left = new DataView(this.header.buffer).getInt32(1) - 4;
        this.body = [];
        if (this.type === NOTIFICATION) {
          flush(start);
        } else {
          if (carried > 0) this.forward(this.header.slice(0, carried));
          if (run === -1) run = start;
          if (this.type === ERROR_RESPONSE) this.aborted = true;
        }
        if (this.left === 0) this.end();
        continue;
      }
      const take = Math.min(this.left, n - i);
      if (this.type === NOTIFICATION || this.type === COMMAND_COMPLETE) this.body.push(chunk.slice(i, i + take));
      if (this.type !== NOTIFICATION && run === -1) run = i; // a message continued from the last chunk
      i += take;
      this.left -= take;
      if (this.left === 0) this.end();
    }
    flush(n);
  }

  private end(): void {
    if (this.type !== NOTIFICATION && this.type !== COMMAND_COMPLETE) return;
    const body = Buffer.concat(this.body);
    this.body = [];
    if (this.type === COMMAND_COMPLETE) {
      const tag = body.toString("latin1", 0, body.length - 1);
      if (tag === "COMMIT") this.aborted = false;
      else if (tag === "ROLLBACK") this.aborted = true;
      return;
    }
    // NotificationResponse: Int32 pid, String channel, String payload.
    const end = body.indexOf(0, 4);
    const raw = new Uint8Array(5 + body.length);
    raw.set(this.header);
    raw.set(body, 5);
    this.notifications.push({ channel: body.toString("utf8", 4, end), raw });
  }
}

function cString(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return [buf.toString("utf8", at, end), end + 1];
}

function frame(type: number, parts: Buffer[]): Uint8Array {
  const body = Buffer.concat(parts);
  const out = Buffer.alloc(5 + body.length);
  out[0] = type;
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

const quoteIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;

type ParsedStmt = {
  stmt?: { ListenStmt?: { conditionname?: string }; UnlistenStmt?: { conditionname?: string } };
  stmt_location?: number;
  stmt_len?: number;
};

/**
 * Reads the LISTEN and UNLISTEN statements of a query text with PostgreSQL's own parser, and
 * rewrites each UNLISTEN into a no-op (see NOOP_CHANNEL). Offsets are UTF-8 bytes.
 */
async function listenStatements(sql: Buffer): Promise<{ actions: ListenAction[]; sql: Buffer }> {
  const { parse } = await import("libpg-query");
  let parsed: { stmts?: ParsedStmt[] };
  try {
    parsed = (await parse(sql.toString("utf8"))) as unknown as { stmts?: ParsedStmt[] };
  } catch {
    return { actions: [], sql }; // the session reports the syntax error itself
  }
  const actions: ListenAction[] = [];
  const pieces: Buffer[] = [];
  let at = 0;
  for (const s of parsed.stmts ?? []) {
    const listen = s.stmt?.ListenStmt;
    const unlisten = s.stmt?.UnlistenStmt;
    if (listen?.conditionname) actions.push({ listen: true, channel: listen.conditionname });
    if (!unlisten) continue;
    actions.push({ listen: false, channel: unlisten.conditionname ?? null });
    const start = s.stmt_location ?? 0;
    const end = s.stmt_len ? start + s.stmt_len : sql.length;
    pieces.push(sql.subarray(at, start), Buffer.from(`UNLISTEN ${NOOP_CHANNEL}`));
    at = end;
  }
  if (pieces.length === 0) return { actions, sql };
  pieces.push(sql.subarray(at));
  return { actions, sql: Buffer.concat(pieces) };
}

const mentionsListen = /listen/i;

/**
 * LISTEN/NOTIFY across the client connections of the embedded server. PGlite has one session, so
 * a LISTEN from any connection makes that session listen, and the notifications it receives come
 * out in the response of whatever statement committed them. This keeps per connection the
 * channels it listens on (its own LISTEN and UNLISTEN statements, taking effect when its
 * transaction commits, as in PostgreSQL), keeps the session listening on their union, and hands
 * each notification to every connection listening on its channel.
 */
export class NotificationRouter {
  private connections = new Map<number, Connection>();
  /** Channels the session listens on (each from a connection's committed LISTEN). */
  private session = new Set<string>();
  /** A connection stopped listening somewhere: the session may listen on more than the union. */
  private shrunk = false;

  attach(id: number, send: (bytes: Uint8Array) => void): void {
    this.connections.set(id, { send, channels: new Set(), pending: [], aborted: false });
  }

  detach(id: number): void {
    if (this.connections.get(id)?.channels.size) this.shrunk = true;
    this.connections.delete(id);
  }

  /** The message to run for a connection and its LISTEN/UNLISTEN statements. */
  async plan(id: number, message: Uint8Array): Promise<{ message: Uint8Array; actions: ListenAction[] }> {
    const type = message[0];
    if ((type !== QUERY && type !== PARSE) || !this.connections.has(id)) return { message, actions: [] };
    const buf = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
    if (!mentionsListen.test(buf.toString("latin1", 5))) return { message, actions: [] };
    if (type === QUERY) {
      const end = buf.indexOf(0, 5);
      const r = await listenStatements(buf.subarray(5, end));
      if (r.actions.length === 0) return { message, actions: [] };
      return { message: frame(QUERY, [r.sql, Buffer.from([0])]), actions: r.actions };
    }
    // Parse: String name, String query, Int16 + Int32[] parameter types.
    const [, queryAt] = cString(buf, 5);
    const queryEnd = buf.indexOf(0, queryAt);
    const r = await listenStatements(buf.subarray(queryAt, queryEnd));
    if (r.actions.length === 0) return { message, actions: [] };
    return { message: frame(PARSE, [buf.subarray(5, queryAt), r.sql, buf.subarray(queryEnd)]), actions: r.actions };
  }

  /**
   * A framing pass over the response is needed only while the session may emit notifications, or
   * to see how this connection's LISTEN/UNLISTEN transaction ends.
   */
  stream(id: number, actions: ListenAction[], forward: (d: Uint8Array) => void): BackendStream | null {
    const pending = this.connections.get(id)?.pending.length ?? 0;
    return this.session.size > 0 || pending > 0 || actions.length > 0 ? new BackendStream(forward) : null;
  }

  /**
   * After one message of a connection ran: records its LISTEN/UNLISTEN statements, applies them if
   * its transaction ended committed (`ended`: the session is outside any transaction and extended-
   * protocol sequence), then delivers the notifications the response carried.
   */
  settle(id: number, actions: ListenAction[], stream: BackendStream | null, ended: boolean): void {
    const c = this.connections.get(id);
    if (c) {
      c.pending.push(...actions);
      if (stream && stream.aborted !== null) c.aborted = stream.aborted;
      if (ended) {
        if (!c.aborted) for (const a of c.pending) this.apply(c, a);
        c.pending = [];
        c.aborted = false;
      }
    }
    if (!stream) return;
    for (const n of stream.notifications) {
      for (const l of this.connections.values()) if (l.channels.has(n.channel)) l.send(n.raw);
    }
  }

  private apply(c: Connection, a: ListenAction): void {
    if (a.listen && a.channel !== null) {
      c.channels.add(a.channel);
      this.session.add(a.channel);
    } else if (a.channel === null) {
      c.channels.clear();
      this.shrunk = true;
    } else {
      c.channels.delete(a.channel);
      this.shrunk = true;
    }
  }

  /**
   * Stops the session listening on channels no connection listens on any more. Call only outside
   * any transaction: an UNLISTEN inside a client's transaction would become part of it.
   */
  async tidy(db: PGlite): Promise<void> {
    if (!this.shrunk) return;
    this.shrunk = false;
    const stale = [...this.session].filter(
      (ch) =>
        ![...this.connections.values()].some(
          (c) => c.channels.has(ch) || c.pending.some((a) => a.listen && a.channel === ch),
        ),
    );
    if (stale.length === 0) return;
    for (const ch of stale) this.session.delete(ch);
    const sql = Buffer.from(stale.map((ch) => `UNLISTEN ${quoteIdent(ch)}`).join("; "));
    const stream = new BackendStream(() => undefined);
    await db.runExclusive(() =>
      db.execProtocolRawStream(frame(QUERY, [sql, Buffer.from([0])]), { onRawData: (d) => stream.write(d) }),
    );
    // Its own commit carries nothing, but a notification is never dropped silently.
    this.settle(-1, [], stream, false);
  }
}
