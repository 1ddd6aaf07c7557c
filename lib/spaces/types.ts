// Index spaces (docs/decisions/039-index-spaces.md): what a tenant's vectors are embedded with.
import { CHUNKER_VERSION } from "../pipeline/chunker";

export const SPACE_PROVIDERS = Object.freeze(["local", "openai"] as const);
export type SpaceProvider = (typeof SPACE_PROVIDERS)[number];

/** A row of embedding_spaces as the code uses it. */
export type Space = {
  id: number;
  name: string;
  provider: SpaceProvider;
  model: string;
  dimensions: number;
  baseUrl: string | null;
  apiKeyEnv: string | null;
  chunkerVersion: string;
  chunkTargetChars: number | null;
  textsPerMinute: number | null;
  pricePerMillionTokens: number | null;
  isDefault: boolean;
  retiredAt: Date | null;
};

export type SpaceRow = {
  id: number;
  name: string;
  provider: string;
  model: string;
  dimensions: number;
  base_url: string | null;
  api_key_env: string | null;
  chunker_version: string;
  chunk_target_chars: number | null;
  texts_per_minute: number | null;
  price_per_million_tokens: number | null;
  is_default: boolean;
  retired_at: Date | null;
};

export const SPACE_COLUMNS = `id, name, provider, model, dimensions, base_url, api_key_env, chunker_version, chunk_target_chars,
       texts_per_minute, price_per_million_tokens, is_default, retired_at`;

export function spaceOfRow(r: SpaceRow): Space {
  return {
    id: r.id,
    name: r.name,
    provider: r.provider as SpaceProvider,
    model: r.model,
    dimensions: r.dimensions,
    baseUrl: r.base_url,
    apiKeyEnv: r.api_key_env,
    chunkerVersion: r.chunker_version,
    chunkTargetChars: r.chunk_target_chars,
    textsPerMinute: r.texts_per_minute,
    pricePerMillionTokens: r.price_per_million_tokens === null ? null : Number(r.price_per_million_tokens),
    isDefault: r.is_default,
    retiredAt: r.retired_at,
  };
}

/**
 * What makes two spaces embed alike: the same function of the text. Connection details (base URL,
 * key variable), the rate and the price can change without a rebuild.
 */
export type SpaceIdentity = Pick<Space, "provider" | "model" | "dimensions" | "chunkerVersion" | "chunkTargetChars">;

export const sameIdentity = (a: SpaceIdentity, b: SpaceIdentity): boolean =>
  a.provider === b.provider &&
  a.model === b.model &&
  a.dimensions === b.dimensions &&
  a.chunkerVersion === b.chunkerVersion &&
  (a.chunkTargetChars ?? null) === (b.chunkTargetChars ?? null);

/** The chunker settings of builds in this space. */
export const chunkerOf = (s: Pick<Space, "chunkTargetChars">) =>
  s.chunkTargetChars === null ? {} : { targetChars: s.chunkTargetChars };

export { CHUNKER_VERSION };

export const MIGRATION_STATES = Object.freeze([
  "BUILDING",
  "READY",
  "SWITCHED",
  "SWITCHED_BACK",
  "ABORTED",
  "FINISHED",
] as const);
export type MigrationState = (typeof MIGRATION_STATES)[number];
/** A migration whose shadow space is kept in step with the active one. */
export const OPEN_MIGRATION_STATES: readonly MigrationState[] = Object.freeze([
  "BUILDING",
  "READY",
  "SWITCHED",
] as const);
