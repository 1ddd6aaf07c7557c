// What an audit row may carry, and what a reader below admin sees of it.
//
// Two rules, applied in two places (docs/decisions/036-audit-redaction.md):
//   - at write, for everyone: a value under a secret-named key (secret, password, token, …) is never
//     stored, and a URL's user:password part is dropped. Nobody, admins included, needs a secret
//     in the history, and the log outlives rotations in backups and exports.
//   - at read, below admin: every absolute URL is cut to its origin. Webhook URLs are often
//     capability URLs (a secret in the path or query), and the webhook API that shows them is
//     admin-only; admins keep the full URL in the log, since "where did deliveries go last week"
//     is what the history is read for, and they can read the endpoint itself anyway.

const SECRET_KEY = /(secret|password|passwd|token|api[_-]?key|authorization|credential|cookie|signature)/i;
/** Keys whose names match but whose values say something about a secret, never the secret itself. */
const SAFE_KEYS = new Set(["tokenId", "tokenName"]);
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

export const REDACTED = "[redacted]";

function parseUrl(s: string): URL | null {
  if (!URL_LIKE.test(s)) return null;
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

function walk(v: unknown, onString: (s: string, key: string | null) => unknown, key: string | null = null): unknown {
  if (typeof v === "string") return onString(v, key);
  if (Array.isArray(v)) return v.map((x) => walk(x, onString, key));
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, onString, k)]));
  return v;
}

/** Applied by writeAudit to every detail: no secret values, no credentials inside URLs. */
export function scrubForStorage(detail: unknown): unknown {
  return walk(detail, (s, key) => {
    // `password: true` (one was set) is a boolean and never reaches here; a string under such a key is the secret.
    if (key !== null && SECRET_KEY.test(key) && !SAFE_KEYS.has(key)) return REDACTED;
    const u = parseUrl(s);
    if (u && (u.username || u.password)) {
      u.username = "";
      u.password = "";
      return u.toString();
    }
    return s;
  });
}

/** What a caller below admin sees of a stored detail: every URL cut to its origin. */
export function redactForReader(detail: unknown): unknown {
  return walk(detail, (s) => {
    const u = parseUrl(s);
    if (!u) return s;
    return u.origin !== "null" ? u.origin : `${u.protocol}//`;
  });
}
