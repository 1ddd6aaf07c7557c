import { DetailSkeleton } from "@/components/route/PageSkeletons";

export default function Loading() {
  return <DetailSkeleton label="Loading migrations" />;
}
