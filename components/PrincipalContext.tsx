"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { Role } from "@/lib/domain/constants";
import { can, type GuardedAction } from "@/lib/ui/roles";

/** What client components may know about the signed-in caller; decided by the server layout. */
export type ViewerInfo = {
  subject: string;
  /** A person (password, single sign-on or their personal token) or an application's token. */
  kind: "person" | "application";
  role: Role;
  /** null = all tenants. */
  tenants: string[] | null;
  /** The ACL principals a search runs as by default: a person's user:… and group:…; none for an application. */
  principals: string[];
  /** Extra powers of an application token ("search:principals", "metrics:read"). */
  capabilities: string[];
  canPublish: boolean;
};

const PrincipalContext = createContext<ViewerInfo | null>(null);

export function PrincipalProvider({ value, children }: { value: ViewerInfo; children: ReactNode }) {
  return <PrincipalContext.Provider value={value}>{children}</PrincipalContext.Provider>;
}

export function useViewer(): ViewerInfo {
  const v = useContext(PrincipalContext);
  if (!v) throw new Error("useViewer must be used inside the dashboard layout");
  return v;
}

/** Whether the signed-in role may do `action` (the server checks again). */
export function useCan(action: GuardedAction): boolean {
  return can(useViewer().role, action);
}
