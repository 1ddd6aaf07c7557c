// The index-space and migration API's shapes: the route handlers parse with them, the OpenAPI
// document is drawn from them (lib/http/openapi-schemas.ts), the dashboard's hooks read them.
import { z } from "zod";
import { HNSW_MAX_DIMENSIONS } from "../db/vector-index";
import { isProviderKeyVariable } from "../config";
import { MIGRATION_STATES, SPACE_PROVIDERS } from "./types";

export const spaceName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    "a space name is 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit",
  );

const apiKeyEnv = z
  .string()
  .refine(
    isProviderKeyVariable,
    "apiKeyEnv is the NAME of an environment variable ending in _API_KEY (never the key, never one of Indexwright's own settings)",
  );

/** A provider's base URL: http(s), no credentials in it (they would be shown to every reader of the space). */
const baseUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine((u) => {
    const p = new URL(u);
    return p.username === "" && p.password === "";
  }, "baseUrl must not carry credentials: put the key in the variable apiKeyEnv names");

export const newSpaceBody = z
  .object({
    name: spaceName,
    provider: z.enum(SPACE_PROVIDERS),
    /** For `local`, the local embedder's one model; omit it. */
    model: z.string().min(1).max(200).optional(),
    dimensions: z.number().int().min(1).max(HNSW_MAX_DIMENSIONS),
    baseUrl: baseUrl.optional(),
    apiKeyEnv: apiKeyEnv.optional(),
    chunker: z
      .object({ targetChars: z.number().int().min(200).max(20_000).optional() })
      .strict()
      .optional(),
    textsPerMinute: z.number().int().min(1).max(10_000_000).optional(),
    pricePerMillionTokens: z.number().min(0).max(1_000_000).optional(),
  })
  .strict();
export type NewSpaceBody = z.infer<typeof newSpaceBody>;

export const spacePatchBody = z
  .object({
    baseUrl: baseUrl.nullable().optional(),
    apiKeyEnv: apiKeyEnv.nullable().optional(),
    textsPerMinute: z.number().int().min(1).max(10_000_000).nullable().optional(),
    pricePerMillionTokens: z.number().min(0).max(1_000_000).nullable().optional(),
  })
  .strict();
export type SpacePatchBody = z.infer<typeof spacePatchBody>;

export const spaceView = z.object({
  id: z.number().int(),
  name: z.string(),
  provider: z.enum(SPACE_PROVIDERS),
  model: z.string(),
  dimensions: z.number().int(),
  baseUrl: z.string().nullable(),
  apiKeyEnv: z.string().nullable(),
  chunker: z.object({ version: z.string(), targetChars: z.number().int().nullable() }),
  textsPerMinute: z.number().int().nullable(),
  pricePerMillionTokens: z.number().nullable(),
  isDefault: z.boolean(),
  retiredAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  createdBy: z.string(),
  tenantsActive: z.number().int(),
  openMigrations: z.number().int(),
  indexBuilt: z.boolean(),
});
export type SpaceView = z.infer<typeof spaceView>;

export const newMigrationBody = z
  .object({
    space: spaceName,
    /** Switch as soon as the candidate may serve (coverage, integrity; the evaluation gate when one is set). */
    autoSwitch: z.boolean().optional(),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .strict();

export const fleetMigrationBody = z
  .object({
    /** Every tenant whose active space is `from` (by default: every tenant not on `space`). */
    from: spaceName.optional(),
    space: spaceName,
    autoSwitch: z.boolean().optional(),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .strict();

export const migrationIdParam = z.string().regex(/^[1-9][0-9]{0,17}$/, "a migration id is a positive integer");

const spaceRef = z.object({ id: z.number().int(), name: z.string(), model: z.string(), dimensions: z.number().int() });

export const migrationView = z.object({
  id: z.string(),
  tenant: z.string(),
  state: z.enum(MIGRATION_STATES),
  from: spaceRef,
  to: spaceRef,
  /** The space search reads now, and the one kept in step beside it (null once the migration ended). */
  active: z.string(),
  shadow: z.string().nullable(),
  autoSwitch: z.boolean(),
  documents: z.object({
    total: z.number().int(),
    built: z.number().int(),
    failed: z.number().int(),
    pending: z.number().int(),
    running: z.number().int(),
  }),
  failures: z.array(z.object({ errorCode: z.string(), count: z.number().int() })),
  textsEmbedded: z.number().int(),
  tokensEmbedded: z.number().int(),
  estimatedCostUsd: z.number().nullable(),
  documentsPerMinute: z.number().nullable(),
  etaSeconds: z.number().int().nullable(),
  indexBuilt: z.boolean(),
  /** What the switch was judged on; null before it. */
  evaluation: z.unknown().nullable(),
  reason: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.iso.datetime(),
  readyAt: z.iso.datetime().nullable(),
  switchedAt: z.iso.datetime().nullable(),
  switchedBy: z.string().nullable(),
  endedAt: z.iso.datetime().nullable(),
  endedBy: z.string().nullable(),
});
export type MigrationView = z.infer<typeof migrationView>;
