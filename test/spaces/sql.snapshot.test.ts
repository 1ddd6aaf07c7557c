import { describe, expect, it } from "vitest";
import * as sql from "../../lib/spaces/sql";
import * as actions from "../../lib/spaces/actions-sql";

// Every statement of index spaces and migrations rendered with fixed arguments: any SQL change is a snapshot diff.
describe("index space SQL", () => {
  it("renders every hot-path statement", () => {
    const rendered = {
      tenantSpaces: sql.tenantSpaces(["acme", "globex"]),
      lockTenantSpacesShared: sql.lockTenantSpacesShared(["acme", "globex"]),
      lockTenantSpaceExclusive: sql.lockTenantSpaceExclusive("acme"),
      loadSpaces: sql.loadSpaces(),
      takeRate: sql.takeRate(2, 64),
      countMigrationWork: sql.countMigrationWork([{ tenantId: "acme", texts: 64, tokens: 9000 }]),
      lockShadowPointers: sql.lockShadowPointers(2, ["doc-a", "doc-b"]),
      moveShadowPointers: sql.moveShadowPointers(2, [
        {
          documentId: "doc-a",
          tenantId: "acme",
          indexVersionId: "iv-a2",
          versionNumber: 2,
          previousIndexVersionId: "iv-a1",
          pinned: true,
          pinnedBy: "user:ops",
          pinnedReason: "bad edit",
        },
      ]),
    };
    const exported = Object.entries(sql)
      .filter(([, v]) => typeof v === "function")
      .map(([k]) => k)
      .sort();
    expect(Object.keys(rendered).sort()).toEqual(exported);
    expect(rendered).toMatchSnapshot();
  });

  it("renders every migration statement", () => {
    const rendered = {
      lockOpenMigration: actions.lockOpenMigration("acme"),
      lockMigration: actions.lockMigration("acme", "7"),
      insertMigration: actions.insertMigration("acme", 1, 2, false, "user:ops", "new model", 8),
      dropDeletedPointers: actions.dropDeletedPointers("acme"),
      lockTenant: actions.lockTenant("acme"),
      lockActivePointers: actions.lockActivePointers("acme"),
      lockShadowSpacePointers: actions.lockShadowSpacePointers("acme", 2),
      coverage: actions.coverage("acme", 2),
      migrationTasks: actions.migrationTasks("acme", new Date("2026-12-02T00:00:00Z")),
      swapPointers: actions.swapPointers("acme", 1),
      takeShadowPointers: actions.takeShadowPointers("acme", 2),
      dropShadowPointers: actions.dropShadowPointers("acme", 2),
      endSwap: actions.endSwap(),
      retireUnservedVersions: actions.retireUnservedVersions("acme"),
      setMigrationState: actions.setMigrationState("7", "SWITCHED", { switchedBy: "user:ops", gate: { built: 3 } }),
      buildingMigrations: actions.buildingMigrations(),
    };
    const exported = Object.entries(actions)
      .filter(([, v]) => typeof v === "function")
      .map(([k]) => k)
      .sort();
    expect(Object.keys(rendered).sort()).toEqual(exported);
    expect(rendered).toMatchSnapshot();
  });

  it("names the space in the text, so the planner can match its partial HNSW index", () => {
    expect(() => sql.takeRate(2, 1)).not.toThrow();
    expect(sql.lockTenantSpacesShared(["a"]).text).toContain(
      `pg_advisory_xact_lock_shared(${sql.SPACE_LOCK_NAMESPACE}, hashtext(x.id))`,
    );
    expect(sql.lockTenantSpaceExclusive("a").text).toContain(
      `pg_advisory_xact_lock(${sql.SPACE_LOCK_NAMESPACE}, hashtext($1))`,
    );
  });
});
