"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { Role } from "@/lib/domain/constants";
import { can, type GuardedAction } from "@/lib/ui/roles";

/** What client components may know about the signed-in person; decided by the server layout. */
export type ViewerInfo = {
  subject: string;
  role: Role;
  tenants: string[] | null;
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
