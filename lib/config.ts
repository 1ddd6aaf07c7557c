import { z } from "zod";

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
  EMBEDDING_PROVIDER: z.enum(["local", "openai"]).default("local"),
  EMBEDDING_MODEL: z.string().optional(),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(16000).optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().optional(),
  EMBEDDING_TIMEOUT_MS: int(30000, 100),
  MAX_CONTENT_BYTES: int(10 * 1024 * 1024, 1),
  RETENTION_HOURS: num(24 * 7, 0),
  SHUTDOWN_GRACE_SECONDS: num(30, 0),
  LOG_LEVEL: z.string().default("info"),
  INDEXWRIGHT_DATA_DIR: z.string().default(".indexwright"),
  INDEXWRIGHT_BOOTSTRAP_TOKEN: z.string().min(16).optional(),
  INDEXWRIGHT_SESSION_SECRET: z.string().optional(),
  FAULT_AFTER_CHUNK_BATCH: z.coerce.number().int().min(1).optional(),
  FAULT_BEFORE_INDEX_SWITCH: z.string().optional(),
  FAULT_DROP_LEASE_HEARTBEAT: z.string().optional(),
  FAULT_AFTER_PUBLISH_COMMIT: z.string().optional(),
});

export type Config = z.infer<typeof schema> & { heartbeatSeconds: number };

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
  return { ...c, heartbeatSeconds: c.HEARTBEAT_SECONDS > 0 ? c.HEARTBEAT_SECONDS : c.LEASE_SECONDS / 3 };
}


export function faultOn(v: string | undefined): boolean {
  return v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
}
