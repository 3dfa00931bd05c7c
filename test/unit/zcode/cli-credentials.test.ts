// `zcode login`'s credentials.json, read as ZCode's terminal modes read it.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { cliCredentialsFile, cliProviderSignIn, cliSignIn, decryptCredential } from "../../../src/zcode/cli-credentials.ts";
import { writeCliCredentials, zcodeEncrypt } from "../../support/zcode-credentials.ts";

const root = mkdtempSync(path.join(tmpdir(), "cli-credentials-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const newHome = () => {
  const h = path.join(root, `home-${++n}`);
  mkdirSync(h, { recursive: true });
  return h;
};
const ZAI = "account:zai-individual-coding-plan";
const KEY = "zai-manual-key-0123456789abcdef";

describe("decryptCredential", () => {
  test("enc:v1 with the fallback secret of this home and user; plain values as they are", () => {
    const home = newHome();
    expect(decryptCredential(zcodeEncrypt("hello", home), { HOME: home })).toEqual({ ok: true, value: "hello" });
    expect(decryptCredential("plain", { HOME: home })).toEqual({ ok: true, value: "plain" });
  });
  test("ZCODE_CREDENTIAL_SECRET replaces the fallback secret", () => {
    const home = newHome();
    const env = { HOME: home, ZCODE_CREDENTIAL_SECRET: "s3cret" };
    expect(decryptCredential(zcodeEncrypt("v", home, "s3cret"), env)).toEqual({ ok: true, value: "v" });
    expect(decryptCredential(zcodeEncrypt("v", home), env)).toEqual({ ok: false, why: "bad" });
  });
  test("enc:v2 is the app's OS keychain: never readable here", () => {
    expect(decryptCredential("enc:v2:abc", {})).toEqual({ ok: false, why: "keychain" });
  });
  test("a malformed value is unreadable, not a crash", () => {
    for (const raw of ["enc:v1:", "enc:v1:a.b", "enc:v1:!!.??.**", "enc:v1:AAAA.AAAA.AAAA"]) {
      expect(decryptCredential(raw, {}).ok).toBe(false);
    }
  });
});

describe("cliSignIn", () => {
  test("a manual key, an OAuth sign-in and a keychain one, each for what it is", () => {
    const home = newHome();
    writeCliCredentials(home, [
      { providerId: ZAI, source: "manual", key: KEY, identity: "key-abc/1" },
      { providerId: "account:bigmodel-individual-coding-plan", source: "oauth" },
      { providerId: "account:zai-team-coding-plan", source: "keychain" },
    ]);
    const s = cliSignIn({ HOME: home });
    expect(s.kind).toBe("signed-in");
    if (s.kind !== "signed-in") return;
    expect(s.providers).toEqual([
      { kind: "key", providerId: ZAI, key: KEY },
      { kind: "oauth", providerId: "account:bigmodel-individual-coding-plan" },
      { kind: "keychain", providerId: "account:zai-team-coding-plan" },
    ]);
    expect(cliProviderSignIn({ HOME: home }, ZAI)).toEqual({ kind: "key", providerId: ZAI, key: KEY });
  });
  test("ZCODE_DATA_BASE_DIR moves the store, as it does for ZCode", () => {
    const base = newHome();
    const env = { HOME: newHome(), ZCODE_DATA_BASE_DIR: base };
    expect(cliCredentialsFile(env)).toBe(path.join(base, ".zcode", "v2", "credentials.json"));
    // The cipher's fallback secret is still the home's (ZCode's homedir()), so write with it.
    writeCliCredentials(
      base,
      [{ providerId: ZAI, source: "manual", key: KEY }],
      `zcode-credential-fallback:${process.platform}:${env.HOME}:${userInfo().username}`,
    );
    expect(cliProviderSignIn(env, ZAI)).toEqual({ kind: "key", providerId: ZAI, key: KEY });
  });
  test("no file, an empty one and a broken one", () => {
    const home = newHome();
    expect(cliSignIn({ HOME: home }).kind).toBe("none");
    mkdirSync(path.join(home, ".zcode", "v2"), { recursive: true });
    writeFileSync(path.join(home, ".zcode", "v2", "credentials.json"), "{}");
    expect(cliSignIn({ HOME: home })).toMatchObject({ kind: "none", exists: true });
    writeFileSync(path.join(home, ".zcode", "v2", "credentials.json"), "{not json");
    expect(cliSignIn({ HOME: home }).kind).toBe("unreadable");
  });
  test("a key stored under another identity than the pointer names is unreadable, never guessed", () => {
    const home = newHome();
    writeCliCredentials(home, [{ providerId: ZAI, source: "manual", key: KEY, identity: "a" }]);
    const file = path.join(home, ".zcode", "v2", "credentials.json");
    const raw = JSON.parse(readFileSync(file, "utf8"));
    raw[`account-provider:${ZAI}:identity`] = zcodeEncrypt("b", home);
    writeFileSync(file, JSON.stringify(raw));
    expect(cliProviderSignIn({ HOME: home }, ZAI)).toEqual({ kind: "unreadable", providerId: ZAI });
  });
});
