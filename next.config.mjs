// @ts-check
import { PHASE_DEVELOPMENT_SERVER } from "next/constants.js";

/**
 * Content-Security-Policy for every response, pages and API alike. default-src 'self' and no
 * framing (frame-ancestors 'none': clickjacking); no plugins, no <base> or form targets elsewhere.
 * Scripts and styles allow 'unsafe-inline' because Next.js streams inline <script> tags (hydration
 * data) into every page and React writes style attributes; nonces would cover the scripts only on
 * dynamically rendered pages (the sign-in page is static) and never the style attributes. Nothing
 * outside our origin may run or load, so an injected script tag cannot pull code in or send data
 * out (connect-src 'self'). The dev server also needs 'unsafe-eval' (React's dev tooling).
 * e2e/csp.e2e.ts loads every page and fails on any violation.
 * @param {boolean} dev
 */
function contentSecurityPolicy(dev) {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** @type {(phase: string) => import("next").NextConfig} */
const config = (phase) => ({
  reactStrictMode: true,
  poweredByHeader: false,
  // Server-only packages with native-ish or dynamic requires stay outside the bundle.
  serverExternalPackages: ["pg", "pino", "@prisma/client", "@prisma/adapter-pg", "@electric-sql/pglite", "prom-client"],
  // `npm test` runs `tsc --noEmit` over the whole project; no need to type-check twice on build.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: contentSecurityPolicy(phase === PHASE_DEVELOPMENT_SERVER) },
          // For browsers that predate frame-ancestors.
          { key: "X-Frame-Options", value: "DENY" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
});

export default config;
