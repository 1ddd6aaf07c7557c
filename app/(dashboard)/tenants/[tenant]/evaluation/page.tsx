import type { Metadata } from "next";
import { Suspense } from "react";
import { EvaluationView } from "@/components/evaluation/EvaluationView";
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
  return { title: `Evaluation · ${decode(tenant)}` };
}

export default async function TenantEvaluationPage({ params }: Props) {
  const tenant = decode((await params).tenant);
  // The view reads the run to open from the query string (useSearchParams), hence the boundary.
  return (
    <Suspense fallback={<DetailSkeleton label="Loading the evaluation" />}>
      <EvaluationView key={tenant} tenant={tenant} />
    </Suspense>
  );
}
