// Writes ~/.zcode/v2/credentials.json as ZCode's `zcode login` does
// (jimpablo/ZCode@aac4755: adapters/src/auth/credential-cipher.ts `encrypt`,
// bootstrap/src/app/standalone-account-provider-runtime.ts for the keys), so
// that tests read it through the bridge's own reader, never a copy of it.
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { platform, userInfo } from "node:os";
import path from "node:path";

export function zcodeEncrypt(value: string, home: string, secret?: string): string {
  const s = secret ?? `zcode-credential-fallback:${platform()}:${home}:${userInfo().username}`;
  const key = createHash("sha256").update(s).digest();
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([c.update(value, "utf8"), c.final()]);
  return `enc:v1:${iv.toString("base64url")}.${c.getAuthTag().toString("base64url")}.${data.toString("base64url")}`;
}

export type StoredSignIn =
  | { providerId: string; source: "manual"; key: string; identity?: string }
  | { providerId: string; source: "oauth"; identity?: string }
  | { providerId: string; source: "keychain" };

/** The credentials.json `zcode login` leaves in `home` for these sign-ins. */
export function writeCliCredentials(home: string, signIns: StoredSignIn[], secret?: string): string {
  const enc = (v: string) => zcodeEncrypt(v, home, secret);
  const out: Record<string, string> = {};
  for (const s of signIns) {
    if (s.source === "keychain") {
      out[`account-provider:${s.providerId}:identity`] = "enc:v2:djEwAAAA";
      continue;
    }
    const identity = s.identity ?? "u_1";
    out[`account-provider:${s.providerId}:identity`] = enc(identity);
    out[`account-provider:${s.providerId}:auth-source`] = enc(s.source);
    if (s.source === "manual") {
      out[`account-provider:coding-plan:${s.providerId}:account:${encodeURIComponent(identity)}:api-key`] = enc(s.key);
    } else {
      out["oauth:zai:access_token"] = enc("zai-oauth-access-token-0123456789");
    }
  }
  const dir = path.join(home, ".zcode", "v2");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "credentials.json");
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`, { mode: 0o600 });
  return file;
}
