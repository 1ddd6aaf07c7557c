// Removing a document from search lives in ./repository.ts (Prisma). Named here for callers that
// import it from this path (tests, the chaos run).
export { requestDelete } from "./repository";
