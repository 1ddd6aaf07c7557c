import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { currentPrincipal } from "@/lib/auth/current";
import { hasRole } from "@/lib/auth/principal";
import { AppShell } from "@/components/shell/AppShell";
import { PrincipalProvider, type ViewerInfo } from "@/components/PrincipalContext";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const principal = await currentPrincipal();
  if (!principal) {
    const path = (await headers()).get("x-iw-path"); // set by proxy.ts; /signin checks it is a local path
    redirect(path && path !== "/" ? `/signin?next=${encodeURIComponent(path)}` : "/signin");
  }

  const viewer: ViewerInfo = {
    subject: principal.subject,
    kind: principal.kind,
    role: principal.role,
    tenants: principal.tenants,
    principals: principal.principals,
    capabilities: principal.capabilities,
    canPublish: hasRole(principal, "maintainer"),
  };

  return (
    <PrincipalProvider value={viewer}>
      <AppShell viewer={viewer}>{children}</AppShell>
    </PrincipalProvider>
  );
}
