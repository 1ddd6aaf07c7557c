import type { Metadata } from "next";
import { Suspense } from "react";
import { DocumentsView } from "@/components/documents/DocumentsView";
import { TableSkeleton } from "@/components/States";

export const metadata: Metadata = { title: "Documents" };

export default function DocumentsPage() {
  // DocumentsView reads the filters from the query string (useSearchParams), hence the boundary.
  return (
    <Suspense
      fallback={
        <div className="page">
          <div className="page__header">
            <div>
              <h1 className="page__title">Documents</h1>
            </div>
          </div>
          <section className="card">
            <TableSkeleton rows={6} columns={7} label="Loading documents" />
          </section>
        </div>
      }
    >
      <DocumentsView />
    </Suspense>
  );
}
