// Operator actions live in the repositories (Prisma interactive transactions, same lock order and
// audit rows): task actions in ./repository.ts, document actions in ../documents/repository.ts.
// Named here for callers that import them from this path (tests, benchmarks).
export { retryTask, bulkRetry, forceDone, cancelTask, pauseQueue, resumeQueue } from "./repository";
export { rollback, unpin, reindex, rename } from "../documents/repository";
