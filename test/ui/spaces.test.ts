import { describe, expect, it } from "vitest";
import { ApiError } from "../../lib/ui/api";
import {
  MIGRATION_ACTIONS,
  activeSpaceOf,
  isBuildingMigration,
  isOpenMigration,
  migrationFailuresHref,
  notReadyCounts,
  spaceErrorField,
  type MigrationView,
  type SpaceView,
} from "../../lib/ui/spaces";

const ref = (id: number, name: string) => ({ id, name, model: `${name}-model`, dimensions: 384 });

function migration(state: MigrationView["state"], active: string): MigrationView {
  return {
    id: "7",
    tenant: "acme",
    state,
    from: ref(1, "old"),
    to: ref(2, "new"),
    active,
    shadow: null,
    autoSwitch: false,
    documents: { total: 3, built: 1, failed: 0, pending: 2, running: 0 },
    failures: [],
    textsEmbedded: 0,
    tokensEmbedded: 0,
    estimatedCostUsd: null,
    documentsPerMinute: null,
    etaSeconds: null,
    indexBuilt: false,
    evaluation: null,
    reason: null,
    createdBy: "user:ada@example.com",
    createdAt: "2026-12-01T10:00:00.000Z",
    readyAt: null,
    switchedAt: null,
    switchedBy: null,
    endedAt: null,
    endedBy: null,
  };
}

const space = (name: string, isDefault: boolean) => ({ name, isDefault }) as SpaceView;

describe("migration states in the dashboard", () => {
  it("offers each state only the actions the server accepts in it", () => {
    expect(MIGRATION_ACTIONS.BUILDING).toEqual(["switch", "abort"]);
    expect(MIGRATION_ACTIONS.READY).toEqual(["switch", "abort"]);
    expect(MIGRATION_ACTIONS.SWITCHED).toEqual(["switch-back", "finish"]);
    for (const s of ["SWITCHED_BACK", "ABORTED", "FINISHED"] as const) expect(MIGRATION_ACTIONS[s]).toEqual([]);
  });

  it("polls closely while building or ready, and counts SWITCHED as open", () => {
    expect(isBuildingMigration(migration("BUILDING", "old"))).toBe(true);
    expect(isBuildingMigration(migration("READY", "old"))).toBe(true);
    expect(isBuildingMigration(migration("SWITCHED", "new"))).toBe(false);
    expect(isOpenMigration(migration("SWITCHED", "new"))).toBe(true);
    expect(isOpenMigration(migration("FINISHED", "new"))).toBe(false);
  });

  it("names the active space from the newest migration, else the default space", () => {
    expect(activeSpaceOf([migration("SWITCHED", "new")], [space("old", true)])).toEqual({
      name: "new",
      fromDefault: false,
    });
    expect(activeSpaceOf([], [space("x", false), space("old", true)])).toEqual({ name: "old", fromDefault: true });
    expect(activeSpaceOf([], undefined)).toEqual({ name: null, fromDefault: true });
  });

  it("links a failure code to the tasks list filtered to the tenant's dead MIGRATE tasks of that code", () => {
    const href = migrationFailuresHref("acme", "EMBEDDING_PROVIDER_UNAVAILABLE");
    const q = new URLSearchParams(href.split("?")[1]);
    expect(href.startsWith("/tasks?")).toBe(true);
    expect(Object.fromEntries(q)).toEqual({
      type: "MIGRATE",
      status: "DEAD",
      errorCode: "EMBEDDING_PROVIDER_UNAVAILABLE",
      tenant: "acme",
    });
  });
});

describe("refusals the dialogs explain", () => {
  it("reads the counts of a MIGRATION_NOT_READY, and nothing from other errors", () => {
    const notReady = new ApiError(409, "MIGRATION_NOT_READY", "…", {}, { total: 5, built: 3, unverified: 1 });
    expect(notReadyCounts(notReady)).toEqual({ total: 5, built: 3, unverified: 1 });
    // The refusal for a missing index carries no counts.
    expect(notReadyCounts(new ApiError(409, "MIGRATION_NOT_READY", "index not built"))).toBeNull();
    expect(notReadyCounts(new ApiError(409, "MIGRATION_OPEN", "…", {}, { total: 5, built: 3 }))).toBeNull();
    expect(notReadyCounts(new Error("boom"))).toBeNull();
  });

  it("puts each probe refusal at the field it concerns", () => {
    const at = (code: string, message = "m", fields: Record<string, string> = {}) =>
      spaceErrorField(new ApiError(code === "SPACE_NAME_TAKEN" ? 409 : 422, code, message, fields))?.field;
    expect(at("SPACE_NAME_TAKEN")).toBe("name");
    expect(at("SPACE_KEY_MISSING")).toBe("apiKeyEnv");
    expect(at("SPACE_UNREACHABLE")).toBe("baseUrl");
    expect(at("SPACE_DIMENSIONS_MISMATCH")).toBe("dimensions");
    expect(at("VALIDATION_FAILED", "model: required", { model: "required" })).toBe("model");
    expect(at("VALIDATION_FAILED", "x", { "chunker.targetChars": "too small" })).toBe("targetChars");
    expect(at("INTERNAL_ERROR")).toBeUndefined();
  });
});
