// A CommonJS bundle whose exports Node's ESM loader cannot list: take the module object.
import nextEnv from "@next/env";

/**
 * Loads `.env` files from `dir` into process.env with Next's own loader (@next/env, the one
 * `next start` and `next dev` use), so the worker and the CLI read exactly the files, in exactly
 * the order, that the dashboard does. First match wins, and a variable already in the real
 * environment is never overridden:
 *
 *   .env.production.local, .env.local, .env.production, .env
 *
 * `production` is `development` when NODE_ENV=development (as under `next dev`) and `test` when
 * NODE_ENV=test, which also skips `.env.local`. Values may refer to others as `$NAME` / `${NAME}`.
 *
 * Once a process has loaded them it marks its environment (__NEXT_PROCESSED_ENV), so the processes
 * `npm start` launches take the values it passes down instead of reading the files again.
 * Returns the files that were read, in order of precedence.
 */
export function loadEnvFiles(dir: string = process.cwd()): string[] {
  const dev = process.env.NODE_ENV === "development";
  const { loadedEnvFiles } = nextEnv.loadEnvConfig(dir, dev, {
    info: () => undefined,
    error: (...args: unknown[]) => process.stderr.write(`${args.map(String).join(" ")}\n`),
  });
  return loadedEnvFiles.map((f) => f.path);
}
