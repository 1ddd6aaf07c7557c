import { spawn } from "node:child_process";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { makePdf } from "../test/helpers/make-pdf";
import { E2E_TOKEN, expect, shooter, test, uniqueKey } from "./fixtures";
import { APP_URL, getDocument } from "./support/api";

// A folder synced with the real CLI (bin/indexwright.mjs in a child process, as a user runs it)
// against the e2e server, and the result seen in the dashboard: first everything published, then a
// changed file and a removed one (a dry run shows the plan, the real run applies it), then a
// third run that finds nothing to send.

const BIN = path.resolve(import.meta.dirname, "../bin/indexwright.mjs");

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs the CLI from a folder of its own (no .env files) with only the connection it is given. */
function cli(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      LOG_LEVEL: "silent",
    } as unknown as NodeJS.ProcessEnv;
    const child = spawn(process.execPath, [BIN, ...args, "--url", APP_URL, "--token", E2E_TOKEN], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The --json report of a sync (the plan, what was sent, how each wait ended). */
type SyncReport = {
  dryRun: boolean;
  plan: {
    publish: { key: string; file?: string; reason: string }[];
    delete: { key: string; reason: string }[];
    unchanged: string[];
  };
  done?: { action: string; key: string }[];
  wait?: Record<string, string>;
};

function report(r: Run): SyncReport {
  expect(r.code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as SyncReport;
}

test("a folder synced with the CLI: published, then changed and pruned, then nothing to send", async ({
  signedIn: page,
}) => {
  const shot = shooter(page);
  const tenant = uniqueKey("e2e-sync").slice(0, 60);
  const dir = await mkdtemp(path.join(tmpdir(), "iw-e2e-sync-"));
  const cwd = await mkdtemp(path.join(tmpdir(), "iw-e2e-cwd-"));
  const rows = page.getByTestId("doc-row");
  const row = (key: string) => page.locator(`[data-testid="doc-row"][data-key="${key}"]`);
  try {
    await test.step("a folder with Markdown, HTML and a PDF is synced and waited for", async () => {
      await writeFile(path.join(dir, "guide.md"), "# Harbour guide\n\nBoats moor on the east quay after dusk.\n");
      await writeFile(path.join(dir, "notes.md"), "# Notes\n\nThe ferry timetable changes in spring.\n");
      await writeFile(
        path.join(dir, "page.html"),
        "<html><head><title>Tides</title></head><body><h1>Tides</h1><p>High water is at noon.</p></body></html>",
      );
      await writeFile(path.join(dir, "manual.pdf"), makePdf([["Lighthouse keepers trim the wick at dusk."]]));
      const first = report(await cli(cwd, "sync", dir, "--tenant", tenant, "--wait", "--json"));
      expect(first.plan.publish.map((p) => `${p.reason} ${p.key}`)).toEqual([
        "new guide.md",
        "new manual.pdf",
        "new notes.md",
        "new page.html",
      ]);
      expect(first.plan.delete).toEqual([]);
      expect(first.wait).toEqual({
        "guide.md": "searchable",
        "manual.pdf": "searchable",
        "notes.md": "searchable",
        "page.html": "searchable",
      });
    });

    await test.step("the tenant's documents list shows the four documents SEARCHABLE", async () => {
      await page.goto(`/documents?tenant=${tenant}`);
      await expect(rows).toHaveCount(4);
      for (const key of ["guide.md", "manual.pdf", "notes.md", "page.html"]) {
        await expect(row(key)).toHaveAttribute("data-state", "SEARCHABLE");
        await expect(row(key).getByTestId("state-badge")).toHaveAttribute("data-state", "SEARCHABLE");
      }
      await expect(row("guide.md").locator(".cell-versions")).toHaveText("v1 / v1");
      await shot("01-synced-searchable.png");
    });

    await test.step("one file changed, one removed: the dry run prints the plan and sends nothing", async () => {
      await writeFile(
        path.join(dir, "guide.md"),
        "# Harbour guide\n\nBoats moor on the west quay after dusk; the east quay is closed for repairs.\n",
      );
      await unlink(path.join(dir, "notes.md"));
      const dry = await cli(cwd, "sync", dir, "--tenant", tenant, "--dry-run");
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout.trim().split("\n")).toEqual([
        "dry run: nothing sent",
        "publish changed guide.md",
        "delete          notes.md",
        "1 to publish, 1 to delete, 2 unchanged",
      ]);
      const plan = report(await cli(cwd, "sync", dir, "--tenant", tenant, "--dry-run", "--json"));
      expect(plan.dryRun).toBe(true);
      expect(plan.plan).toEqual({
        publish: [{ key: "guide.md", file: "guide.md", reason: "changed" }],
        delete: [{ key: "notes.md", reason: "missing-locally" }],
        unchanged: ["manual.pdf", "page.html"],
      });
      expect(plan.done).toBeUndefined();
      const guide = await getDocument(tenant, "guide.md");
      expect(guide.businessVersion).toBe(1);
      expect((await getDocument(tenant, "notes.md")).state).toBe("SEARCHABLE");
    });

    await test.step("the real run publishes the new version and deletes the removed document", async () => {
      const second = report(await cli(cwd, "sync", dir, "--tenant", tenant, "--wait", "--json"));
      expect(second.done?.map((d) => `${d.action} ${d.key}`).sort()).toEqual(["delete notes.md", "publish guide.md"]);
      expect(second.wait).toEqual({ "guide.md": "searchable", "notes.md": "deleted" });
    });

    await test.step("the list shows guide.md at v2 and notes.md deleted", async () => {
      await page.goto(`/documents?tenant=${tenant}`);
      await expect(row("guide.md")).toHaveAttribute("data-state", "SEARCHABLE");
      await expect(row("guide.md").locator(".cell-versions")).toHaveText("v2 / v2");
      // The list either leaves deleted documents out or shows them as DELETED.
      await expect
        .poll(async () =>
          (await row("notes.md").count()) === 0 ? "gone" : await row("notes.md").getAttribute("data-state"),
        )
        .toMatch(/^(gone|DELETED)$/);
      await expect(row("manual.pdf")).toHaveAttribute("data-state", "SEARCHABLE");
      await expect(row("page.html")).toHaveAttribute("data-state", "SEARCHABLE");
      await shot("02-resynced-changed-and-deleted.png");
    });

    await test.step("a third sync finds everything current and sends nothing", async () => {
      const third = report(await cli(cwd, "sync", dir, "--tenant", tenant, "--wait", "--json"));
      expect(third.plan).toEqual({ publish: [], delete: [], unchanged: ["guide.md", "manual.pdf", "page.html"] });
      expect(third.done).toEqual([]);
      expect(third.wait).toBeUndefined();
      const guide = await getDocument(tenant, "guide.md");
      expect(guide.businessVersion).toBe(2);
      expect(guide.versions).toHaveLength(2);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(cwd, { recursive: true, force: true });
  }
});
