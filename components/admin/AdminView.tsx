"use client";

import Link from "next/link";
import { TokensSection } from "./TokensSection";
import { UsersSection } from "./UsersSection";
import "./admin.css";

/** The admin console: API tokens and users. The page only renders this for admins (checked on the server). */
/** ssoName: the single sign-on provider's display name, when one is configured. */
export function AdminView({ ssoName = null }: { ssoName?: string | null }) {
  return (
    <div className="page" data-testid="admin-page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Admin</h1>
          <p className="page__lead">
            Who can use Indexwright: API tokens for machines, and people who sign in. Every change is recorded in the{" "}
            <Link href="/audit">audit log</Link>.
          </p>
        </div>
      </div>
      <TokensSection />
      <UsersSection ssoName={ssoName} />
    </div>
  );
}
