import type { Metadata } from "next";
import { Suspense } from "react";
import { TasksView } from "@/components/tasks/TasksView";
import { ListPageSkeleton } from "@/components/States";

export const metadata: Metadata = { title: "Tasks" };

export default function TasksPage() {
  // TasksView reads its filters from the query string (useSearchParams), hence the boundary.
  return (
    <Suspense fallback={<ListPageSkeleton title="Tasks" columns={8} label="Loading tasks" />}>
      <TasksView />
    </Suspense>
  );
}
