import { migrationActionHandler } from "@/lib/http/migration-actions";

export const dynamic = "force-dynamic";

export const POST = migrationActionHandler("switch-back");

export * from "@/lib/http/method-fallback";
