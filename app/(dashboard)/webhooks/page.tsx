import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentPrincipal } from "@/lib/auth/current";
import { hasRole } from "@/lib/auth/principal";
import { AdminsOnly } from "@/components/admin/AdminsOnly";
import { WebhooksView } from "@/components/webhooks/WebhooksView";

export const metadata: Metadata = { title: "Webhooks" };
// Decided per request from the session cookie.
export const dynamic = "force-dynamic";

export default async function WebhooksPage() {
  // Endpoints carry where a tenant's events go: admins only, checked on the server.
  const principal = await currentPrincipal();
  if (!principal) redirect("/signin?next=/webhooks");
  if (!hasRole(principal, "admin")) return <AdminsOnly role={principal.role} />;
  return <WebhooksView tenants={principal.tenants} />;
}
