import type { Metadata } from "next";
import { AuditView } from "@/components/audit/AuditView";

export const metadata: Metadata = { title: "Audit log" };

export default function AuditPage() {
  // Operators and admins only; AuditView explains this to anyone else (the API refuses them too).
  return <AuditView />;
}
