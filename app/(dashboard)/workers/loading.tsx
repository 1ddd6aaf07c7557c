import { ListPageSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <ListPageSkeleton title="Workers" columns={6} label="Loading workers" />;
}
