import type { Metadata } from "next";
import { TaskDetailView } from "@/components/tasks/TaskDetailView";

type Props = { params: Promise<{ taskId: string }> };

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { taskId } = await params;
  return { title: `Task #${decode(taskId)}` };
}

export default async function TaskPage({ params }: Props) {
  const { taskId } = await params;
  const id = decode(taskId);
  return <TaskDetailView key={id} taskId={id} />;
}
