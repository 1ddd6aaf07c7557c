import type { Metadata } from "next";
import { TenantsView } from "@/components/migrations/TenantsView";

export const metadata: Metadata = { title: "Tenants" };

export default function TenantsPage() {
  return <TenantsView />;
}
