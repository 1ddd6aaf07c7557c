"use client";

import { RouteError } from "@/components/route/RouteError";

export default function AuditError({ error, retry }: { error: unknown; retry: () => void }) {
  return <RouteError error={error} retry={retry} title="Could not show the audit log" />;
}
