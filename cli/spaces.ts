import { parseArgs } from "node:util";
import { unwrap } from "../lib/client";
import { CONNECTION_OPTIONS, connect } from "./api";
import { print } from "./print";
import { UsageError } from "./remote";

// `spaces` and `migrate`: index spaces and a tenant's migration from one to another
// (docs/index-spaces.md#index-spaces-and-migrations), through the typed client like every remote command.

const show = (json: boolean | undefined, data: unknown, human: () => string[]) =>
  print(json ? JSON.stringify(data, null, 2) : human().join("\n"));

const pct = (built: number, total: number) => (total === 0 ? "100" : ((100 * built) / total).toFixed(1));

function describeMigration(m: {
  id: string;
  tenant: string;
  state: string;
  from: { name: string };
  to: { name: string };
  active: string;
  documents: { total: number; built: number; failed: number };
  failures: { errorCode: string; count: number }[];
  etaSeconds: number | null;
  tokensEmbedded: number;
  estimatedCostUsd: number | null;
  indexBuilt: boolean;
}): string[] {
  const d = m.documents;
  return [
    `migration ${m.id} of ${m.tenant}: ${m.from.name} → ${m.to.name}, ${m.state}; search reads ${m.active}`,
    `  built ${d.built}/${d.total} (${pct(d.built, d.total)} %)${d.failed ? `, ${d.failed} failed` : ""}` +
      `${m.etaSeconds ? `, about ${Math.ceil(m.etaSeconds / 60)} min left` : ""}; candidate index ${m.indexBuilt ? "built" : "not built yet"}`,
    `  ${m.tokensEmbedded} tokens embedded${m.estimatedCostUsd === null ? "" : `, about $${m.estimatedCostUsd.toFixed(2)}`}`,
    ...m.failures.map(
      (f) =>
        `  ${f.count} × ${f.errorCode} (retry them: npm run cli -- tasks retry --dead --type MIGRATE --error-code ${f.errorCode})`,
    ),
  ];
}

export async function spacesCmd(argv: string[]): Promise<void> {
  const [sub = "list", ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      ...CONNECTION_OPTIONS,
      name: { type: "string" },
      provider: { type: "string" },
      model: { type: "string" },
      dimensions: { type: "string" },
      "base-url": { type: "string" },
      "api-key-env": { type: "string" },
      "chunk-target-chars": { type: "string" },
      "texts-per-minute": { type: "string" },
      "price-per-million-tokens": { type: "string" },
      reason: { type: "string" },
    },
  });
  const client = connect(values);
  const num = (flag: keyof typeof values) => {
    const v = values[flag];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new UsageError(`--${flag} takes a number (got ${String(v)})`);
    return n;
  };
  if (sub === "list") {
    const r = await unwrap(client.GET("/api/v1/admin/embedding-spaces"));
    return show(values.json, r, () =>
      r.items.map(
        (s) =>
          `${s.name}${s.isDefault ? " (default)" : ""}${s.retiredAt ? " (retired)" : ""}: ${s.provider} ${s.model} ${s.dimensions}d, ` +
          `${s.tenantsActive} tenant(s) active, index ${s.indexBuilt ? "built" : "not built"}${s.textsPerMinute ? `, ${s.textsPerMinute} texts/min` : ""}`,
      ),
    );
  }
  if (sub === "create") {
    if (!values.name || !values.provider || !values.dimensions)
      throw new UsageError("spaces create needs --name, --provider (local|openai) and --dimensions");
    const target = num("chunk-target-chars");
    const r = await unwrap(
      client.POST("/api/v1/admin/embedding-spaces", {
        body: {
          name: values.name,
          provider: values.provider as "local" | "openai",
          model: values.model,
          dimensions: num("dimensions")!,
          baseUrl: values["base-url"],
          apiKeyEnv: values["api-key-env"],
          chunker: target === undefined ? undefined : { targetChars: target },
          textsPerMinute: num("texts-per-minute"),
          pricePerMillionTokens: num("price-per-million-tokens"),
        },
      }),
    );
    return show(values.json, r, () => [`registered index space ${r.name}: ${r.provider} ${r.model} ${r.dimensions}d`]);
  }
  if (sub === "set") {
    if (!values.name) throw new UsageError("spaces set needs --name");
    const r = await unwrap(
      client.PATCH("/api/v1/admin/embedding-spaces/{name}", {
        params: { path: { name: values.name } },
        body: {
          ...(values["texts-per-minute"] !== undefined ? { textsPerMinute: num("texts-per-minute") } : {}),
          ...(values["price-per-million-tokens"] !== undefined
            ? { pricePerMillionTokens: num("price-per-million-tokens") }
            : {}),
          ...(values["base-url"] !== undefined ? { baseUrl: values["base-url"] } : {}),
          ...(values["api-key-env"] !== undefined ? { apiKeyEnv: values["api-key-env"] } : {}),
        },
      }),
    );
    return show(values.json, r, () => [
      `${r.name}: rate ${r.textsPerMinute ?? "unbounded"} texts/min, price ${r.pricePerMillionTokens ?? "unset"}`,
    ]);
  }
  if (sub === "retire") {
    if (!values.name) throw new UsageError("spaces retire needs --name");
    const r = await unwrap(
      client.POST("/api/v1/admin/embedding-spaces/{name}/retire", {
        params: { path: { name: values.name } },
        body: values.reason ? { reason: values.reason } : {},
      }),
    );
    return show(values.json, r, () => [`${r.name} retired`]);
  }
  throw new UsageError(`spaces ${sub}: expected list, create, set or retire`);
}

export async function migrationCmd(argv: string[]): Promise<void> {
  const [sub = "status", ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      ...CONNECTION_OPTIONS,
      tenant: { type: "string" },
      space: { type: "string" },
      from: { type: "string" },
      id: { type: "string" },
      "auto-switch": { type: "boolean" },
      "all-tenants": { type: "boolean" },
      reason: { type: "string" },
    },
  });
  const client = connect(values);
  if (sub === "start") {
    if (!values.space) throw new UsageError("migration start needs --space (and --tenant, or --all-tenants)");
    if (values["all-tenants"]) {
      const r = await unwrap(
        client.POST("/api/v1/admin/migrations", {
          body: { space: values.space, from: values.from, autoSwitch: values["auto-switch"], reason: values.reason },
        }),
      );
      return show(values.json, r, () => [
        `started ${r.started.length} migration(s) to ${values.space}`,
        ...r.skipped.map((s) => `  skipped ${s.tenant}: ${s.reason}`),
      ]);
    }
    if (!values.tenant) throw new UsageError("migration start needs --tenant (or --all-tenants)");
    const r = await unwrap(
      client.POST("/api/v1/tenants/{tenant}/migrations", {
        params: { path: { tenant: values.tenant } },
        body: { space: values.space, autoSwitch: values["auto-switch"], reason: values.reason },
      }),
    );
    return show(values.json, r, () => describeMigration(r));
  }
  if (!values.tenant) throw new UsageError(`migration ${sub} needs --tenant`);
  const tenant = values.tenant;
  const current = async () => {
    if (values.id) return values.id;
    const list = await unwrap(client.GET("/api/v1/tenants/{tenant}/migrations", { params: { path: { tenant } } }));
    const open = list.items.find((m) => ["BUILDING", "READY", "SWITCHED"].includes(m.state)) ?? list.items[0];
    if (!open) throw new UsageError(`tenant ${tenant} has no migration; start one with migration start`);
    return open.id;
  };
  if (sub === "status") {
    const id = await current();
    const r = await unwrap(
      client.GET("/api/v1/tenants/{tenant}/migrations/{id}", { params: { path: { tenant, id } } }),
    );
    return show(values.json, r, () => describeMigration(r));
  }
  if (sub === "switch" || sub === "switch-back" || sub === "abort" || sub === "finish") {
    const id = await current();
    const path = `/api/v1/tenants/{tenant}/migrations/{id}/${sub}` as "/api/v1/tenants/{tenant}/migrations/{id}/switch";
    const r = await unwrap(
      client.POST(path, { params: { path: { tenant, id } }, body: values.reason ? { reason: values.reason } : {} }),
    );
    return show(values.json, r, () => describeMigration(r));
  }
  throw new UsageError(`migration ${sub}: expected start, status, switch, switch-back, abort or finish`);
}
