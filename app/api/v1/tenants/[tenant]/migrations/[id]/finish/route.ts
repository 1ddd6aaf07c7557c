import { migrationActionHandler } from "@/lib/http/migration-actions";

export const dynamic = "force-dynamic";

export const POST = migrationActionHandler("finish");

export * from "@/lib/http/method-fallback";
