"use client";

import { RouteError } from "@/components/route/RouteError";

export default function TasksError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <RouteError
      error={error}
      retry={retry}
      title="Could not show the tasks"
      back={{ href: "/tasks", label: "Back to tasks" }}
    />
  );
}
