import { ListSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <ListSkeleton title="Documents" columns={7} label="Loading documents" filters={3} />;
}
