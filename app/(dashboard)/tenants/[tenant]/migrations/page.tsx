import type { Metadata } from "next";
import { Suspense } from "react";
import { TenantMigrationsView } from "@/components/migrations/TenantMigrationsView";
import { DetailSkeleton } from "@/components/route/PageSkeletons";

type Props = { params: Promise<{ tenant: string }> };

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { tenant } = await params;
  return { title: `Migrations · ${decode(tenant)}` };
}

export default async function TenantMigrationsPage({ params }: Props) {
  const tenant = decode((await params).tenant);
  // The view reads the migration to show from the query string (useSearchParams), hence the boundary.
  return (
    <Suspense fallback={<DetailSkeleton label="Loading migrations" />}>
      <TenantMigrationsView key={tenant} tenant={tenant} />
    </Suspense>
  );
}
