import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client";

// Prisma serves the non-hot paths; the task engine's SQL lives in lib/queue/sql.ts.
let client: PrismaClient | undefined;

export function prisma(): PrismaClient {
  if (!client) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set");
    client = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 5 }) });
  }
  return client;
}
