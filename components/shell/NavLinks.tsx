"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { can, type GuardedAction } from "@/lib/ui/roles";
import { useViewer } from "../PrincipalContext";
import { adminIcons, icons } from "./icons";
import { webhookIcon } from "../webhooks/icon";

type NavItem = {
  href: string;
  label: string;
  icon: ReactNode;
  /** Hidden unless the role may do this. */
  requires?: GuardedAction;
  /** Fleet-wide (every tenant's) information: hidden from tenant-limited accounts, which the API refuses. */
  fleet?: true;
};

/** Main navigation. Items with `requires` only appear for roles that may use them. */
export const NAV_ITEMS: NavItem[] = [
  { href: "/overview", label: "Overview", icon: icons.overview },
  { href: "/documents", label: "Documents", icon: icons.documents },
  { href: "/tasks", label: "Tasks", icon: icons.tasks },
  { href: "/tenants", label: "Tenants", icon: icons.tenants },
  { href: "/spaces", label: "Index spaces", icon: icons.spaces, requires: "viewSpaces" },
  { href: "/workers", label: "Workers", icon: icons.workers, fleet: true },
  { href: "/search", label: "Search", icon: icons.search },
  { href: "/audit", label: "Audit", icon: icons.audit, requires: "viewAudit" },
  { href: "/admin", label: "Admin", icon: adminIcons.admin, requires: "manageAccess" },
  { href: "/webhooks", label: "Webhooks", icon: webhookIcon, requires: "manageAccess" },
  { href: "/api-docs", label: "API", icon: icons.api },
];

export function NavLinks() {
  const pathname = usePathname() ?? "";
  const { role, tenants } = useViewer();
  const shown = NAV_ITEMS.filter(
    (item) => (!item.requires || can(role, item.requires)) && (!item.fleet || tenants === null),
  );
  return (
    <ul className="nav__list">
      {shown.map((item) => {
        const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
        return (
          <li key={item.href}>
            <Link href={item.href} className="nav__link" aria-current={active ? "page" : undefined}>
              {item.icon}
              <span>{item.label}</span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
