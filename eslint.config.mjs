import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ["node_modules/**", ".next/**", "lib/generated/**", ".indexwright/**", "reports/**", "test-results/**", "next-env.d.ts"],
  },
  {
    // Servers and the CLI report through lib/log.ts (pino) or cli/print.ts, never console.
    files: ["lib/**/*.ts", "worker/**/*.ts", "cli/**/*.ts", "app/**/*.ts", "app/**/*.tsx"],
    rules: { "no-console": "error" },
  },
  {
    // Tests read JSON answers loosely; production code stays strictly typed.
    files: ["test/**/*.ts", "e2e/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
];

export default config;
