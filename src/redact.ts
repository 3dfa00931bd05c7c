// Secrets must never reach a log or a trace file: users attach both to bug
// reports. `redact` replaces the values of secret-looking keys; it is
// copy-on-write, so a frame with nothing to hide (the common case: a text
// delta) costs one walk and no allocation, and the input is never mutated.

export const REDACTED = "[REDACTED]";

// Keys are compared lower-cased with separators removed, so `api_key`,
// `apiKey`, `API-KEY` and `x-api-key` are the same. A key that merely
// contains "token" is not a secret (`inputTokens`, `totalTokenCount`), so
// token only counts at the end; the other words count anywhere.
const SECRET_ANYWHERE = /apikey|secret|passwd|password|credential|cookie|privatekey|passphrase|authorization|accesskey|bearer/;
const SECRET_AT_END = /token$/;
// Names in `{name, value}` pairs (MCP server env and headers in ACP) are
// environment variable or header names: OPENAI_API_KEY, GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, X-Auth-Token. Those are matched more broadly.
const SECRET_NAME = /key|token|secret|passw|credential|cookie|auth/;

// `Bearer abc…`, `Basic xyz…` anywhere in a string (a header echoed in a log,
// a curl command in a tool input). Prose ("Bearer tokens are…") is left
// alone: a credential has a digit or symbol in it, or is long.
const AUTH_SCHEME = /\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{6,})/gi;
const AUTH_SCHEME_TEST = /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/i;

// Credentials whose shape gives them away even with no key name next to them:
// an error message like "Incorrect API key provided: sk-proj-…" or a stack
// dump of a config object. Provider API keys (sk-…, sk-ant-…), GitHub tokens
// (ghp_…, github_pat_…), Slack tokens (xox?-…), AWS access key ids, Google
// API keys. Long enough that ordinary words never match.
const TOKEN_SHAPE =
  /\b(?:sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35})/g;
const TOKEN_SHAPE_TEST = new RegExp(TOKEN_SHAPE.source);

// The user-info of a URL (`https://user:pass@host/…`, `https://<token>@host`):
// a proxy or test endpoint set in the environment may carry it. Found from
// each `://` forward, not with one regular expression, so that a long run of
// letters before no `://` costs one scan (see redactPairs).
const URL_AUTHORITY_END = /[\s/?#"'<>\\]/;

function redactUserInfo(s: string): string {
  let at = s.indexOf("://");
  if (at < 0) return s;
  let out = "";
  let copied = 0;
  while (at >= 0) {
    const start = at + 3;
    let end = start;
    while (end < s.length && !URL_AUTHORITY_END.test(s[end]!)) end++;
    const userEnd = start + s.slice(start, end).lastIndexOf("@");
    if (userEnd >= start) {
      out += s.slice(copied, start) + REDACTED;
      copied = userEnd;
    }
    at = s.indexOf("://", end);
  }
  return copied === 0 ? s : out + s.slice(copied);
}

function looksLikeCredential(s: string): boolean {
  return s.length >= 20 || /[^A-Za-z]/.test(s);
}

function normalize(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

const keyCache = new Map<string, boolean>();

/** Is `key` the name of a field whose value is a secret? */
export function isSecretKey(key: string): boolean {
  let hit = keyCache.get(key);
  if (hit === undefined) {
    const n = normalize(key);
    hit = SECRET_ANYWHERE.test(n) || SECRET_AT_END.test(n);
    // Keys come from a small vocabulary; bound the cache anyway so a hostile
    // peer inventing keys cannot grow it without limit.
    if (keyCache.size < 4096) keyCache.set(key, hit);
  }
  return hit;
}

function isSecretName(name: string): boolean {
  return isSecretKey(name) || SECRET_NAME.test(normalize(name));
}

// Secrets the bridge itself holds (a key from the environment or from
// `zcode login`'s store): hidden wherever they appear, whatever names them or
// not. Few, and bounded so that nothing can grow the list without limit.
const KNOWN_SECRETS = new Set<string>();
const KNOWN_SECRETS_MAX = 32;
const KNOWN_SECRET_MIN = 8;

/** From now on, `value` never reaches a log, a trace or the editor in clear. */
export function rememberSecret(value: string): void {
  const v = value.trim();
  if (v.length < KNOWN_SECRET_MIN || KNOWN_SECRETS.has(v) || KNOWN_SECRETS.size >= KNOWN_SECRETS_MAX) return;
  KNOWN_SECRETS.add(v);
}

function hideKnown(s: string): string {
  let out = s;
  for (const k of KNOWN_SECRETS) if (out.includes(k)) out = out.split(k).join(REDACTED);
  return out;
}

function redactString(s: string): string {
  let out = KNOWN_SECRETS.size > 0 ? hideKnown(s) : s;
  if (AUTH_SCHEME_TEST.test(out)) {
    out = out.replace(AUTH_SCHEME, (m, scheme: string, cred: string) => (looksLikeCredential(cred) ? `${scheme} ${REDACTED}` : m));
  }
  if (TOKEN_SHAPE_TEST.test(out)) out = out.replace(TOKEN_SHAPE, REDACTED);
  return redactUserInfo(out);
}

// Booleans (`{secret: false}` flags), null and "" hide nothing.
function carriesSecret(v: unknown): boolean {
  return v !== null && v !== undefined && v !== "" && typeof v !== "boolean";
}

function redactAny(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactString(value);
  if (value === null || typeof value !== "object") return value;
  // Deeper than any real frame: hide it rather than risk the stack (or a leak).
  if (depth > 200) return REDACTED;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      const r = redactAny(v, depth + 1);
      if (r !== v) {
        out ??= value.slice();
        out[i] = r;
      }
    }
    return out ?? value;
  }
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  // `{name: "GITHUB_TOKEN", value: "..."}`: the secret is in `value`.
  const pairName = typeof obj.name === "string" && "value" in obj ? obj.name : undefined;
  const pairIsSecret = pairName !== undefined && isSecretName(pairName);
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    const v = obj[key];
    let r: unknown;
    if ((isSecretKey(key) || (pairIsSecret && key === "value")) && carriesSecret(v)) {
      r = REDACTED;
    } else {
      r = redactAny(v, depth + 1);
    }
    if (r !== v) {
      out ??= { ...obj };
      out[key] = r;
    }
  }
  return out ?? obj;
}

/**
 * `value` with every secret replaced by "[REDACTED]": values of secret keys
 * (apiKey, token, authorization, secret, password, credentials, cookie,
 * private_key… case-insensitive, at any depth), `value` of `{name, value}`
 * pairs whose name looks secret, the credential part of `Bearer …` strings
 * and the user-info of URLs (`https://user:pass@host`). Returns `value` itself when nothing needed hiding; never mutates.
 */
export function redact<T>(value: T): T {
  return redactAny(value, 0) as T;
}

// For text that is not JSON: `API_KEY=abc`, `"token": "abc"`, `password: abc`,
// and Node's single-quoted util.inspect (stack dumps, axios errors on a
// child's stderr): `{ 'x-api-key': 'sk-…' }`.
//
// Found separator by separator, not with one regular expression: a pattern
// that starts with `[A-Za-z0-9_.-]*` before the key word backtracks over
// every run of word characters, quadratic in its length (64 KB of letters
// took 12 s), and these lines come from child processes.
const SECRET_KEY_WORD = /api[_-]?key|token|secret|passw(?:or)?d|credentials?|cookie|private[_-]?key|authorization|access[_-]?key/i;
const SEPARATOR = /[=:]/g;
const VALUE = /\s*["']?((?:Bearer\s+|Basic\s+)?[^\s"',;&}]+)/y;

function isKeyChar(c: number): boolean {
  // A-Z a-z 0-9 _ . -
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45;
}

function redactPairs(s: string): string {
  if (!SECRET_KEY_WORD.test(s)) return s;
  let out = "";
  let copied = 0;
  SEPARATOR.lastIndex = 0;
  for (let m = SEPARATOR.exec(s); m; m = SEPARATOR.exec(s)) {
    const at = m.index;
    // The key: the run of key characters before the separator, past
    // optional spaces and a closing quote (`"token" :`, `'x-api-key':`).
    let k = at;
    while (k > 0 && /\s/.test(s[k - 1]!)) k--;
    if (k > 0 && (s[k - 1] === '"' || s[k - 1] === "'")) k--;
    let ks = k;
    while (ks > 0 && isKeyChar(s.charCodeAt(ks - 1))) ks--;
    if (ks === k) continue;
    const key = s.slice(ks, k);
    if (!SECRET_KEY_WORD.test(key)) continue;
    VALUE.lastIndex = at + 1;
    const v = VALUE.exec(s);
    if (!v) continue;
    const val = v[1]!;
    const end = VALUE.lastIndex;
    // `inputTokens: 12` in plain text is a count, not a secret.
    if (/^\d+$/.test(val) && /tokens/i.test(key)) continue;
    out += s.slice(copied, end - val.length) + REDACTED;
    copied = end;
    SEPARATOR.lastIndex = end;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/**
 * Redacts one raw line: parsed and redacted as JSON when it is JSON (and
 * re-serialised only if something changed), otherwise cleaned with regular
 * expressions.
 */
export function redactLine(line: string): string {
  const first = line.charCodeAt(0);
  if (first === 123 /* { */ || first === 91 /* [ */) {
    let parsed: unknown;
    let ok = false;
    try {
      parsed = JSON.parse(line);
      ok = true;
    } catch {
      // Not JSON after all (or truncated): fall through to the regex.
    }
    if (ok) {
      const r = redact(parsed);
      return r === parsed ? line : JSON.stringify(r);
    }
  }
  return redactPairs(redactString(line));
}
