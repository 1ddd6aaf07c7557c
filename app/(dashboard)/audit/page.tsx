import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditView } from "@/components/audit/AuditView";
import { ListPageSkeleton } from "@/components/States";

export const metadata: Metadata = { title: "Audit log" };

export default function AuditPage() {
  // Operators and admins only; AuditView explains this to anyone else (the API refuses them too).
  // It reads its filters from the query string (useSearchParams), hence the boundary.
  return (
    <Suspense fallback={<ListPageSkeleton title="Audit log" columns={6} label="Loading the audit log" />}>
      <AuditView />
    </Suspense>
  );
}
