import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  cachedChromiums,
  ChromiumNotFoundError,
  findChromium,
  INSTALL_COMMAND,
  playwrightCacheDir,
  resolveChromium,
} from "../../e2e/support/chromium";

// Temporary folders stand in for /usr/bin, the home directory and Playwright's cache; nothing is
// downloaded: the "install" commands below are small node scripts that make (or fail to make) a file.
let root: string;
let home: string;
let bin: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "iw-chromium-"));
  home = path.join(root, "home");
  bin = path.join(root, "bin");
  mkdirSync(home);
  mkdirSync(bin);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function executable(p: string, mode = 0o755): string {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, "#!/bin/sh\n");
  chmodSync(p, mode);
  return p;
}

const cacheOf = (h: string) => path.join(h, ".cache", "ms-playwright");
const noEnv = (extra: Record<string, string> = {}): Record<string, string | undefined> => ({
  PATH: process.env.PATH,
  ...extra,
});

describe("findChromium", () => {
  it("takes PLAYWRIGHT_CHROMIUM_PATH before every other place", () => {
    const mine = executable(path.join(root, "custom", "chrome"));
    const system = executable(path.join(bin, "chromium"));
    const found = findChromium({
      env: noEnv({ PLAYWRIGHT_CHROMIUM_PATH: mine }),
      homeDir: home,
      systemPaths: [system],
    });
    expect(found).toEqual({ path: mine, source: "PLAYWRIGHT_CHROMIUM_PATH" });
  });

  it("refuses a PLAYWRIGHT_CHROMIUM_PATH that is missing or not executable, rather than quietly using another browser", () => {
    const system = executable(path.join(bin, "chromium"));
    const notExec = executable(path.join(root, "plain", "chrome"), 0o644);
    for (const bad of [path.join(root, "nope"), notExec, root]) {
      expect(() =>
        findChromium({ env: noEnv({ PLAYWRIGHT_CHROMIUM_PATH: bad }), homeDir: home, systemPaths: [system] }),
      ).toThrow(ChromiumNotFoundError);
    }
  });

  it("takes the first system package path that exists, in the order given", () => {
    const browser = executable(path.join(bin, "chromium-browser"));
    const found = findChromium({ env: noEnv(), homeDir: home, systemPaths: [path.join(bin, "chromium"), browser] });
    expect(found).toEqual({ path: browser, source: "system" });
  });

  it("falls back to Playwright's cache: the preferred revision first, else the newest, in old and new folder layouts", () => {
    const cache = cacheOf(home);
    const old = executable(path.join(cache, "chromium-1100", "chrome-linux", "chrome"));
    const newer = executable(path.join(cache, "chromium-1255", "chrome-linux64", "chrome"));
    mkdirSync(path.join(cache, "chromium-1300")); // an interrupted download: no executable inside
    executable(path.join(cache, "chromium_headless_shell-1400", "chrome-linux64", "chrome")); // not the full browser
    expect(cachedChromiums(cache)).toEqual([newer, old]);
    expect(findChromium({ env: noEnv(), homeDir: home, systemPaths: [] })).toEqual({
      path: newer,
      source: "playwright-cache",
    });
    expect(findChromium({ env: noEnv(), homeDir: home, systemPaths: [], preferredRevision: "1100" })?.path).toBe(old);
  });

  it("looks where Playwright does: PLAYWRIGHT_BROWSERS_PATH, else XDG_CACHE_HOME, else ~/.cache", () => {
    expect(playwrightCacheDir(noEnv(), home)).toBe(cacheOf(home));
    expect(playwrightCacheDir(noEnv({ XDG_CACHE_HOME: path.join(root, "xdg") }), home)).toBe(
      path.join(root, "xdg", "ms-playwright"),
    );
    expect(playwrightCacheDir(noEnv({ PLAYWRIGHT_BROWSERS_PATH: path.join(root, "pw") }), home)).toBe(
      path.join(root, "pw"),
    );
    expect(playwrightCacheDir(noEnv({ PLAYWRIGHT_BROWSERS_PATH: "0" }), home)).toBeNull();
    const chrome = executable(path.join(root, "pw", "chromium-1255", "chrome-linux64", "chrome"));
    expect(
      findChromium({ env: noEnv({ PLAYWRIGHT_BROWSERS_PATH: path.join(root, "pw") }), homeDir: home, systemPaths: [] })
        ?.path,
    ).toBe(chrome);
  });

  it("finds nothing in an empty machine", () => {
    expect(findChromium({ env: noEnv(), homeDir: home, systemPaths: [path.join(bin, "chromium")] })).toBeNull();
  });
});

describe("resolveChromium", () => {
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);
  beforeEach(() => {
    logs.length = 0;
  });

  it("does not run the install command when a browser is already there", () => {
    const system = executable(path.join(bin, "chromium"));
    const marker = path.join(root, "ran");
    const found = resolveChromium({
      env: noEnv(),
      homeDir: home,
      systemPaths: [system],
      installCommand: [process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`],
      log,
    });
    expect(found.path).toBe(system);
    expect(existsSync(marker)).toBe(false);
    expect(logs).toEqual([]);
  });

  it("runs the install command when nothing is found, then uses what it put in Playwright's cache", () => {
    const target = path.join(cacheOf(home), "chromium-1255", "chrome-linux64", "chrome");
    const script = `const fs = require("fs"); fs.mkdirSync(${JSON.stringify(path.dirname(target))}, { recursive: true }); fs.writeFileSync(${JSON.stringify(target)}, ""); fs.chmodSync(${JSON.stringify(target)}, 0o755);`;
    const found = resolveChromium({
      env: noEnv(),
      homeDir: home,
      systemPaths: [],
      installCommand: [process.execPath, "-e", script],
      log,
    });
    expect(found).toEqual({ path: target, source: "playwright-cache" });
    expect(logs.join("\n")).toContain("fetching Playwright's");
  });

  it("stops with the exact command to run when the download fails (offline)", () => {
    let err: unknown;
    try {
      resolveChromium({
        env: noEnv(),
        homeDir: home,
        systemPaths: [],
        installCommand: [process.execPath, "-e", "process.exit(3)"],
        log,
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ChromiumNotFoundError);
    expect((err as ChromiumNotFoundError).code).toBe("CHROMIUM_NOT_FOUND");
    expect((err as Error).message).toContain("exited with 3");
    expect((err as Error).message).toContain(INSTALL_COMMAND.join(" "));
    expect((err as Error).message).toContain("PLAYWRIGHT_CHROMIUM_PATH=");
  });

  it("says so when the command succeeds but leaves no browser, and when the command cannot start", () => {
    expect(() =>
      resolveChromium({
        env: noEnv(),
        homeDir: home,
        systemPaths: [],
        installCommand: [process.execPath, "-e", ""],
        log,
      }),
    ).toThrow(/no Chromium appeared/);
    expect(() =>
      resolveChromium({
        env: noEnv(),
        homeDir: home,
        systemPaths: [],
        installCommand: [path.join(root, "no-such-npx")],
        log,
      }),
    ).toThrow(/ENOENT/);
  });

  it("does not download when PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD is set", () => {
    const marker = path.join(root, "ran");
    expect(() =>
      resolveChromium({
        env: noEnv({ PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" }),
        homeDir: home,
        systemPaths: [],
        installCommand: [process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`],
        log,
      }),
    ).toThrow(/PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD is set[\s\S]*npx playwright install chromium/);
    expect(logs).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });
});
