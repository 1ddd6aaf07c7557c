import { ListPageSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <ListPageSkeleton title="Index spaces" columns={8} label="Loading index spaces" />;
}
