import type { Metadata } from "next";
import { Suspense } from "react";
import { OverviewView } from "@/components/overview/OverviewView";
import { OverviewSkeleton } from "@/components/route/PageSkeletons";

export const metadata: Metadata = { title: "Overview" };

export default function OverviewPage() {
  // OverviewView reads the time range from the query string (useSearchParams), hence the boundary.
  return (
    <Suspense fallback={<OverviewSkeleton />}>
      <OverviewView />
    </Suspense>
  );
}
