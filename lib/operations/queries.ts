// The dashboard's task, overview, worker and audit reads live in the repositories (Prisma):
// ./repository.ts and ../audit/repository.ts. Named here for callers outside the web layer's
// route handlers (lib/metrics.ts, tests), which import them from this path.
export { listTasks, getTask, overview, listWorkers } from "./repository";
export { listAudit } from "../audit/repository";
