import { TASK_TYPE, type TaskType } from "@/lib/domain/constants";

/** What each task type does, in one line (the type's tooltip and the task page's subtitle). */
export const TASK_TYPE_HINT: Record<TaskType, string> = {
  [TASK_TYPE.INDEX]: "Indexes a published version.",
  [TASK_TYPE.REINDEX]: "Rebuilds a version's index.",
  [TASK_TYPE.DELETE]: "Removes a deleted document from search.",
  [TASK_TYPE.MIGRATE]:
    "Migration build: builds the version search serves into the tenant's other index space (an open migration's shadow).",
};

/** A short human name beside the code, for the types whose code does not say it. */
const TASK_TYPE_LABEL: Partial<Record<string, string>> = { [TASK_TYPE.MIGRATE]: "Migration build" };

/** The task type as a code, with its human name where it needs one (MIGRATE: "Migration build"). */
export function TaskTypeLabel({ type, testId }: { type: string; testId?: string }) {
  const label = TASK_TYPE_LABEL[type];
  const hint = TASK_TYPE_HINT[type as TaskType];
  if (!label)
    return (
      <span className="mono" title={hint} data-testid={testId}>
        {type}
      </span>
    );
  return (
    <span className="stack-xs" title={hint} data-testid={testId} data-type={type}>
      <span className="mono">{type}</span>
      <span className="muted task-type__label">{label}</span>
    </span>
  );
}
