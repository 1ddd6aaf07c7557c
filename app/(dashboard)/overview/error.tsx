"use client";

import { RouteError } from "@/components/route/RouteError";

export default function OverviewError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <RouteError
      error={error}
      retry={retry}
      title="Could not show the overview"
      back={{ href: "/tasks", label: "Go to the tasks" }}
    />
  );
}
