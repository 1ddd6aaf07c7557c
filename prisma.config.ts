import { defineConfig } from "prisma/config";

// The CLI is only used for `prisma generate` here (migrations go through our own runner,
// lib/db/migrate.ts), so a URL is optional; `prisma migrate deploy` reads DATABASE_URL.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/indexwright" },
});
