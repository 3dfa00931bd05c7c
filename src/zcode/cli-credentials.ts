import { createDecipheriv, createHash } from "node:crypto";
import { platform, userInfo } from "node:os";
import path from "node:path";
import { readBounded, CONFIG_MAX_BYTES } from "../read-bounded.ts";
import { rememberSecret } from "../redact.ts";
import { homeDir, nonEmpty, type Env } from "./host.ts";

// The sign-in `zcode login` stores, read the way ZCode's own terminal modes
// (prompt, TUI) read it. ZCode's app-server never reads this file: in that
// mode its host answers interaction/requestProviderRuntimeHeaders, so we do.
//
// Sources (jimpablo/ZCode@aac4755):
// - the store: `apps/zcode-cli/packages/adapters/src/auth/shared-credentials.ts`
//   `resolveSharedZCodeCredentialsPath`: `$ZCODE_DATA_BASE_DIR` or the home,
//   then `.zcode/v2/credentials.json`, a flat JSON object of strings;
// - the cipher: `…/adapters/src/auth/credential-cipher.ts`: `enc:v1:` is
//   AES-256-GCM, `iv.tag.ciphertext` in base64url, key = SHA-256 of
//   `$ZCODE_CREDENTIAL_SECRET` or `zcode-credential-fallback:<platform>:<home>:<user>`;
//   `enc:v2:` is the desktop app's OS keychain (Electron safeStorage), which
//   ZCode's own CLI cannot decrypt either; a value without a prefix is plain;
// - the keys: `apps/zcode-cli/packages/bootstrap/src/app/standalone-account-provider-runtime.ts`:
//   `account-provider:<providerId>:identity`, `…:auth-source` ("manual" or
//   "oauth"), and for a manual key
//   `account-provider:coding-plan:<providerId>:account:<encodeURIComponent(identity)>:api-key`.
//   An OAuth sign-in stores no key: ZCode trades the access token for a
//   short-lived project token at every model request (`createCodingPlanApiKeyResolver`,
//   `…/adapters/src/auth/coding-plan-api-key.ts`), a private exchange a bridge does not reproduce.

const V1 = "enc:v1:";
const V2 = "enc:v2:";

/** What `zcode login` left for one provider. */
export type CliProviderSignIn =
  | { kind: "key"; providerId: string; key: string }
  | { kind: "oauth"; providerId: string }
  | { kind: "keychain"; providerId: string }
  | { kind: "unreadable"; providerId: string };

export type CliSignIn =
  | { kind: "none"; file: string; exists: boolean }
  | { kind: "unreadable"; file: string }
  | { kind: "signed-in"; file: string; providers: CliProviderSignIn[] }
  | { kind: "no-home" };

/** ~/.zcode/v2/credentials.json (or under $ZCODE_DATA_BASE_DIR), as ZCode resolves it. */
export function cliCredentialsFile(env: Env): string | undefined {
  const base = nonEmpty(env.ZCODE_DATA_BASE_DIR) ?? homeDir(env);
  if (!base || !path.isAbsolute(base)) return undefined;
  return path.join(base, ".zcode", "v2", "credentials.json");
}

function cipherKey(env: Env): Buffer {
  const configured = env.ZCODE_CREDENTIAL_SECRET?.trim();
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // ZCode falls back the same way when the OS cannot name the user.
  }
  // ZCode's child runs with our environment, so its homedir() is our HOME.
  const secret = configured || `zcode-credential-fallback:${platform()}:${homeDir(env) ?? ""}:${user}`;
  return createHash("sha256").update(secret).digest();
}

type Decrypted = { ok: true; value: string } | { ok: false; why: "keychain" | "bad" };

/** One stored value in clear, as ZCode's cipher reads it. */
export function decryptCredential(raw: string, env: Env): Decrypted {
  if (raw.startsWith(V2)) return { ok: false, why: "keychain" };
  if (!raw.startsWith(V1)) return { ok: true, value: raw };
  const parts = raw.slice(V1.length).split(".");
  if (parts.length !== 3) return { ok: false, why: "bad" };
  try {
    const [iv, tag, data] = parts.map((p) => Buffer.from(p, "base64url")) as [Buffer, Buffer, Buffer];
    if (iv.length !== 12 || tag.length !== 16) return { ok: false, why: "bad" };
    const d = createDecipheriv("aes-256-gcm", cipherKey(env), iv);
    d.setAuthTag(tag);
    return { ok: true, value: Buffer.concat([d.update(data), d.final()]).toString("utf8") };
  } catch {
    return { ok: false, why: "bad" };
  }
}

function readStore(file: string): Record<string, string> | "missing" | "unreadable" {
  const r = readBounded(file, { maxBytes: CONFIG_MAX_BYTES });
  if (!r.ok) return r.why === "missing" ? "missing" : "unreadable";
  try {
    const parsed: unknown = JSON.parse(r.text.replace(/^\uFEFF/, ""));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return "unreadable";
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") out[k] = v;
    return out;
  } catch {
    return "unreadable";
  }
}

const IDENTITY = /^account-provider:(.+):identity$/;

function providerSignIn(store: Record<string, string>, providerId: string, env: Env): CliProviderSignIn | undefined {
  const read = (key: string): Decrypted | undefined => (store[key] === undefined ? undefined : decryptCredential(store[key]!, env));
  const identity = read(`account-provider:${providerId}:identity`);
  if (!identity) return undefined;
  if (!identity.ok) return { kind: identity.why === "keychain" ? "keychain" : "unreadable", providerId };
  const id = identity.value.trim();
  if (!id) return undefined;
  const source = read(`account-provider:${providerId}:auth-source`);
  if (source && !source.ok) return { kind: source.why === "keychain" ? "keychain" : "unreadable", providerId };
  // Like ZCode: only a "manual" source reads the stored key; anything else is OAuth's.
  if (source?.value !== "manual") return { kind: "oauth", providerId };
  const key = read(`account-provider:coding-plan:${providerId}:account:${encodeURIComponent(id)}:api-key`);
  if (!key) return { kind: "unreadable", providerId };
  if (!key.ok) return { kind: key.why === "keychain" ? "keychain" : "unreadable", providerId };
  const value = key.value.trim();
  if (!value) return { kind: "unreadable", providerId };
  rememberSecret(value);
  return { kind: "key", providerId, key: value };
}

/** Every provider `zcode login` signed in to, in the file's order. */
export function cliSignIn(env: Env): CliSignIn {
  const file = cliCredentialsFile(env);
  if (!file) return { kind: "no-home" };
  const store = readStore(file);
  if (store === "missing") return { kind: "none", file, exists: false };
  if (store === "unreadable") return { kind: "unreadable", file };
  const providers: CliProviderSignIn[] = [];
  for (const k of Object.keys(store)) {
    const m = IDENTITY.exec(k);
    if (!m) continue;
    const p = providerSignIn(store, m[1]!, env);
    if (p) providers.push(p);
  }
  return providers.length > 0 ? { kind: "signed-in", file, providers } : { kind: "none", file, exists: true };
}

/** The sign-in `zcode login` left for `providerId` (an `account:…` id), if any. */
export function cliProviderSignIn(env: Env, providerId: string): CliProviderSignIn | undefined {
  const s = cliSignIn(env);
  return s.kind === "signed-in" ? s.providers.find((p) => p.providerId === providerId) : undefined;
}
