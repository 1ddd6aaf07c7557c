"use client";

import { RouteError } from "@/components/route/RouteError";

export default function DocumentsError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <RouteError
      error={error}
      retry={retry}
      title="Could not show the documents"
      back={{ href: "/documents", label: "Back to documents" }}
    />
  );
}
