import { ListPageSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <ListPageSkeleton title="Admin" columns={6} label="Loading accounts" />;
}
