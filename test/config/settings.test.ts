import { describe, expect, it } from "vitest";
import { loadConfig } from "../../lib/config";
import { checkSettings } from "../../cli/settings";

describe("settings start refuses", () => {
  it("a retry base above the retry cap", () => {
    expect(() => loadConfig({ RETRY_BASE_SECONDS: "30", RETRY_MAX_SECONDS: "10" })).toThrow(
      /RETRY_BASE_SECONDS \(30\) must not exceed RETRY_MAX_SECONDS \(10\)/,
    );
    expect(loadConfig({ RETRY_BASE_SECONDS: "10", RETRY_MAX_SECONDS: "10" }).RETRY_MAX_SECONDS).toBe(10);
  });

  it("a heartbeat at or past the lease", () => {
    expect(() => loadConfig({ LEASE_SECONDS: "10", HEARTBEAT_SECONDS: "10" })).toThrow(
      /HEARTBEAT_SECONDS \(10\) must be less than LEASE_SECONDS \(10\)/,
    );
  });

  it("more embedding dimensions than an HNSW index takes; above 2,000 they are indexed as halfvec", () => {
    expect(() => loadConfig({ EMBEDDING_DIMENSIONS: "4001" })).toThrow(/EMBEDDING_DIMENSIONS \(4001\) is above 4000/);
    expect(checkSettings({ EMBEDDING_DIMENSIONS: "4000" }).embedding).toMatchObject({
      dimensions: 4000,
      indexedAs: "halfvec",
    });
    expect(checkSettings({ EMBEDDING_DIMENSIONS: "2001" }).embedding.indexedAs).toBe("halfvec");
    expect(checkSettings({ EMBEDDING_DIMENSIONS: "2000" }).embedding.indexedAs).toBe("vector");
    expect(
      checkSettings({
        EMBEDDING_PROVIDER: "openai",
        OPENAI_API_KEY: "k",
        EMBEDDING_MODEL: "text-embedding-3-large",
        EMBEDDING_DIMENSIONS: "3072",
      }).embedding,
    ).toEqual({
      provider: "openai",
      model: "text-embedding-3-large",
      dimensions: 3072,
      indexedAs: "halfvec",
    });
  });

  it("a model named for the local embedder, which has one model and would ignore it", () => {
    expect(() => loadConfig({ EMBEDDING_MODEL: "text-embedding-3-large" })).toThrow(
      /EMBEDDING_MODEL \(text-embedding-3-large\) is set but EMBEDDING_PROVIDER is local \(the default\)/,
    );
    expect(() => loadConfig({ EMBEDDING_PROVIDER: "local", EMBEDDING_MODEL: "x" })).toThrow(
      /EMBEDDING_PROVIDER is local, which ignores it/,
    );
  });

  it("the openai provider without a key, and an unparsable exact-search threshold", () => {
    expect(() => checkSettings({ EMBEDDING_PROVIDER: "openai" })).toThrow(
      /EMBEDDING_PROVIDER=openai requires OPENAI_API_KEY/,
    );
    expect(() => checkSettings({ SEARCH_EXACT_MAX_CHUNKS: "lots" })).toThrow(/SEARCH_EXACT_MAX_CHUNKS/);
    expect(() => checkSettings({ TRUST_PROXY_HOPS: "-1" })).toThrow(/TRUST_PROXY_HOPS/);
  });
});
