import Link from "next/link";
import type { Role } from "@/lib/domain/constants";
import { EmptyState } from "../States";
import { adminIcons } from "../shell/icons";
import "./admin.css";

/** What a signed-in non-admin sees on /admin (the API refuses them too). Server component. */
export function AdminsOnly({ role }: { role: Role }) {
  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Admin</h1>
          <p className="page__lead">API tokens and users.</p>
        </div>
      </div>
      <section className="card admin-forbidden" aria-label="Access" data-testid="admin-forbidden">
        <EmptyState
          icon={adminIcons.lock}
          title="Admins only"
          action={
            <Link href="/overview" className="btn btn--secondary">
              Back to the overview
            </Link>
          }
        >
          <p>
            Your role is <strong>{role}</strong>. Managing API tokens and users needs the <strong>admin</strong> role.
          </p>
          <p>If you need a token or an account for someone, ask an admin.</p>
        </EmptyState>
      </section>
    </div>
  );
}
