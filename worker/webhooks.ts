import type pg from "pg";
import type { Config } from "../lib/config";
import { log } from "../lib/log";
import { retryDelaySeconds, parseRetryAfter } from "../lib/webhooks/backoff";
import { createSender, type Sender } from "../lib/webhooks/send";
import * as sql from "../lib/webhooks/sql";

export type WebhookSettings = {
  concurrency: number;
  pollMs: number;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseSeconds: number;
  retryMaxSeconds: number;
  allowPrivateNetworks: boolean;
  retentionDays: number;
};

export function webhookSettings(cfg: Config): WebhookSettings {
  return {
    concurrency: cfg.WEBHOOK_CONCURRENCY,
    pollMs: cfg.WEBHOOK_POLL_MS,
    timeoutMs: cfg.WEBHOOK_TIMEOUT_MS,
    maxAttempts: cfg.WEBHOOK_MAX_ATTEMPTS,
    retryBaseSeconds: cfg.WEBHOOK_RETRY_BASE_SECONDS,
    retryMaxSeconds: cfg.WEBHOOK_RETRY_MAX_SECONDS,
    allowPrivateNetworks: cfg.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    retentionDays: cfg.WEBHOOK_RETENTION_DAYS,
  };
}

/**
 * A worker's webhook sender: claims due deliveries (SKIP LOCKED, with a lease, as tasks are
 * claimed), posts each one signed, and records the outcome fenced by the lease attempt. Every
 * worker process runs one beside its task loop; they share nothing but the table.
 */
export class WebhookDeliveryLoop {
  private running = false;
  private loopDone: Promise<void> | null = null;
  private inflight = new Set<Promise<void>>();
  private wakeUp: (() => void) | null = null;
  private readonly send: Sender;
  readonly stats = { claimed: 0, delivered: 0, failed: 0, dead: 0, lost: 0 };

  constructor(private readonly o: { pool: pg.Pool; workerId: string; settings: WebhookSettings; sender?: Sender }) {
    this.send =
      o.sender ??
      createSender({ timeoutMs: o.settings.timeoutMs, allowPrivateNetworks: o.settings.allowPrivateNetworks });
  }

  /**
   * The lease outlives the request: the timeout bounds every send, so a lease that runs out means
   * the sender is gone (or its process stalled), and another worker may send again.
   */
  private get leaseSeconds(): number {
    return this.o.settings.timeoutMs / 1000 + 30;
  }

  start(): void {
    if (this.running || this.o.settings.concurrency === 0) return;
    this.running = true;
    this.loopDone = this.loop();
    log.info({ workerId: this.o.workerId, concurrency: this.o.settings.concurrency }, "webhook delivery started");
  }

  private lastPrune = 0;

  private async loop(): Promise<void> {
    while (this.running) {
      let full = false;
      try {
        full = await this.tick();
        // Retention is counted in days: a sweep a minute per worker is plenty.
        if (Date.now() - this.lastPrune > 60_000) {
          this.lastPrune = Date.now();
          const { rowCount } = await this.o.pool.query(sql.pruneEvents(this.o.settings.retentionDays, 1000));
          if (rowCount) log.info({ removed: rowCount }, "pruned webhook events past retention");
        }
      } catch (err) {
        log.warn({ err: (err as Error).message }, "webhook claim failed");
      }
      if (!this.running) break;
      // A full batch means more may be due: go again as soon as a slot frees instead of waiting.
      if (full && this.inflight.size > 0) await Promise.race([...this.inflight, this.sleep(this.o.settings.pollMs)]);
      else await this.sleep(this.o.settings.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** One claim round; true when every free slot was filled. */
  async tick(): Promise<boolean> {
    const s = this.o.settings;
    await this.o.pool.query(sql.expireExhausted(s.maxAttempts));
    const free = s.concurrency - this.inflight.size;
    if (free <= 0) return true;
    const { rows } = await this.o.pool.query<sql.ClaimedDelivery>(
      sql.claimDeliveries(this.o.workerId, free, s.maxAttempts, this.leaseSeconds),
    );
    this.stats.claimed += rows.length;
    for (const d of rows) {
      const p: Promise<void> = this.deliver(d)
        .catch((err) =>
          log.warn(
            { err: (err as Error).message, deliveryId: d.id },
            "webhook outcome not recorded; the lease will expire and the delivery be retried",
          ),
        )
        .finally(() => this.inflight.delete(p));
      this.inflight.add(p);
    }
    return rows.length === free;
  }

  private async deliver(d: sql.ClaimedDelivery): Promise<void> {
    const s = this.o.settings;
    const secrets = d.previous_secret ? [d.secret, d.previous_secret] : [d.secret];
    const r = await this.send({ url: d.url, messageId: d.message_id, body: d.body, secrets });
    const owner = this.o.workerId;
    const stmt = r.ok
      ? sql.markDelivered(d.id, owner, d.attempts, r.statusCode, r.latencyMs)
      : sql.markFailed(
          d.id,
          owner,
          d.attempts,
          s.maxAttempts,
          retryDelaySeconds(d.attempts, s.retryBaseSeconds, s.retryMaxSeconds, parseRetryAfter(r.retryAfter)),
          r.statusCode,
          r.latencyMs,
          r.error.slice(0, 500),
        );
    const { rows } = await this.o.pool.query<{ status: string }>(stmt);
    const ctx = {
      deliveryId: d.id,
      messageId: d.message_id,
      type: d.type,
      endpointId: d.endpoint_id,
      attempt: d.attempts,
      latencyMs: r.latencyMs,
    };
    if (!rows[0]) {
      this.stats.lost++;
      log.warn(ctx, "webhook lease lost before the outcome was recorded");
    } else if (r.ok) {
      this.stats.delivered++;
      log.debug({ ...ctx, status: r.statusCode }, "webhook delivered");
    } else if (rows[0].status === "DEAD") {
      this.stats.dead++;
      log.warn({ ...ctx, status: r.statusCode, err: r.error }, "webhook delivery dead after its last attempt");
    } else {
      this.stats.failed++;
      log.info({ ...ctx, status: r.statusCode, err: r.error }, "webhook attempt failed; retry scheduled");
    }
  }

  /** No new claims; sends in flight finish (each is bounded by the timeout) or are left to their lease. */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wakeUp?.();
    await this.loopDone;
    await Promise.race([Promise.all([...this.inflight]), new Promise((r) => setTimeout(r, graceMs).unref())]);
    log.info({ workerId: this.o.workerId, ...this.stats }, "webhook delivery stopped");
  }
}
