import { ListPageSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <ListPageSkeleton title="Tenants" columns={4} label="Loading tenants" />;
}
