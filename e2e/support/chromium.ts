import { spawnSync } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

/**
 * Which Chromium the end-to-end suite drives. Looked for, in order: PLAYWRIGHT_CHROMIUM_PATH, the
 * Debian/Ubuntu packages, then browsers Playwright downloaded itself. With none, Playwright's own
 * Chromium is fetched once (`npx playwright install chromium`); where that cannot run (offline, or
 * PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD set), the run stops with the command to run by hand.
 */

/** Where Debian (`chromium`) and Ubuntu (`chromium-browser`, or its snap) put the browser. */
export const SYSTEM_CHROMIUM_PATHS: readonly string[] = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/snap/bin/chromium",
];

export const INSTALL_COMMAND: readonly string[] = ["npx", "playwright", "install", "chromium"];

type Env = Record<string, string | undefined>;

export type ChromiumSearch = {
  env?: Env;
  /** Stands in for the home directory (the default Playwright cache is under it). */
  homeDir?: string;
  systemPaths?: readonly string[];
  /** The revision this Playwright release downloads; preferred among several in the cache. */
  preferredRevision?: string;
};

export type ChromiumFound = { path: string; source: "PLAYWRIGHT_CHROMIUM_PATH" | "system" | "playwright-cache" };

export class ChromiumNotFoundError extends Error {
  readonly code = "CHROMIUM_NOT_FOUND";
}

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Playwright's download folder, as Playwright itself computes it on Linux and macOS. */
export function playwrightCacheDir(env: Env = process.env, homeDir = os.homedir()): string | null {
  const custom = env.PLAYWRIGHT_BROWSERS_PATH;
  // "0" means "inside node_modules/playwright-core", which Playwright finds on its own.
  if (custom === "0") return null;
  if (custom) return path.resolve(custom);
  if (process.platform === "darwin") return path.join(homeDir, "Library", "Caches", "ms-playwright");
  return path.join(env.XDG_CACHE_HOME || path.join(homeDir, ".cache"), "ms-playwright");
}

// The executable's folder has been renamed across Playwright releases and differs per CPU.
const CACHE_EXECUTABLES = [
  ["chrome-linux64", "chrome"],
  ["chrome-linux", "chrome"],
  ["chrome-linux-arm64", "chrome"],
  ["chrome-mac-arm64", "Google Chrome for Testing.app", "Contents", "MacOS", "Google Chrome for Testing"],
  ["chrome-mac-x64", "Google Chrome for Testing.app", "Contents", "MacOS", "Google Chrome for Testing"],
  ["chrome-mac", "Chromium.app", "Contents", "MacOS", "Chromium"],
];

/** Chromium builds in Playwright's cache, newest revision first (the preferred one before all). */
export function cachedChromiums(cacheDir: string, preferredRevision?: string): string[] {
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return [];
  }
  const revisions = names
    .map((n) => /^chromium-(\d+)$/.exec(n)?.[1])
    .filter((r): r is string => r !== undefined)
    .sort((a, b) => (a === preferredRevision ? -1 : b === preferredRevision ? 1 : Number(b) - Number(a)));
  const found: string[] = [];
  for (const r of revisions) {
    for (const parts of CACHE_EXECUTABLES) {
      const p = path.join(cacheDir, `chromium-${r}`, ...parts);
      if (isExecutableFile(p)) {
        found.push(p);
        break;
      }
    }
  }
  return found;
}

/** The revision the installed Playwright downloads, when it can be read. */
export function bundledChromiumRevision(): string | undefined {
  try {
    // Read from disk rather than imported: the file is outside playwright-core's declared exports.
    const pkg = createRequire(import.meta.url).resolve("playwright-core/package.json");
    const browsers = JSON.parse(readFileSync(path.join(path.dirname(pkg), "browsers.json"), "utf8")) as {
      browsers: { name: string; revision: string }[];
    };
    return browsers.browsers.find((b) => b.name === "chromium")?.revision;
  } catch {
    return undefined;
  }
}

/** The first Chromium found, or null. A PLAYWRIGHT_CHROMIUM_PATH that is not an executable is an error, never skipped. */
export function findChromium(search: ChromiumSearch = {}): ChromiumFound | null {
  const env = search.env ?? process.env;
  const explicit = env.PLAYWRIGHT_CHROMIUM_PATH;
  if (explicit) {
    if (!isExecutableFile(explicit))
      throw new ChromiumNotFoundError(`PLAYWRIGHT_CHROMIUM_PATH=${explicit} is not an executable file`);
    return { path: explicit, source: "PLAYWRIGHT_CHROMIUM_PATH" };
  }
  for (const p of search.systemPaths ?? SYSTEM_CHROMIUM_PATHS)
    if (isExecutableFile(p)) return { path: p, source: "system" };
  const cache = playwrightCacheDir(env, search.homeDir ?? os.homedir());
  const cached = cache ? cachedChromiums(cache, search.preferredRevision) : [];
  return cached.length > 0 ? { path: cached[0], source: "playwright-cache" } : null;
}

export type ResolveOptions = ChromiumSearch & {
  /** The download command; tests give a harmless one. */
  installCommand?: readonly string[];
  log?: (message: string) => void;
};

/**
 * findChromium, and when nothing is found, Playwright's own download; throws with the exact
 * commands to run when the download is off or fails.
 */
export function resolveChromium(options: ResolveOptions = {}): ChromiumFound {
  const found = findChromium(options);
  if (found) return found;
  const env = options.env ?? process.env;
  const command = options.installCommand ?? INSTALL_COMMAND;
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const howTo = [
    `  ${INSTALL_COMMAND.join(" ")}    (add --with-deps to also install the libraries it needs, as root)`,
    `  or: apt-get install chromium    (Debian; chromium-browser on Ubuntu)`,
    `  or: PLAYWRIGHT_CHROMIUM_PATH=/path/to/chrome npm run test:e2e`,
  ].join("\n");
  const skip = env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD;
  if (skip && skip !== "0" && skip.toLowerCase() !== "false") {
    throw new ChromiumNotFoundError(
      `No Chromium found and PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD is set. Install one:\n${howTo}`,
    );
  }
  log(`[e2e] no Chromium found; fetching Playwright's: ${command.join(" ")}`);
  const r = spawnSync(command[0], command.slice(1), { stdio: "inherit", env: env as NodeJS.ProcessEnv });
  const after = findChromium(options);
  if (r.status === 0 && after) return after;
  const why = r.error
    ? r.error.message
    : r.status !== 0
      ? `it exited with ${r.signal ?? r.status}`
      : "it finished, but no Chromium appeared where Playwright keeps it";
  throw new ChromiumNotFoundError(
    `No Chromium found, and \`${command.join(" ")}\` did not provide one (${why}). Install one:\n${howTo}`,
  );
}
