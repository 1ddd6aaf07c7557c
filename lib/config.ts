import { BlockList, isIP } from "node:net";
import { z } from "zod";
import { HNSW_MAX_DIMENSIONS } from "./db/vector-index";
import { ROLES, TENANT_PATTERN, type Role } from "./domain/constants";
import { DEFAULT_PARSE_LIMITS } from "./pipeline/parsers/limits";
import * as SLO from "./slo/limits";

// The one reader of process.env (eslint.config.mjs enforces it): every setting's name, default
// and rule is here, one schema per area, so `npm start` can check them all before it starts.

type Env = Record<string, string | undefined>;

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const num = (def: number, min = 0) => z.coerce.number().min(min).default(def);

const schema = z.object({
  DATABASE_URL: z.string().optional(),
  // A streaming replica for the dashboard's reads and search (docs/decisions/041-read-replica.md):
  // reads go to the primary while it is more than REPLICA_MAX_LAG_SECONDS behind, and a caller's read
  // after its own write waits up to READ_YOUR_WRITES_WAIT_MS for the replica, else reads the primary.
  DATABASE_READ_URL: z.string().optional(),
  REPLICA_MAX_LAG_SECONDS: num(5, 0),
  READ_YOUR_WRITES_WAIT_MS: int(100, 0),
  // How long the overview's and the activity chart's figures are shared by every viewer of one
  // tenant scope in a web process (lib/http/single-flight.ts sharedRead); 0: computed per request.
  DASHBOARD_SHARED_READ_MS: int(1000, 0),
  PORT: int(3000, 1),
  // Web processes sharing PORT (node:cluster, cli/web.ts): a number, or "auto" for one per core.
  WEB_PROCESSES: z.union([z.literal("auto"), z.coerce.number().int().min(1).max(64)]).default(1),
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
  // Index-space migrations (docs/decisions/039-index-spaces.md): the slots a worker gives MIGRATE
  // work at most (default: all but one), and the bulk HNSW build's memory and parallel workers.
  MIGRATION_SLOTS: z.coerce.number().int().min(0).optional(),
  MIGRATION_INDEX_MEMORY_MB: int(1024, 64),
  MIGRATION_INDEX_PARALLEL_WORKERS: int(2, 0),
  // The quality gate of a switch (docs/evaluation.md): how much lower the candidate's nDCG@10 on the
  // tenant's evaluation set may be before the switch is refused with EVALUATION_REGRESSED.
  EVALUATION_TOLERANCE: z.coerce.number().min(0).max(1).default(0.02),
  // The search mode the gate compares the two spaces in (vector: the one a change of space changes most).
  EVALUATION_GATE_MODE: z.enum(["vector", "text", "hybrid"]).default("vector"),
  // A run of every tenant's set against its active space (hybrid) this often, by the workers'
  // maintenance; 0 = never. Off by default: each run embeds every query of the set, which a paid
  // provider bills, so an operator opts in with the interval they want to watch.
  EVALUATION_SCHEDULE_MINUTES: int(0, 0),
  // The freshness SLO (docs/operations.md#freshness-slo): the share of publishes searchable within
  // the target, over the window. A tenant's own objective or target (set by an admin) wins.
  SLO_FRESHNESS_OBJECTIVE: z.coerce
    .number()
    .min(SLO.OBJECTIVE_MIN)
    .max(SLO.OBJECTIVE_MAX)
    .default(SLO.DEFAULT_OBJECTIVE),
  SLO_FRESHNESS_TARGET_SECONDS: z.coerce
    .number()
    .int()
    .min(SLO.TARGET_MIN_SECONDS)
    .max(SLO.TARGET_MAX_SECONDS)
    .default(SLO.DEFAULT_TARGET_SECONDS),
  SLO_FRESHNESS_WINDOW_DAYS: z.coerce
    .number()
    .int()
    .min(SLO.WINDOW_MIN_DAYS)
    .max(SLO.WINDOW_MAX_DAYS)
    .default(SLO.DEFAULT_WINDOW_DAYS),
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
  // Parsing runs in a pool of child processes with these limits (lib/pipeline/parsers/sandbox.ts); a file
  // over one ends DEAD with PARSE_LIMIT_EXCEEDED at its first attempt.
  PARSE_PROCESSES: int(DEFAULT_PARSE_LIMITS.processes, 1),
  PARSE_MAX_HEAP_MB: int(DEFAULT_PARSE_LIMITS.heapMb, 32),
  PARSE_TIMEOUT_MS: int(DEFAULT_PARSE_LIMITS.timeoutMs, 1),
  PARSE_MAX_OUTPUT_BYTES: int(DEFAULT_PARSE_LIMITS.maxOutputBytes, 1024),
  PARSE_MAX_SECTIONS: int(DEFAULT_PARSE_LIMITS.maxSections, 1),
  DOCX_MAX_INFLATED_BYTES: int(DEFAULT_PARSE_LIMITS.maxInflatedBytes, 1024),
  PDF_MAX_DECODED_BYTES: int(DEFAULT_PARSE_LIMITS.maxDecodedBytes, 1024),
  PDF_MAX_PAGES: int(DEFAULT_PARSE_LIMITS.maxPages, 1),
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
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
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
function parseEnv<S extends z.ZodType>(s: S, env: Env): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = s.safeParse(cleaned);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`invalid configuration: ${first.path.join(".")}: ${first.message}`);
  }
  return parsed.data;
}

/** Reads configuration from the environment; throws a readable error naming the bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const c = parseEnv(schema, env);
  // A heartbeat at or past the lease lets the lease lapse between renewals: another worker takes
  // the task over while this one still runs it. Refuse the setting instead of fencing it out later.
  if (c.HEARTBEAT_SECONDS > 0 && c.HEARTBEAT_SECONDS >= c.LEASE_SECONDS) {
    throw new Error(
      `invalid configuration: HEARTBEAT_SECONDS (${c.HEARTBEAT_SECONDS}) must be less than LEASE_SECONDS (${c.LEASE_SECONDS}); lease/3 is the default`,
    );
  }
  // The cap would silently win over the base from the first retry on: every delay the same.
  if (c.RETRY_BASE_SECONDS > c.RETRY_MAX_SECONDS) {
    throw new Error(
      `invalid configuration: RETRY_BASE_SECONDS (${c.RETRY_BASE_SECONDS}) must not exceed RETRY_MAX_SECONDS (${c.RETRY_MAX_SECONDS})`,
    );
  }
  if (c.WEBHOOK_RETRY_BASE_SECONDS > c.WEBHOOK_RETRY_MAX_SECONDS) {
    throw new Error(
      `invalid configuration: WEBHOOK_RETRY_BASE_SECONDS (${c.WEBHOOK_RETRY_BASE_SECONDS}) must not exceed WEBHOOK_RETRY_MAX_SECONDS (${c.WEBHOOK_RETRY_MAX_SECONDS})`,
    );
  }
  // The embedded database is one process with no replication: a replica of it cannot exist, so a
  // read URL without DATABASE_URL names some other database, whose answers would be someone else's.
  if (c.DATABASE_READ_URL && !c.DATABASE_URL) {
    throw new Error(
      "invalid configuration: DATABASE_READ_URL is set without DATABASE_URL; a read replica needs the external primary it streams from (the embedded database has none)",
    );
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

// The reconciler's knobs (lib/reconcile/): parsed on their own, so a worker's core configuration
// does not grow with every maintenance job.
const reconcileSchema = z.object({
  /** Seconds between passes across the whole fleet; 0 turns the reconciler off. */
  RECONCILE_INTERVAL_SECONDS: num(30, 0),
  /** A document drifted for longer than this (since its business version was published) is stale. */
  RECONCILE_DRIFT_SECONDS: num(300, 0),
  /** A RUNNING task whose lease expired longer ago than this has not been taken over by any claim. */
  RECONCILE_LEASE_GRACE_SECONDS: num(60, 0),
  /** Repairs per kind per pass; the rest wait for the next pass (SKIPPED_CAP). 0 = report only. */
  RECONCILE_MAX_REPAIRS: int(100, 0),
  /** Findings read per kind per pass, so a pass stays short however much is wrong. */
  RECONCILE_SCAN_LIMIT: int(1000, 1),
  /** anomaly_events and reconcile_passes older than this are pruned. */
  RECONCILE_EVENT_RETENTION_DAYS: num(30, 1),
});

export type ReconcileConfig = z.infer<typeof reconcileSchema>;

export function loadReconcileConfig(env: Env = process.env): ReconcileConfig {
  return parseEnv(reconcileSchema, env);
}

/** The freshness SLO's defaults as the SLI's statements take them (lib/slo/sql.ts). */
export function sloDefaults(
  c: Pick<Config, "SLO_FRESHNESS_OBJECTIVE" | "SLO_FRESHNESS_TARGET_SECONDS" | "SLO_FRESHNESS_WINDOW_DAYS">,
): SLO.SloDefaults {
  return {
    objective: c.SLO_FRESHNESS_OBJECTIVE,
    targetSeconds: c.SLO_FRESHNESS_TARGET_SECONDS,
    windowDays: c.SLO_FRESHNESS_WINDOW_DAYS,
  };
}

/** Loopback and private networks: where a reverse proxy on the same host or network connects from. */
export const PRIVATE_NETWORKS = "127.0.0.0/8,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,::1/128,fc00::/7,fe80::/10";

/** A CIDR list ("10.0.0.0/8, 2001:db8::/32", a bare address = one host) as a BlockList; throws on a bad entry. */
export function proxyNetworks(list: string): BlockList {
  const b = new BlockList();
  for (const raw of list
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean)) {
    const [addr, bits] = raw.split("/");
    const kind = isIP(addr);
    if (!kind) throw new Error(`"${raw}" is not an address or CIDR network`);
    const type = kind === 4 ? "ipv4" : "ipv6";
    const max = kind === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (!/^\d{1,3}$/.test(bits ?? String(max)) || prefix > max) throw new Error(`"${raw}" has a bad prefix length`);
    b.addSubnet(addr, prefix, type);
  }
  return b;
}

// Who may write X-Forwarded-For (lib/http/client-address.ts, cli/web.ts).
const proxySchema = z.object({
  /** Reverse proxies in front of the web process that append to X-Forwarded-For; 0 = none, trust the socket. */
  TRUST_PROXY_HOPS: z
    .string()
    .regex(/^\d{1,2}$/, "must be a whole number of proxies (0 when clients connect directly)")
    .default("0")
    .transform(Number),
  /** Where our proxies connect from: X-Forwarded-For is believed only from these (CIDR list). */
  TRUSTED_PROXY_ADDRESSES: z
    .string()
    .default(PRIVATE_NETWORKS)
    .transform((v, ctx) => {
      try {
        return proxyNetworks(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    }),
});

export type ProxyConfig = { TRUST_PROXY_HOPS: number; TRUSTED_PROXY_ADDRESSES: BlockList };

export function loadProxyConfig(env: Env = process.env): ProxyConfig {
  return parseEnv(proxySchema, env);
}

// Traces (lib/tracing.ts): OpenTelemetry's own variable names, so a collector set up for other
// services is pointed at the same way. Unset endpoint means tracing is off and costs nothing.
const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), { message: "must be an http:// or https:// URL" });
const tracingSchema = z.object({
  /** The collector's base URL; spans go to `<base>/v1/traces` (OTLP over HTTP, protobuf). */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  /** The full URL for spans, when the collector takes them somewhere other than `/v1/traces`. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  /** `key=value,key=value` sent with every export (a vendor's API key); values URL-encoded. */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).optional(),
});

export type TracingSettings = {
  /** Where spans are sent (the traces URL, already resolved from the base). */
  url: string;
  headers: Record<string, string>;
  /** Null: the process names itself (indexwright-web, indexwright-worker). */
  serviceName: string | null;
};

/** The trace export settings, null when no endpoint is set (tracing off); throws naming a bad variable. */
export function tracingSettings(env: Env = process.env): TracingSettings | null {
  const e = parseEnv(tracingSchema, env);
  const url =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (e.OTEL_EXPORTER_OTLP_ENDPOINT ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces` : undefined);
  if (url === undefined) return null;
  const headers: Record<string, string> = {};
  for (const pair of (e.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",")) {
    if (!pair.trim()) continue;
    const at = pair.indexOf("=");
    if (at <= 0)
      throw new Error(`invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: "${pair.trim()}" is not key=value`);
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new Error(`invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: "${pair.trim()}" is not URL-encoded`);
    }
  }
  return { url, headers, serviceName: e.OTEL_SERVICE_NAME ?? null };
}

// Single sign-on through an OpenID Connect provider (lib/auth/oidc.ts); unset OIDC_ISSUER means none.
const oidcSchema = z.object({
  OIDC_ISSUER: z.string().url(),
  OIDC_CLIENT_ID: z.string().min(1),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_DISPLAY_NAME: z.string().min(1).max(60).default("single sign-on"),
  OIDC_SCOPES: z.string().default("openid email profile"),
  // People without an account are created with this role at their first sign-in; unset means an
  // admin must add them first (by email) on the Admin page.
  OIDC_DEFAULT_ROLE: z.enum(ROLES).optional(),
  OIDC_ALLOWED_DOMAINS: z.string().optional(),
  // 1: a first SSO sign-in may take over an existing account that has a password (matched by
  // verified email). Unset: only where the email's domain is in OIDC_ALLOWED_DOMAINS.
  OIDC_LINK_LOCAL_ACCOUNTS: z.enum(["0", "1", "true", "false"]).optional(),
  // Absolute lifetime of a session opened through SSO (seconds, at most the 12-hour default). The
  // provider is asked again when it ends, so groups it removed (or the person) reach Indexwright at
  // least this often.
  OIDC_SESSION_MAX_SECONDS: z.coerce.number().int().min(300).max(43_200).default(43_200),
  // Tenants a person created at first sign-in gets: a comma list, or "*" for all. Unset means none,
  // so a new person sees nothing until an admin grants tenants.
  OIDC_DEFAULT_TENANTS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    )
    .refine((ts) => ts.every((t) => t === "*" || TENANT_PATTERN.test(t)) && (!ts.includes("*") || ts.length === 1), {
      message: 'a comma list of tenant names, or "*" alone',
    }),
  // The ID-token claim that lists a person's groups (e.g. "groups"); they become `group:<name>`
  // principals in search, replaced at every sign-in. Unset: groups come only from admins.
  OIDC_GROUPS_CLAIM: z.string().min(1).max(100).optional(),
  // Plain-http issuers are refused unless this is set (local providers in development and tests).
  OIDC_ALLOW_HTTP: z.enum(["0", "1", "true", "false"]).optional(),
  INDEXWRIGHT_PUBLIC_URL: z.string().url().optional(),
});

export type OidcSettings = {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  displayName: string;
  scopes: string;
  defaultRole?: Role;
  defaultTenants: string[];
  groupsClaim?: string;
  allowedDomains: string[];
  linkLocalAccounts: boolean;
  sessionMaxSeconds: number;
  allowHttp: boolean;
  publicUrl?: string;
};

/** The SSO settings, null when SSO is not configured; throws naming the bad variable when misconfigured. */
export function oidcSettings(env: Env = process.env): OidcSettings | null {
  if (!env.OIDC_ISSUER) return null;
  const e = parseEnv(oidcSchema, env);
  return {
    issuer: e.OIDC_ISSUER,
    clientId: e.OIDC_CLIENT_ID,
    clientSecret: e.OIDC_CLIENT_SECRET,
    displayName: e.OIDC_DISPLAY_NAME,
    scopes: e.OIDC_SCOPES,
    defaultRole: e.OIDC_DEFAULT_ROLE,
    defaultTenants: e.OIDC_DEFAULT_TENANTS,
    groupsClaim: e.OIDC_GROUPS_CLAIM,
    allowedDomains: (e.OIDC_ALLOWED_DOMAINS ?? "")
      .split(",")
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
    linkLocalAccounts: e.OIDC_LINK_LOCAL_ACCOUNTS === "1" || e.OIDC_LINK_LOCAL_ACCOUNTS === "true",
    sessionMaxSeconds: e.OIDC_SESSION_MAX_SECONDS,
    allowHttp: e.OIDC_ALLOW_HTTP === "1" || e.OIDC_ALLOW_HTTP === "true",
    publicUrl: e.INDEXWRIGHT_PUBLIC_URL?.replace(/\/+$/, ""),
  };
}

/**
 * Settings read as the environment holds them, at the moment they are needed: no rule beyond the
 * default their reader applies (the ones the schemas above also check are checked by `npm start`).
 * Read at call time, not cached, so a test that sets one sees it.
 */
export type RawSetting =
  | "DATABASE_URL"
  | "DATABASE_READ_URL"
  | "PG_POOL_MAX"
  | "PORT"
  | "EMBEDDED_DB_PORT"
  | "LOG_LEVEL"
  | "LOG_FORMAT"
  | "INDEXWRIGHT_PROCESS"
  | "INDEXWRIGHT_URL"
  | "INDEXWRIGHT_TOKEN"
  | "INDEXWRIGHT_BOOTSTRAP_TOKEN"
  | "INDEXWRIGHT_SESSION_SECRET"
  | "INDEXWRIGHT_PUBLIC_URL"
  | "INDEXWRIGHT_DATA_DIR"
  | "INDEXWRIGHT_ADMIN_EMAIL"
  | "INDEXWRIGHT_ADMIN_PASSWORD"
  | "INDEXWRIGHT_DEMO"
  | "SEARCH_EXACT_MAX_CHUNKS"
  | "SEARCH_PREPARED_STATEMENTS"
  | "PUBLISH_PREPARED_STATEMENTS"
  | "WORKER_METRICS_PORT"
  | "WORKER_METRICS_HOST";

export function setting(name: RawSetting): string | undefined {
  return process.env[name];
}

/** Several raw settings as one record, for readers that take an environment (tests pass their own). */
export function settings<N extends RawSetting>(...names: N[]): Partial<Record<N, string>> {
  return Object.fromEntries(names.map((n) => [n, process.env[n]])) as Partial<Record<N, string>>;
}

/**
 * The names an index space may give for its key: `…_API_KEY`, and never one of this product's own
 * variables. A space sends the value to its base URL as a bearer token, so a free choice would let
 * an admin send any server secret (DATABASE_URL, INDEXWRIGHT_SESSION_SECRET, OIDC_CLIENT_SECRET) to
 * a host of their choosing.
 */
export function isProviderKeyVariable(name: string): boolean {
  if (name === "OPENAI_API_KEY") return true;
  return (
    /^[A-Z][A-Z0-9_]{0,119}_API_KEY$/.test(name) && !name.startsWith("INDEXWRIGHT_") && !CONFIG_VARIABLES.includes(name)
  );
}

/**
 * The value of the environment variable an index space names for its key (embedding_spaces.api_key_env):
 * the database holds the variable's name, never the key. Only upper-case names of letters, digits
 * and underscores are read.
 */
export function secretFromEnv(name: string): string | undefined {
  if (!isProviderKeyVariable(name)) return undefined;
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : v;
}

/** The whole environment: what `npm start` checks (cli/settings.ts) and what its child processes inherit. */
export function environment(): NodeJS.ProcessEnv {
  return process.env;
}

/** Sets a variable for this process and the code it loads later (Next reads NODE_ENV as it loads). */
export function setEnv(name: "NODE_ENV" | RawSetting, value: string): void {
  (process.env as Env)[name] = value;
}
