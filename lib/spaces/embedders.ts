// One embedder per index space, made from the space's row and cached for the process.
import type pg from "pg";
import { secretFromEnv } from "../config";
import { LocalEmbedder, OpenAIEmbedder } from "../embedding";
import type { Embedder } from "../embedding/types";
import { LOCAL_MODEL } from "../pipeline/local-embedder";
import { TaskError } from "../queue/errors";
import { loadSpaces } from "./sql";
import { spaceOfRow, type Space, type SpaceRow } from "./types";

/** How long a cached space row is trusted before the table is read again (base URL, key variable, rate changes). */
const SPACES_TTL_MS = 10_000;

/**
 * The embedder of a space. The key is read from the variable the space names when the embedder is
 * made; a space whose variable is unset cannot embed, and says so with a retryable code (setting
 * the variable and restarting fixes it; the documents are not at fault).
 */
export function embedderForSpace(
  space: Space,
  timeoutMs: number,
  circuit?: { failures?: number; openMs?: number },
): Embedder {
  if (space.provider === "local") return new LocalEmbedder(space.dimensions, space.model);
  const apiKey = space.apiKeyEnv ? secretFromEnv(space.apiKeyEnv) : undefined;
  if (!apiKey)
    throw new TaskError(
      "EMBEDDING_PROVIDER_UNAVAILABLE",
      `index space ${space.name}: the variable ${space.apiKeyEnv ?? "(none named)"} that holds its key is not set in this process`,
    );
  return new OpenAIEmbedder({
    apiKey,
    baseURL: space.baseUrl ?? undefined,
    model: space.model,
    dimensions: space.dimensions,
    timeoutMs,
    circuit,
  });
}

/**
 * The spaces and their embedders for one process (a worker, the web server). `preset` is an embedder
 * made elsewhere (the environment's, or a test's) used for every space of the same provider kind,
 * model and dimensions, so its circuit breaker and instrumentation are the ones that count.
 */
export class SpaceEmbedders {
  private readonly embedders = new Map<number, Embedder>();
  private spaces = new Map<number, Space>();
  private loadedAt = 0;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly opts: {
      timeoutMs: number;
      preset?: Embedder | null;
      /** The circuit breaker of each OpenAI-compatible space's embedder (lib/embedding/openai.ts). */
      circuit?: { failures?: number; openMs?: number };
    } = { timeoutMs: 30_000 },
  ) {}

  get preset(): Embedder | null {
    return this.opts.preset ?? null;
  }

  /** The space with this id, read again from the table when unknown or older than SPACES_TTL_MS. */
  async space(pool: pg.Pool | pg.PoolClient, id: number): Promise<Space> {
    if (!this.spaces.has(id) || Date.now() - this.loadedAt > SPACES_TTL_MS) await this.reload(pool);
    const s = this.spaces.get(id);
    if (!s) throw new TaskError("INTERNAL_ERROR", `index space ${id} does not exist`);
    return s;
  }

  async reload(pool: pg.Pool | pg.PoolClient): Promise<void> {
    this.loading ??= (async () => {
      const { rows } = await pool.query<SpaceRow>(loadSpaces().text);
      const next = new Map(rows.map((r) => [r.id, spaceOfRow(r)]));
      // A space whose connection details changed gets a new embedder.
      for (const [id, s] of next) {
        const was = this.spaces.get(id);
        if (was && (was.baseUrl !== s.baseUrl || was.apiKeyEnv !== s.apiKeyEnv)) this.embedders.delete(id);
      }
      this.spaces = next;
      this.loadedAt = Date.now();
    })().finally(() => (this.loading = null));
    await this.loading;
  }

  embedderFor(space: Space): Embedder {
    const p = this.opts.preset;
    if (p && p.model === space.model && p.dimensions === space.dimensions) return p;
    let e = this.embedders.get(space.id);
    if (!e) {
      e = embedderForSpace(space, this.opts.timeoutMs, this.opts.circuit);
      this.embedders.set(space.id, e);
    }
    return e;
  }
}

/** A plain embedder (tests, benchmarks) as the set of one process's space embedders. */
export function asSpaceEmbedders(e: Embedder | SpaceEmbedders, timeoutMs = 30_000): SpaceEmbedders {
  return e instanceof SpaceEmbedders ? e : new SpaceEmbedders({ timeoutMs, preset: e });
}

export { LOCAL_MODEL };
