import { ListSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <ListSkeleton title="Tasks" columns={8} label="Loading tasks" filters={4} />;
}
