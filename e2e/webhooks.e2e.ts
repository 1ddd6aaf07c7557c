import http from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import { Webhook } from "standardwebhooks";
import { unwrap } from "../lib/client";
import { expect, saveScreenshot, shooter, switchTheme, test, uniqueKey } from "./fixtures";
import { apiClient, publishVersion } from "./support/api";

// A webhook delivered, failed and redelivered, against a receiver this spec runs on the machine:
// a plain node http server that answers 204 or 500 as the journey needs and checks every
// request's signature with the standardwebhooks library and the secret the dashboard showed once.

type Hit = { id: string; type: string; key: string | undefined; verified: boolean; status: number };

function receiver() {
  const hits: Hit[] = [];
  const state = { failing: false, secret: "" };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let verified = false;
      try {
        new Webhook(state.secret).verify(body, {
          "webhook-id": String(req.headers["webhook-id"]),
          "webhook-timestamp": String(req.headers["webhook-timestamp"]),
          "webhook-signature": String(req.headers["webhook-signature"]),
        });
        verified = true;
      } catch {
        verified = false;
      }
      const parsed = JSON.parse(body) as { type: string; data: { key?: string } };
      const status = state.failing ? 500 : 204;
      hits.push({ id: String(req.headers["webhook-id"]), type: parsed.type, key: parsed.data.key, verified, status });
      res.writeHead(status).end();
    });
  });
  return { hits, state, server };
}

async function publish(tenant: string, key: string) {
  await publishVersion(tenant, key, {
    content: `# ${key}\n\nWebhooks tell other systems when ${key} is searchable.\n`,
  });
}

test("webhooks: an endpoint added in the dashboard gets a signed delivery, a failed one goes DEAD, Redeliver sends it again", async ({
  signedIn: page,
}) => {
  const shot = shooter(page);
  const tenant = uniqueKey("wh");
  const r = receiver();
  await new Promise<void>((done) => r.server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hooks/indexwright`;

  try {
    await test.step("open Webhooks from the navigation", async () => {
      await page.getByRole("link", { name: "Webhooks", exact: true }).click();
      await page.waitForURL(/\/webhooks$/);
      await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
      await shot("w1-webhooks-page.png");
    });

    await test.step("a URL that is not http(s) is refused with its code", async () => {
      await page.getByTestId("webhook-create-open").click();
      const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
      await dialog.getByTestId("webhook-tenant").fill(tenant);
      await dialog.getByTestId("webhook-url").fill("ftp://files.example.com/drop");
      await dialog.getByTestId("webhook-create-submit").click();
      await expect(dialog.getByTestId("action-error")).toContainText("WEBHOOK_URL_INVALID");
      await shot("w2-url-refused.png");
    });

    await test.step("add the endpoint: its secret is shown once", async () => {
      const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
      await dialog.getByTestId("webhook-url").fill(url);
      await dialog.getByTestId("webhook-description").fill("e2e receiver");
      await dialog.getByTestId("webhook-create-submit").click();
      await expect(dialog).toBeHidden();
      const secret = (await page.getByTestId("webhook-secret").textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      r.state.secret = secret;
      await expect(page.getByTestId("webhook-endpoint-row").filter({ hasText: url })).toBeVisible();
      await shot("w3-endpoint-added-secret-once.png");
      await page.getByTestId("webhook-secret-done").click();
      await expect(page.getByTestId("webhook-secret")).toHaveCount(0);
    });

    const log = page.getByTestId("webhook-delivery-log");
    const row = (key: string) => log.getByTestId("webhook-delivery-row").filter({ hasText: key });

    await test.step("a document becomes searchable: delivered, signed", async () => {
      await publish(tenant, "delivered-doc");
      await expect(row("delivered-doc").getByTestId("webhook-delivery-status")).toHaveText("delivered", {
        timeout: 90_000,
      });
      await expect(row("delivered-doc").getByTestId("webhook-delivery-response")).toHaveText("204");
      expect(r.hits.filter((h) => h.key === "delivered-doc")).toEqual([
        expect.objectContaining({ type: "document.searchable", verified: true, status: 204 }),
      ]);
      await shot("w4-delivered.png");
    });

    await test.step("the receiver fails: retried with backoff, then DEAD", async () => {
      r.state.failing = true;
      await publish(tenant, "failed-doc");
      await expect(row("failed-doc").getByTestId("webhook-delivery-status")).toHaveText("dead", { timeout: 90_000 });
      await expect(row("failed-doc").getByTestId("webhook-delivery-attempts")).toHaveText("3");
      await expect(row("failed-doc").getByTestId("webhook-delivery-response")).toHaveText("500");
      const failed = r.hits.filter((h) => h.key === "failed-doc");
      expect(failed).toHaveLength(3);
      expect(failed.every((h) => h.verified && h.status === 500 && h.id === failed[0].id)).toBe(true);
      await shot("w5-failed-dead.png");
    });

    await test.step("the receiver is fixed: Redeliver sends the same message again", async () => {
      r.state.failing = false;
      await row("failed-doc").getByTestId("webhook-redeliver").click();
      await expect(page.getByText("Redelivery queued")).toBeVisible();
      await expect(row("failed-doc").getByTestId("webhook-delivery-status")).toHaveText("delivered", {
        timeout: 30_000,
      });
      await expect(row("failed-doc").getByTestId("webhook-delivery-attempts")).toHaveText("1");
      const failed = r.hits.filter((h) => h.key === "failed-doc");
      expect(failed).toHaveLength(4);
      expect(failed[3]).toMatchObject({ id: failed[0].id, verified: true, status: 204 });
      await shot("w6-redelivered.png");
    });

    await test.step("the page with its delivery log passes axe (WCAG 2.1 A/AA) in the light and the dark theme", async () => {
      for (const scheme of ["light", "dark"] as const) {
        await switchTheme(page, scheme);
        const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
        const serious = results.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        expect(serious, `${scheme} theme`).toEqual([]);
        if (scheme === "dark") await saveScreenshot(page, test.info().outputPath("w7-dark.png"));
      }
      await switchTheme(page, "light");
    });

    await test.step("the redelivery is in the audit log", async () => {
      const { items } = await unwrap(apiClient().GET("/api/v1/audit", { params: { query: { limit: 20 } } }));
      expect(items.some((i) => i.action === "webhook.redeliver" && i.tenant === tenant)).toBe(true);
    });
  } finally {
    r.server.closeAllConnections();
    await new Promise((done) => r.server.close(done));
  }
});
