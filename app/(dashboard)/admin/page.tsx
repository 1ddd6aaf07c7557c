import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentPrincipal } from "@/lib/auth/current";
import { hasRole } from "@/lib/auth/principal";
import { AdminView } from "@/components/admin/AdminView";
import { AdminsOnly } from "@/components/admin/AdminsOnly";
import { ssoIfConfigured } from "@/lib/auth/oidc";

export const metadata: Metadata = { title: "Admin" };
// Decided per request from the session cookie.
export const dynamic = "force-dynamic";

export default async function AdminPage() {
  // Checked here, on the server: the admin console is never sent to anyone else.
  const principal = await currentPrincipal();
  if (!principal) redirect("/signin?next=/admin");
  if (!hasRole(principal, "admin")) return <AdminsOnly role={principal.role} />;
  return <AdminView ssoName={ssoIfConfigured()?.displayName ?? null} />;
}
