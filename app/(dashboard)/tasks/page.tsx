import type { Metadata } from "next";
import { Suspense } from "react";
import { TasksView } from "@/components/tasks/TasksView";
import { TableSkeleton } from "@/components/States";

export const metadata: Metadata = { title: "Tasks" };

export default function TasksPage() {
  // TasksView reads its filters from the query string (useSearchParams), hence the boundary.
  return (
    <Suspense
      fallback={
        <div className="page">
          <div className="page__header">
            <div>
              <h1 className="page__title">Tasks</h1>
            </div>
          </div>
          <section className="card">
            <TableSkeleton rows={6} columns={8} label="Loading tasks" />
          </section>
        </div>
      }
    >
      <TasksView />
    </Suspense>
  );
}
