"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { icons } from "./icons";

type NavItem = { href: string; label: string; icon: ReactNode };

/** Main navigation. Later sections (Overview, Tasks, Workers, Audit) are added here. */
export const NAV_ITEMS: NavItem[] = [
  { href: "/documents", label: "Documents", icon: icons.documents },
  { href: "/search", label: "Search", icon: icons.search },
];

export function NavLinks() {
  const pathname = usePathname() ?? "";
  return (
    <ul className="nav__list">
      {NAV_ITEMS.map((item) => {
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
