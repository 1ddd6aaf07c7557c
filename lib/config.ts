import { z } from "zod";
import { HNSW_MAX_DIMENSIONS } from "./db/vector-index";

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const num = (def: number, min = 0) => z.coerce.number().min(min).default(def);

const schema = z.object({
  DATABASE_URL: z.string().optional(),
  PORT: int(3000, 1),
  LEASE_SECONDS: num(60, 0.2),
  HEARTBEAT_SECONDS: num(0, 0),
  MAX_ATTEMPTS: int(8, 1),
  RETRY_BASE_SECONDS: num(2, 0),
  RETRY_MAX_SECONDS: num(300, 0),
  POLL_INTERVAL_MS: int(2000, 10),
  EMBED_BATCH_SIZE: int(64, 1),
  EMBED_BATCH_MAX_BYTES: int(256 * 1024, 1024),
  WORKER_CONCURRENCY: int(2, 1),
  WORKER_TASKS_PER_SLOT: int(8, 1),
  // Claim and complete as named statements (lib/queue/engine.ts): "auto" is on for an external
  // PostgreSQL and off on the embedded database, whose connections share one session.
  WORKER_PREPARED_STATEMENTS: z.enum(["auto", "true", "false"]).default("auto"),
  EMBEDDING_PROVIDER: z.enum(["local", "openai"]).default("local"),
  EMBEDDING_MODEL: z.string().optional(),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().optional(),
  EMBEDDING_TIMEOUT_MS: int(30000, 100),
  MAX_CONTENT_BYTES: int(10 * 1024 * 1024, 1),
  RETENTION_HOURS: num(24 * 7, 0),
  SHUTDOWN_GRACE_SECONDS: num(30, 0),
  // Read by lib/search/search.ts; parsed here so a bad value stops start instead of sending every search to HNSW.
  SEARCH_EXACT_MAX_CHUNKS: int(5000, 0),
  // Read by lib/search/search.ts: search statements named and the HNSW settings kept per session;
  // "auto" is on for an external PostgreSQL and off on the embedded database (always off there);
  // "false" behind a transaction-mode pooler, which does not keep session settings.
  SEARCH_PREPARED_STATEMENTS: z.enum(["auto", "true", "false"]).default("auto"),
  // Read by lib/documents/publish.ts: a publish's statements named, parsed and planned once per
  // connection; "auto" is on for an external PostgreSQL, never on the embedded database; unset, it
  // follows SEARCH_PREPARED_STATEMENTS (the same web process's connections).
  PUBLISH_PREPARED_STATEMENTS: z.enum(["auto", "true", "false"]).optional(),
  LOG_LEVEL: z.string().default("info"),
  INDEXWRIGHT_DATA_DIR: z.string().default(".indexwright"),
  INDEXWRIGHT_BOOTSTRAP_TOKEN: z.string().min(16).optional(),
  INDEXWRIGHT_SESSION_SECRET: z.string().optional(),
  // Webhook delivery (lib/webhooks/, worker/webhooks.ts). Private and loopback receivers are
  // refused unless allowed: a webhook URL is an admin-chosen request from inside the network.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100),
  WEBHOOK_MAX_ATTEMPTS: int(10, 1),
  WEBHOOK_RETRY_BASE_SECONDS: num(10, 0),
  WEBHOOK_RETRY_MAX_SECONDS: num(3600, 0),
  WEBHOOK_POLL_MS: int(1000, 10),
  WEBHOOK_CONCURRENCY: int(4, 0),
  WEBHOOK_RETENTION_DAYS: int(30, 1),
  FAULT_AFTER_CHUNK_BATCH: z.coerce.number().int().min(1).optional(),
  FAULT_BEFORE_INDEX_SWITCH: z.string().optional(),
  FAULT_DROP_LEASE_HEARTBEAT: z.string().optional(),
  FAULT_AFTER_PUBLISH_COMMIT: z.string().optional(),
});

export type Config = z.infer<typeof schema> & { heartbeatSeconds: number };

/** Every variable loadConfig reads (.env.example documents each). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

/** Parses environment variables (empty ones count as unset); throws a readable error naming the bad variable. */
export function parseEnv<S extends z.ZodType>(s: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = s.safeParse(cleaned);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`invalid configuration: ${first.path.join(".")}: ${first.message}`);
  }
  return parsed.data;
}

/** Reads configuration from the environment; throws a readable error naming the bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const c = parseEnv(schema, env);
  // A heartbeat at or past the lease lets the lease lapse between renewals: another worker takes
  // the task over while this one still runs it. Refuse the setting instead of fencing it out later.
  if (c.HEARTBEAT_SECONDS > 0 && c.HEARTBEAT_SECONDS >= c.LEASE_SECONDS) {
    throw new Error(`invalid configuration: HEARTBEAT_SECONDS (${c.HEARTBEAT_SECONDS}) must be less than LEASE_SECONDS (${c.LEASE_SECONDS}); lease/3 is the default`);
  }
  // The cap would silently win over the base from the first retry on: every delay the same.
  if (c.RETRY_BASE_SECONDS > c.RETRY_MAX_SECONDS) {
    throw new Error(`invalid configuration: RETRY_BASE_SECONDS (${c.RETRY_BASE_SECONDS}) must not exceed RETRY_MAX_SECONDS (${c.RETRY_MAX_SECONDS})`);
  }
  if (c.WEBHOOK_RETRY_BASE_SECONDS > c.WEBHOOK_RETRY_MAX_SECONDS) {
    throw new Error(`invalid configuration: WEBHOOK_RETRY_BASE_SECONDS (${c.WEBHOOK_RETRY_BASE_SECONDS}) must not exceed WEBHOOK_RETRY_MAX_SECONDS (${c.WEBHOOK_RETRY_MAX_SECONDS})`);
  }
  // pgvector's HNSW indexes `vector` up to 2,000 dimensions and `halfvec` up to 4,000; above that
  // every search would be a sequential scan, so refuse rather than degrade silently.
  if (c.EMBEDDING_DIMENSIONS !== undefined && c.EMBEDDING_DIMENSIONS > HNSW_MAX_DIMENSIONS) {
    throw new Error(
      `invalid configuration: EMBEDDING_DIMENSIONS (${c.EMBEDDING_DIMENSIONS}) is above ${HNSW_MAX_DIMENSIONS}, the most pgvector's HNSW index supports (as halfvec); ask the provider for fewer (OpenAI's text-embedding-3 models shorten their vectors to the dimensions requested)`,
    );
  }
  // The local embedder has one model and ignores EMBEDDING_MODEL: a model named without a provider
  // is almost always a forgotten EMBEDDING_PROVIDER=openai, and would index with the wrong model.
  if (c.EMBEDDING_PROVIDER === "local" && c.EMBEDDING_MODEL !== undefined) {
    throw new Error(
      `invalid configuration: EMBEDDING_MODEL (${c.EMBEDDING_MODEL}) is set but EMBEDDING_PROVIDER is local${env.EMBEDDING_PROVIDER ? "" : " (the default)"}, which ignores it; set EMBEDDING_PROVIDER=openai or unset EMBEDDING_MODEL`,
    );
  }
  return { ...c, heartbeatSeconds: c.HEARTBEAT_SECONDS > 0 ? c.HEARTBEAT_SECONDS : c.LEASE_SECONDS / 3 };
}
