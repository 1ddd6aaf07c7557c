import Link from "next/link";
import type { ReactNode } from "react";
import { describeTenants } from "@/lib/ui/trust";
import type { ViewerInfo } from "../PrincipalContext";
import { NavLinks } from "./NavLinks";
import { SignOutButton } from "./SignOutButton";
import { icons } from "./icons";
import "./shell.css";

/** Dark sidebar + top bar frame of every signed-in page. Server component. */
export function AppShell({ viewer, children }: { viewer: ViewerInfo; children: ReactNode }) {
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <Link href="/overview" className="brand" aria-label="Indexwright home">
          <span className="brand__mark">{icons.logo}</span>
          <span className="brand__name">Indexwright</span>
        </Link>
        <nav className="nav" aria-label="Main">
          <NavLinks />
        </nav>
      </aside>
      <div className="shell__body">
        <header className="topbar">
          <div className="topbar__spacer" />
          <div className="whoami" data-testid="whoami">
            <span className="whoami__avatar" aria-hidden="true">
              {initial(viewer.subject)}
            </span>
            <span className="whoami__text">
              <span className="visually-hidden">Signed in as </span>
              <span className="whoami__subject" title={viewer.subject}>
                {viewer.subject}
              </span>
              <span className="role-chip" data-role={viewer.role}>
                {viewer.role}
              </span>
              <TenantScope tenants={viewer.tenants} />
            </span>
          </div>
          <SignOutButton />
        </header>
        <main id="main" className="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}

/** "all tenants" or the tenants this account is limited to; "no tenants" is a warning. */
function TenantScope({ tenants }: { tenants: string[] | null }) {
  const text = describeTenants(tenants);
  const tone = tenants === null ? "all" : tenants.length === 0 ? "none" : "some";
  return (
    <span className="whoami__scope" data-scope={tone} title={text} data-testid="whoami-tenants">
      <span aria-hidden="true">· </span>
      <span className="visually-hidden">, </span>
      {text}
    </span>
  );
}

function initial(subject: string): string {
  const s = subject.includes(":") ? subject.slice(subject.indexOf(":") + 1) : subject;
  return (s.trim()[0] ?? "?").toUpperCase();
}
