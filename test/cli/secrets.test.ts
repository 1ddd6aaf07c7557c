import { afterAll, describe, expect, it } from "vitest";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { bootstrapTokenLine, fileSecret, writeSecret } from "../../cli/secrets";

// What `start` does with the secrets it keeps under the data directory (cli/start.ts calls these).

const dir = mkdtempSync(path.join(tmpdir(), "iw-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mode = (f: string) => statSync(f).mode & 0o777;

describe("bootstrap token on start", () => {
  it("is printed by the start that generates it, and a second start prints no token but where it is kept", () => {
    const first = fileSecret(dir, "bootstrap-token", 24);
    expect(first.created).toBe(true);
    expect(bootstrapTokenLine(first, (p) => p)).toContain(first.value);

    const second = fileSecret(dir, "bootstrap-token", 24);
    expect(second).toMatchObject({ value: first.value, created: false });
    const line = bootstrapTokenLine(second, (p) => p);
    expect(line).not.toContain(first.value);
    expect(line).toContain(path.join(dir, "bootstrap-token"));
    expect(bootstrapTokenLine("configured", (p) => p)).toBe("admin token: from INDEXWRIGHT_BOOTSTRAP_TOKEN");
  });
});

describe.skipIf(process.platform === "win32")("secret files", () => {
  it("are created 0600", () => {
    expect(mode(fileSecret(dir, "session-secret", 32).file)).toBe(0o600);
    writeSecret(path.join(dir, "admin-password"), "pw");
    expect(mode(path.join(dir, "admin-password"))).toBe(0o600);
  });

  it("left wider by an older version are narrowed to 0600 on the next start, contents kept", () => {
    const file = path.join(dir, "old-token");
    writeFileSync(file, "kept-value\n", { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(fileSecret(dir, "old-token", 24)).toMatchObject({ value: "kept-value", created: false });
    expect(mode(file)).toBe(0o600);
    const pw = path.join(dir, "wide-password");
    writeFileSync(pw, "old\n", { mode: 0o666 });
    chmodSync(pw, 0o666);
    writeSecret(pw, "new");
    expect(mode(pw)).toBe(0o600);
    expect(readFileSync(pw, "utf8")).toBe("new\n");
  });
});
