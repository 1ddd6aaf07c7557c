// Frozen vocabularies shared by TypeScript and the webhook migration's CHECK constraints
// (prisma/migrations/20261130070000_webhooks, widened by 20261202000000_index_spaces);
// test/webhooks/triggers.test.ts fails if they differ.

export const WEBHOOK_EVENT_TYPE = Object.freeze({
  DOCUMENT_SEARCHABLE: "document.searchable",
  DOCUMENT_FAILED: "document.failed",
  DOCUMENT_DELETED: "document.deleted",
  TASK_DEAD: "task.dead",
  // An index-space migration started, or changed state (docs/index-spaces.md).
  MIGRATION_STARTED: "migration.started",
  MIGRATION_READY: "migration.ready",
  MIGRATION_SWITCHED: "migration.switched",
  MIGRATION_SWITCHED_BACK: "migration.switched_back",
  MIGRATION_ABORTED: "migration.aborted",
  MIGRATION_FINISHED: "migration.finished",
} as const);
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPE)[keyof typeof WEBHOOK_EVENT_TYPE];
export const WEBHOOK_EVENT_TYPES = Object.freeze(Object.values(WEBHOOK_EVENT_TYPE)) as readonly WebhookEventType[];

export const DELIVERY_STATUS = Object.freeze({
  PENDING: "PENDING",
  SENDING: "SENDING",
  RETRY_WAIT: "RETRY_WAIT",
  DELIVERED: "DELIVERED",
  DEAD: "DEAD",
} as const);
export type DeliveryStatus = (typeof DELIVERY_STATUS)[keyof typeof DELIVERY_STATUS];
export const DELIVERY_STATUSES = Object.freeze(Object.values(DELIVERY_STATUS)) as readonly DeliveryStatus[];

/** How long the secret replaced by a rotation keeps signing beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;
