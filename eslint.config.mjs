import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      "lib/generated/**",
      ".indexwright/**",
      "reports/**",
      "test-results/**",
      "next-env.d.ts",
    ],
  },
  {
    // Servers and the CLI report through lib/log.ts (pino) or cli/print.ts, never console.
    files: ["lib/**/*.ts", "worker/**/*.ts", "cli/**/*.ts", "app/**/*.ts", "app/**/*.tsx"],
    rules: { "no-console": "error" },
  },
  {
    // Settings are read through lib/config.ts, which names each with its default and its rule;
    // lib/env-files.ts loads .env files into the environment before anything reads it.
    files: [
      "lib/**/*.ts",
      "lib/**/*.tsx",
      "worker/**/*.ts",
      "cli/**/*.ts",
      "app/**/*.ts",
      "app/**/*.tsx",
      "components/**/*.ts",
      "components/**/*.tsx",
      "proxy.ts",
    ],
    ignores: ["lib/config.ts", "lib/env-files.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "read settings through lib/config.ts" },
      ],
    },
  },
  {
    // Tests read JSON answers loosely; production code stays strictly typed.
    files: ["test/**/*.ts", "e2e/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
];

export default config;
