import { migrationActionHandler } from "@/lib/http/migration-actions";

export const dynamic = "force-dynamic";

export const POST = migrationActionHandler("abort");

export * from "@/lib/http/method-fallback";
