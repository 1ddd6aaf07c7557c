import type { Metadata } from "next";
import { EvaluationView } from "@/components/evaluation/EvaluationView";

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
  return <EvaluationView key={tenant} tenant={tenant} />;
}
