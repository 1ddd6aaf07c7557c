import type { Metadata } from "next";
import { Suspense } from "react";
import { DocumentsView } from "@/components/documents/DocumentsView";
import { ListPageSkeleton } from "@/components/States";

export const metadata: Metadata = { title: "Documents" };

export default function DocumentsPage() {
  // DocumentsView reads the filters from the query string (useSearchParams), hence the boundary.
  return (
    <Suspense fallback={<ListPageSkeleton title="Documents" columns={7} label="Loading documents" />}>
      <DocumentsView />
    </Suspense>
  );
}
