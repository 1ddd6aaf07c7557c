import type { Metadata } from "next";
import { WorkersView } from "@/components/workers/WorkersView";

export const metadata: Metadata = { title: "Workers" };

export default function WorkersPage() {
  return <WorkersView />;
}
