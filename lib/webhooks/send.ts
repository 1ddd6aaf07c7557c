import http from "node:http";
import https from "node:https";
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from "request-filtering-agent";
import { signedHeaders } from "./secret";

export type SendResult =
  | { ok: true; statusCode: number; latencyMs: number }
  | { ok: false; statusCode: number | null; latencyMs: number; error: string; retryAfter: string | undefined };

export type Sender = (req: { url: string; messageId: string; body: string; secrets: string[] }) => Promise<SendResult>;

/** Bytes of a receiver's answer read (and dropped) at most: only its status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One POST per attempt, signed per Standard Webhooks. Node's http client on request-filtering-agent:
 * the agent checks the address each connection actually goes to, after DNS, so a public name that
 * resolves to a private address (or is changed to, between save and send) is refused like a
 * literal one. Redirects are not followed (a 3xx is a failed attempt): a redirect could point
 * anywhere. The timeout covers the whole exchange, connection to last byte.
 */
export function createSender(opts: { timeoutMs: number; allowPrivateNetworks: boolean; userAgent?: string }): Sender {
  const filter = { allowPrivateIPAddress: opts.allowPrivateNetworks, allowMetaIPAddress: false };
  const agents = {
    http: new RequestFilteringHttpAgent({ ...filter, keepAlive: false }),
    https: new RequestFilteringHttpsAgent({ ...filter, keepAlive: false }),
  };
  return ({ url, messageId, body, secrets }) =>
    new Promise<SendResult>((resolve) => {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const u = new URL(url);
      const isHttps = u.protocol === "https:";
      let settled = false;
      const done = (r: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const req = (isHttps ? https : http).request(u, {
        method: "POST",
        agent: isHttps ? agents.https : agents.http,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": opts.userAgent ?? "Indexwright-Webhooks/1",
          ...signedHeaders(messageId, body, secrets),
        },
      });
      const timer = setTimeout(() => {
        req.destroy();
        done({
          ok: false,
          statusCode: null,
          latencyMs: elapsed(),
          error: `timed out after ${opts.timeoutMs} ms`,
          retryAfter: undefined,
        });
      }, opts.timeoutMs);
      req.on("response", (res) => {
        let read = 0;
        res.on("data", (c: Buffer) => {
          read += c.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const finish = () => {
          const code = res.statusCode ?? 0;
          if (code >= 200 && code < 300) done({ ok: true, statusCode: code, latencyMs: elapsed() });
          else
            done({
              ok: false,
              statusCode: code,
              latencyMs: elapsed(),
              error: `HTTP ${code}`,
              retryAfter: header(res.headers["retry-after"]),
            });
        };
        res.on("end", finish);
        res.on("close", finish);
        res.on("error", finish);
      });
      req.on("error", (err) =>
        done({ ok: false, statusCode: null, latencyMs: elapsed(), error: describe(err), retryAfter: undefined }),
      );
      req.end(body);
    });
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function describe(err: Error & { code?: string }): string {
  // request-filtering-agent refuses with "DNS lookup <address>(family:…, host:…) is not allowed. Because, It is <reason>."
  const blocked = /^DNS lookup ([^(\s]+).*Because,? (?:It is )?(.*?)\.?$/i.exec(err.message);
  if (blocked)
    return `blocked: ${blocked[1]} is a ${blocked[2]}; webhooks go to public addresses unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
