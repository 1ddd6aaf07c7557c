import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ["node_modules/**", ".next/**", "lib/generated/**", ".indexwright/**", "reports/**", "test-results/**", "next-env.d.ts"],
  },
  {
    // Tests read JSON answers loosely; production code stays strictly typed.
    files: ["test/**/*.ts", "e2e/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
];

export default config;
