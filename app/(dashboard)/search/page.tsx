import type { Metadata } from "next";
import { Suspense } from "react";
import { SearchView } from "@/components/search/SearchView";

export const metadata: Metadata = { title: "Search" };

export default function SearchPage() {
  // SearchView keeps the query in the URL (useSearchParams), hence the boundary.
  return (
    <Suspense
      fallback={
        <div className="page">
          <h1 className="page__title">Search</h1>
        </div>
      }
    >
      <SearchView />
    </Suspense>
  );
}
