import type pg from "pg";
import { publish } from "./documents/publish";

// A small sample knowledge base so a newcomer sees every state, chart and action within a minute:
// two tenants, a document with several versions, an ACL-restricted one, HTML and plain text, and
// one that keeps failing (a "PDF" that is not one: PARSE_ERROR, DEAD at once, and again on retry).
const DOCS: {
  tenant: string;
  key: string;
  title: string;
  contentType: string;
  versions: string[];
  acl?: string[];
  abstract?: string;
}[] = [
  {
    tenant: "acme",
    key: "refund-policy",
    title: "Refund policy",
    contentType: "text/markdown",
    abstract: "Unused items can be returned within 30 days; gift cards are final.",
    versions: [
      "# Refund policy\n\nCustomers may return unused items within 14 days of delivery.\n\n## Exceptions\n\nGift cards cannot be refunded.",
      "# Refund policy\n\nCustomers may return unused items within 30 days of delivery for a full refund.\n\n## Exceptions\n\nGift cards cannot be refunded.",
      "# Refund policy\n\nCustomers may return unused items within 30 days of delivery for a full refund to the original payment method.\n\n## Exceptions\n\nGift cards and perishable groceries cannot be refunded once opened.\n\n## How to return\n\nPrint the prepaid label from your order page and drop the parcel at any post office.",
    ],
  },
  {
    tenant: "acme",
    key: "travel-expenses",
    title: "Travel and expenses",
    contentType: "text/markdown",
    versions: [
      "# Travel and expenses\n\nBook economy class for flights under six hours.\n\n## Receipts\n\nKeep every receipt and file the claim within 30 days of returning.\n\n## Per diem\n\nMeals are reimbursed up to 60 EUR a day.",
    ],
  },
  {
    tenant: "acme",
    key: "incident-runbook",
    title: "Incident runbook",
    contentType: "text/html",
    acl: ["group:sre"],
    versions: [
      "<h1>Incident runbook</h1><p>Page the on-call engineer through the paging tool.</p><h2>Severity</h2><p>SEV1 means customers cannot check out; open a bridge within five minutes.</p>",
    ],
  },
  {
    tenant: "acme",
    key: "scanned-contract",
    title: "Scanned supplier contract",
    contentType: "application/pdf",
    versions: ["this upload is not really a PDF"],
  },
  {
    tenant: "globex",
    key: "onboarding",
    title: "Onboarding guide",
    contentType: "text/plain",
    versions: [
      "Welcome to Globex.\n\nYour laptop is waiting at the front desk on your first day.\n\nBadges are printed by facilities within two working days.",
    ],
  },
  {
    tenant: "globex",
    key: "password-rotation",
    title: "Password rotation",
    contentType: "text/markdown",
    versions: [
      "# Password rotation\n\nService passwords rotate every 90 days.\n\n## Exceptions\n\nHardware tokens replace passwords for production access.",
    ],
  },
];

/** Seeds the demo once: does nothing when any document exists. Returns what it published. */
export async function seedDemo(pool: pg.Pool): Promise<number> {
  const existing = await pool.query(`SELECT 1 FROM documents LIMIT 1`);
  if (existing.rows[0]) return 0;
  let n = 0;
  for (const d of DOCS) {
    for (const v of d.versions) {
      await publish(pool, {
        tenant: d.tenant,
        key: d.key,
        title: d.title,
        contentType: d.contentType,
        content: Buffer.from(v),
        acl: d.acl ?? [],
        abstract: d.abstract ?? null,
        overview: null,
        actor: "demo",
        maxAttempts: 3,
      });
      n++;
    }
  }
  return n;
}
