import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { unwrap } from "../lib/client";
import { setting } from "../lib/config";
import { CONNECTION_OPTIONS, connect } from "./api";
import { print } from "./print";
import { writeSecret } from "./secrets";

// `token rotate-bootstrap` / `token revoke-bootstrap`: through the running server's admin API (so
// every web process sees the change at once), authenticated like any other command, by default
// with the bootstrap token that `start` keeps in the data directory. A rotated token replaces that
// file (0600), so the next `start` and the next CLI command use it; it is printed only with --print.

export async function tokenCmd(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({ args: rest, options: { ...CONNECTION_OPTIONS, print: { type: "boolean" } } });
  const file = path.join(setting("INDEXWRIGHT_DATA_DIR") ?? ".indexwright", "bootstrap-token");
  const client = connect(values);
  if (sub === "rotate-bootstrap") {
    const r = await unwrap(client.POST("/api/v1/admin/bootstrap-token/rotate"));
    // Replaces the file only where `start` keeps one; a token configured elsewhere is the operator's to replace.
    const saved = existsSync(file) && !setting("INDEXWRIGHT_BOOTSTRAP_TOKEN");
    if (saved) writeSecret(file, r.token);
    if (values.json)
      return print(
        JSON.stringify({ ...r, token: values.print || !saved ? r.token : undefined, savedTo: saved ? file : null }),
      );
    print(`bootstrap token rotated; ${r.sessionsEnded} session(s) opened with the old one ended`);
    if (saved) print(`the new token is kept in ${file}${values.print ? `: ${r.token}` : ""}`);
    else print(`new token (shown once; set it as INDEXWRIGHT_BOOTSTRAP_TOKEN for the next start): ${r.token}`);
    return;
  }
  if (sub === "revoke-bootstrap") {
    const r = await unwrap(client.DELETE("/api/v1/admin/bootstrap-token"));
    if (values.json) return print(JSON.stringify(r));
    print(
      `bootstrap token revoked; ${r.sessionsEnded} session(s) ended. Rotate it (with another admin token) to issue a new one.`,
    );
    return;
  }
  throw new Error(`unknown token command: ${sub ?? "(none)"}; expected rotate-bootstrap or revoke-bootstrap`);
}
