import { OverviewSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <OverviewSkeleton />;
}
