import type { Metadata } from "next";
import { currentPrincipal } from "@/lib/auth/current";
import { FleetOnly } from "@/components/workers/FleetOnly";
import { WorkersView } from "@/components/workers/WorkersView";

export const metadata: Metadata = { title: "Workers" };
// Decided per request from the session: the worker list is fleet-wide.
export const dynamic = "force-dynamic";

export default async function WorkersPage() {
  // The layout has already sent anyone signed out to /signin.
  const principal = await currentPrincipal();
  if (principal && principal.tenants !== null)
    return (
      <FleetOnly
        title="Workers"
        lead="Processes that claim and run indexing tasks."
        what="Workers run tasks for every tenant, so the list of them and what each is doing is fleet-wide information."
        tenants={principal.tenants}
      />
    );
  return <WorkersView />;
}
