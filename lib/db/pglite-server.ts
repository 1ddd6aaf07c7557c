import net from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from "@electric-sql/pglite-socket";
import { NotificationRouter } from "./pglite-notify";

type Queued = { handlerId: number; message: Uint8Array; onData: (d: Uint8Array) => void; resolve: (n: number) => void; reject: (e: Error) => void };

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

export class PGliteServer {
  private server: net.Server | null = null;
  private handlers = new Set<PGLiteSocketHandler>();
  private queue: StickyQueryQueue;
  private router = new NotificationRouter();

  constructor(private readonly o: { db: PGlite; host: string; port: number; maxConnections: number }) {
    this.queue = new StickyQueryQueue(o.db, this.router);
  }

  async start(): Promise<void> {
    await this.o.db.waitReady;
    this.server = net.createServer((socket) => {
      if (this.handlers.size >= this.o.maxConnections) {
        socket.destroy();
        return;
      }
      const handler = new PGLiteSocketHandler({ queryQueue: this.queue as unknown as PGLiteSocketHandlerOptions["queryQueue"], closeOnDetach: true });
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
      void handler.attach(socket).catch(() => {
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
