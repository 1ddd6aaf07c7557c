// The documents list and detail live in ./repository.ts (Prisma). Named here for callers that
// import them from this path (tests).
export { listDocuments, getDocument, type DocumentSummary } from "./repository";
