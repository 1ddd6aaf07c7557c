import net from "node:net";
import { createHash, timingSafeEqual } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from "@electric-sql/pglite-socket";
import { NotificationRouter } from "./pglite-notify";

type Queued = {
  handlerId: number;
  message: Uint8Array;
  onData: (d: Uint8Array) => void;
  resolve: (n: number) => void;
  reject: (e: Error) => void;
};

// Frontend message types of the extended query protocol that leave a sequence open until Sync.
const EXTENDED = new Set(["P", "B", "D", "E", "C", "H", "d", "c", "f"].map((c) => c.charCodeAt(0)));
const SYNC = "S".charCodeAt(0);

/**
 * PGlite has a single session, so messages from many client connections must be multiplexed.
 * The stock pglite-socket queue keeps one client's messages together only inside an explicit
 * transaction; between them it interleaves per message, so client A's Parse can be followed by
 * client B's Bind and the unnamed prepared statement is clobbered ("bind message supplies 1
 * parameters, but prepared statement requires 3"). This queue also stays with one client from
 * its first extended-protocol message until its Sync, so every pg query runs whole.
 *
 * Named prepared statements are the one thing it cannot separate: they live in the single session,
 * so two client connections preparing the same name collide (42P05 "prepared statement already
 * exists") and a name outlives the connection that made it. Code that runs against the embedded
 * database sends its statements unnamed (see lib/auth/throttle.ts, which unnames a library's).
 *
 * LISTEN/NOTIFY crosses connections through the NotificationRouter: the notifications a response
 * carries are taken out of it and written to the connections listening on their channel, between
 * two messages' responses, when no socket is in the middle of one.
 */
export class StickyQueryQueue {
  private queue: Queued[] = [];
  private processing = false;
  private owner: number | null = null;
  private openSequence = false;

  constructor(
    private readonly db: PGlite,
    private readonly router: NotificationRouter = new NotificationRouter(),
  ) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (d: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  private held(): boolean {
    return this.owner !== null && (this.openSequence || this.db.isInTransaction());
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        let idx = 0;
        if (this.held()) {
          idx = this.queue.findIndex((q) => q.handlerId === this.owner);
          if (idx === -1) break; // the owner's next message has not arrived yet
        }
        const q = this.queue.splice(idx, 1)[0];
        let bytes = 0;
        const forward = (d: Uint8Array) => {
          bytes += d.length;
          q.onData(d);
        };
        let plan: Awaited<ReturnType<NotificationRouter["plan"]>>;
        let stream: ReturnType<NotificationRouter["stream"]>;
        try {
          plan = await this.router.plan(q.handlerId, q.message);
          stream = this.router.stream(q.handlerId, plan.actions, forward);
          const onRawData = stream ? (d: Uint8Array) => stream!.write(d) : forward;
          await this.db.runExclusive(() => this.db.execProtocolRawStream(plan.message, { onRawData }));
        } catch (err) {
          q.reject(err as Error);
          continue;
        }
        const type = q.message[0];
        this.owner = q.handlerId;
        if (EXTENDED.has(type)) this.openSequence = true;
        else if (type === SYNC || type === "Q".charCodeAt(0)) this.openSequence = false;
        this.router.settle(q.handlerId, plan.actions, stream, !this.held());
        q.resolve(bytes);
        if (!this.held()) {
          // Best effort: a session left listening on a channel nobody wants only drops what arrives.
          await this.router.tidy(this.db).catch(() => undefined);
        }
      }
    } finally {
      this.processing = false;
    }
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((q) => {
      if (q.handlerId !== handlerId) return true;
      q.reject(new Error("Handler disconnected"));
      return false;
    });
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec("ROLLBACK");
    this.owner = null;
    this.openSequence = false;
    await this.process();
  }
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
const MAX_STARTUP_BYTES = 10_000;
const AUTH_TIMEOUT_MS = 10_000;

function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat([
    ...[
      ["S", "FATAL"],
      ["V", "FATAL"],
      ["C", code],
      ["M", message],
    ].map(([k, v]) => Buffer.from(`${k}${v}\0`, "utf8")),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

const digest = (v: string | Buffer) => createHash("sha256").update(v).digest();

/**
 * Password authentication in front of PGlite, which has none of its own: PGlite answers every
 * startup message with AuthenticationOk, so any local process could connect as superuser.
 * (@electric-sql/pglite-socket 0.2 forwards the startup message to PGlite as it is and has no
 * authentication option.) This reads the connection's startup exchange before the socket is handed
 * to pglite-socket: SSL and GSS encryption requests are declined ('N'), the StartupMessage is held,
 * the client is asked for a cleartext password (AuthenticationCleartextPassword) and refused with
 * 28P01 unless it matches; then the held StartupMessage is replayed to PGlite, whose
 * AuthenticationOk, ParameterStatus and ReadyForQuery complete the exchange as a server's would.
 * Cleartext is acceptable here because the server listens on loopback only: reading loopback
 * traffic takes the privileges that could read the password file anyway. Resolves with the held
 * StartupMessage, or null when the connection was refused (and closed).
 */
export function authenticateStartup(socket: net.Socket, password: string): Promise<Buffer | null> {
  const want = digest(password);
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let startup: Buffer | null = null;
    let user = "";
    const done = (result: Buffer | null, refusal?: Buffer) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("error", onEnd);
      socket.off("close", onEnd);
      if (refusal && socket.writable) socket.end(refusal);
      else if (!result) socket.destroy();
      resolve(result);
    };
    const onEnd = () => done(null);
    const timer = setTimeout(() => done(null, errorResponse("08P01", "authentication timed out")), AUTH_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (!startup) {
          if (buf.length < 8) return;
          const len = buf.readInt32BE(0);
          if (len < 8 || len > MAX_STARTUP_BYTES)
            return done(null, errorResponse("08P01", "invalid startup packet length"));
          if (buf.length < len) return;
          const code = buf.readInt32BE(4);
          const msg = buf.subarray(0, len);
          buf = buf.subarray(len);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            socket.write("N");
            continue;
          }
          // PGlite cannot cancel a running statement; a cancel request is closed without effect.
          if (code === CANCEL_REQUEST) return done(null);
          if (code !== PROTOCOL_3) return done(null, errorResponse("0A000", "unsupported frontend protocol"));
          const params = msg.subarray(8).toString("utf8").split("\0");
          user = params[params.indexOf("user") + 1] ?? "";
          startup = Buffer.from(msg);
          socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3])); // AuthenticationCleartextPassword
          continue;
        }
        if (buf.length < 5) return;
        if (buf[0] !== 0x70) return done(null, errorResponse("08P01", "expected a password message"));
        const len = buf.readInt32BE(1);
        if (len < 5 || len > MAX_STARTUP_BYTES)
          return done(null, errorResponse("08P01", "invalid password message length"));
        if (buf.length < 1 + len) return;
        const given = buf.subarray(5, 1 + len - 1); // without the terminating NUL
        if (!timingSafeEqual(digest(given), want))
          return done(null, errorResponse("28P01", `password authentication failed for user "${user}"`));
        return done(startup);
      }
    };
    socket.on("data", onData);
    socket.once("error", onEnd);
    socket.once("close", onEnd);
  });
}

export class PGliteServer {
  private server: net.Server | null = null;
  private handlers = new Set<PGLiteSocketHandler>();
  private queue: StickyQueryQueue;
  private router = new NotificationRouter();

  constructor(
    private readonly o: { db: PGlite; host: string; port: number; maxConnections: number; password: string },
  ) {
    this.queue = new StickyQueryQueue(o.db, this.router);
  }

  async start(): Promise<void> {
    await this.o.db.waitReady;
    this.server = net.createServer(async (socket) => {
      if (this.handlers.size >= this.o.maxConnections) {
        socket.destroy();
        return;
      }
      const startup = await authenticateStartup(socket, this.o.password);
      if (!startup || socket.destroyed) return;
      const handler = new PGLiteSocketHandler({
        queryQueue: this.queue as unknown as PGLiteSocketHandlerOptions["queryQueue"],
        closeOnDetach: true,
      });
      this.handlers.add(handler);
      const id = handler.handlerId;
      this.router.attach(id, (bytes) => {
        if (socket.writable) socket.write(bytes);
      });
      const drop = () => {
        this.handlers.delete(handler);
        this.router.detach(id);
      };
      handler.addEventListener("close", drop);
      handler.addEventListener("error", drop);
      // attach() subscribes to the socket before it returns; the held StartupMessage goes first.
      void handler
        .attach(socket)
        .then(() => socket.emit("data", startup))
        .catch(() => {
          drop();
          socket.destroy();
        });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(this.o.port, this.o.host, () => resolve());
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const h of this.handlers) await h.detach(true).catch(() => undefined);
    this.handlers.clear();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}
