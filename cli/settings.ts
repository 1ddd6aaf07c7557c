import {
  environment,
  loadConfig,
  loadProxyConfig,
  loadReconcileConfig,
  oidcSettings,
  tracingSettings,
  type Config,
  type OidcSettings,
  type ProxyConfig,
  type ReconcileConfig,
  type TracingSettings,
} from "../lib/config";
import { createEmbedder } from "../lib/embedding";
import { indexedVector } from "../lib/db/vector-index";
import { checkAdminPassword } from "../lib/auth/users";

export type Settings = {
  cfg: Config;
  reconcile: ReconcileConfig;
  proxy: ProxyConfig;
  sso: OidcSettings | null;
  tracing: TracingSettings | null;
  embedding: { provider: string; model: string; dimensions: number; indexedAs: "vector" | "halfvec" };
};

/**
 * Every setting `npm start` checks before it starts anything, parsed once: a bad or contradictory
 * value throws a message naming the variables (HEARTBEAT_SECONDS vs LEASE_SECONDS, RETRY_BASE_SECONDS
 * vs RETRY_MAX_SECONDS, EMBEDDING_DIMENSIONS above the index limit, EMBEDDING_PROVIDER=openai without
 * OPENAI_API_KEY, a bad reconciler setting or TRUST_PROXY_HOPS, an incomplete SSO setup) instead of
 * a worker crash-looping on it, or a failure at someone's first sign-in.
 */
export function checkSettings(env: Record<string, string | undefined> = environment()): Settings {
  const cfg = loadConfig(env);
  if (env.INDEXWRIGHT_ADMIN_PASSWORD) checkAdminPassword(env.INDEXWRIGHT_ADMIN_PASSWORD);
  const embedder = createEmbedder(cfg);
  return {
    cfg,
    reconcile: loadReconcileConfig(env),
    proxy: loadProxyConfig(env),
    sso: oidcSettings(env),
    tracing: tracingSettings(env),
    embedding: {
      provider: cfg.EMBEDDING_PROVIDER,
      model: embedder.model,
      dimensions: embedder.dimensions,
      indexedAs: indexedVector(embedder.dimensions).type,
    },
  };
}

const SECRET = /(KEY|TOKEN|SECRET|PASSWORD)$/;

/** The settings as a process sees them, secrets masked: for `indexwright config`. */
export function describeSettings(s: Settings): Record<string, unknown> {
  const mask = (o: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(o).map(([k, v]) => {
        if (v === undefined || v === "") return [k, v];
        if (SECRET.test(k)) return [k, "(set)"];
        if ((k === "DATABASE_URL" || k === "DATABASE_READ_URL") && typeof v === "string") {
          try {
            const u = new URL(v);
            if (u.password) u.password = "***";
            return [k, u.toString()];
          } catch {
            return [k, "(set)"];
          }
        }
        return [k, v];
      }),
    );
  const proxy = {
    TRUST_PROXY_HOPS: s.proxy.TRUST_PROXY_HOPS,
    TRUSTED_PROXY_ADDRESSES: s.proxy.TRUSTED_PROXY_ADDRESSES.rules,
  };
  return {
    ...mask(s.cfg as unknown as Record<string, unknown>),
    ...s.reconcile,
    ...proxy,
    sso: s.sso ? { issuer: s.sso.issuer, clientId: s.sso.clientId } : null,
    // Export headers usually carry a vendor's API key: their names only.
    tracing: s.tracing
      ? { url: s.tracing.url, serviceName: s.tracing.serviceName, headers: Object.keys(s.tracing.headers) }
      : null,
    embedding: s.embedding,
  };
}
