import type { Metadata } from "next";
import { TenantFreshnessView } from "@/components/slo/TenantFreshnessView";

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
  return { title: `Freshness · ${decode(tenant)}` };
}

export default async function TenantFreshnessPage({ params }: Props) {
  const tenant = decode((await params).tenant);
  return <TenantFreshnessView key={tenant} tenant={tenant} />;
}
