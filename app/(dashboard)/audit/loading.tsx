import { ListSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <ListSkeleton title="Audit log" columns={6} label="Loading the audit log" filters={5} />;
}
