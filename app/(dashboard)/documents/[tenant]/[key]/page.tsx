import type { Metadata } from "next";
import { DocumentDetailView } from "@/components/documents/DocumentDetailView";

type Params = { tenant: string; key: string };
type Props = { params: Promise<Params> };

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { key } = await params;
  return { title: decode(key) };
}

export default async function DocumentPage({ params }: Props) {
  const { tenant, key } = await params;
  const t = decode(tenant);
  const k = decode(key);
  // Keyed so that moving between documents starts from a clean view.
  return <DocumentDetailView key={`${t}/${k}`} tenant={t} docKey={k} />;
}
