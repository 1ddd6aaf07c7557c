import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { currentPrincipal } from "@/lib/auth/current";
import { hasRole } from "@/lib/auth/principal";
import { EmptyState } from "@/components/States";
import { adminIcons } from "@/components/shell/icons";
import { SpacesView } from "@/components/spaces/SpacesView";

export const metadata: Metadata = { title: "Index spaces" };
// Decided per request from the session cookie.
export const dynamic = "force-dynamic";

export default async function SpacesPage() {
  // Operators read the spaces (the API refuses anyone below); all-tenant admins change them.
  const principal = await currentPrincipal();
  if (!principal) redirect("/signin?next=/spaces");
  if (!hasRole(principal, "operator"))
    return (
      <div className="page">
        <div className="page__header">
          <div>
            <h1 className="page__title">Index spaces</h1>
            <p className="page__lead">What tenants&rsquo; vectors are embedded with.</p>
          </div>
        </div>
        <section className="card" aria-label="Access" data-testid="spaces-forbidden">
          <EmptyState
            icon={adminIcons.lock}
            title="Operators and admins only"
            action={
              <Link href="/tenants" className="btn btn--secondary">
                Your tenants&rsquo; spaces
              </Link>
            }
          >
            <p>
              Your role is <strong>{principal.role}</strong>. The list of index spaces needs the{" "}
              <strong>operator</strong> role; the Tenants page shows which space each of your tenants searches.
            </p>
          </EmptyState>
        </section>
      </div>
    );
  const admin = hasRole(principal, "admin");
  const fleet = principal.tenants === null;
  return (
    <SpacesView
      canManage={admin && fleet}
      readOnlyReason={
        admin && !fleet
          ? "Registering, changing and retiring spaces is for admins with access to all tenants (a space is reached with the fleet's key)."
          : !admin
            ? "Read only: admins register, change and retire spaces."
            : null
      }
    />
  );
}
