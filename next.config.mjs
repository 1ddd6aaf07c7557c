// @ts-check

/** @type {import("next").NextConfig} */
const config = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Server-only packages with native-ish or dynamic requires stay outside the bundle.
  serverExternalPackages: ["pg", "pino", "@prisma/client", "@prisma/adapter-pg", "@electric-sql/pglite", "prom-client"],
  // `npm test` runs `tsc --noEmit` over the whole project; no need to type-check twice on build.
  typescript: { ignoreBuildErrors: true },
};

export default config;
