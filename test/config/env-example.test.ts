import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { CONFIG_VARIABLES } from "../../lib/config";
import { loadReconcileConfig } from "../../lib/config";

const example = readFileSync(".env.example", "utf8");
const documented = new Set([...example.matchAll(/^# ([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));

describe(".env.example", () => {
  it("sets nothing: every value is commented out", () => {
    expect(example.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"))).toEqual([]);
  });

  it("documents every variable of docs/configuration.md's settings table and every one the configuration parses", () => {
    const readme = readFileSync("docs/configuration.md", "utf8");
    const table = readme.slice(
      readme.indexOf("## Settings"),
      readme.indexOf("\n## ", readme.indexOf("## Settings") + 5),
    );
    const fromReadme = table
      .split("\n")
      .filter((l) => l.startsWith("| `"))
      .flatMap((l) => [...l.split("|")[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));
    expect(fromReadme.length).toBeGreaterThan(30);
    const expected = [
      ...new Set([
        ...fromReadme,
        ...CONFIG_VARIABLES,
        ...Object.keys(loadReconcileConfig({})),
        "TRUST_PROXY_HOPS",
        "TRUSTED_PROXY_ADDRESSES",
      ]),
    ];
    expect(expected.filter((v) => !documented.has(v))).toEqual([]);
  });
});
