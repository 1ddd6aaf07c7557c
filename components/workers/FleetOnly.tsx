import Link from "next/link";
import { describeTenants } from "@/lib/ui/trust";
import { EmptyState } from "../States";
import { adminIcons } from "../shell/icons";
import "../access.css";

/**
 * What a tenant-limited account sees on a fleet-wide page (the API answers it 403
 * FLEET_SCOPE_REQUIRED): why, and where its own tenants' work is instead. Server component.
 */
export function FleetOnly({
  title,
  lead,
  what,
  tenants,
}: {
  title: string;
  lead: string;
  what: string;
  tenants: string[];
}) {
  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">{title}</h1>
          <p className="page__lead">{lead}</p>
        </div>
      </div>
      <section className="card fleet-only" aria-label="Access" data-testid="fleet-scope-required">
        <EmptyState
          icon={adminIcons.lock}
          title="Shown to all-tenant accounts only"
          action={
            <span className="fleet-only__actions">
              <Link href="/tasks" className="btn btn--secondary">
                Your tenants&rsquo; tasks
              </Link>
              <Link href="/overview" className="btn btn--ghost">
                Back to the overview
              </Link>
            </span>
          }
        >
          <p>
            <code className="code-chip code-chip--neutral">FLEET_SCOPE_REQUIRED</code> Your account is limited to{" "}
            <strong>{describeTenants(tenants)}</strong>. {what}
          </p>
          <p>If you run the fleet, ask an admin for an account with access to all tenants.</p>
        </EmptyState>
      </section>
    </div>
  );
}
