// interaction/requestProviderRuntimeHeaders answered from the ZCode app's
// config.json, in a temporary HOME; the key never reaches a log.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { accountScopeOf, fingerprint, providerHeadersAnswer } from "../../../src/session/provider-headers.ts";
import { writeCliCredentials } from "../../support/zcode-credentials.ts";

const root = mkdtempSync(path.join(tmpdir(), "provider-headers-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function home(config?: unknown): { HOME: string } {
  const h = path.join(root, `home-${++n}`);
  mkdirSync(path.join(h, ".zcode", "v2"), { recursive: true });
  if (config !== undefined) writeFileSync(path.join(h, ".zcode", "v2", "config.json"), JSON.stringify(config));
  return { HOME: h };
}

const KEY = "sk-zai-secret-0123456789";
const SCOPE = accountScopeOf("builtin:zai-coding-plan", KEY);
const SRC = path.join(import.meta.dir, "../../../src");
const ask = (providerId: string) => ({
  requestId: "h1",
  sessionId: "s1",
  providerId,
  modelSelection: { providerId, modelId: "GLM-5.3" },
  reason: "model_request",
});

describe("providerHeadersAnswer", () => {
  test("a re-ask carrying the refused key's fingerprint is never answered with that key", () => {
    const env = home({ provider: { "builtin:zai-coding-plan": { options: { apiKey: KEY } } } });
    const again = providerHeadersAnswer(
      { ...ask("account:zai-individual-coding-plan"), rejectedProjectTokenFingerprint: fingerprint(KEY) },
      env,
    );
    expect(again.headersApplied).toBe(false);
    if (!again.headersApplied) expect(again.errorMessage).toContain("refused the API key");
    expect(JSON.stringify(again)).not.toContain(KEY);
    // Another key's fingerprint: this one is still offered.
    const other = providerHeadersAnswer(
      { ...ask("account:zai-individual-coding-plan"), rejectedProjectTokenFingerprint: fingerprint("sk-old") },
      env,
    );
    expect(other).toEqual({ headersApplied: true, requestAuth: { apiKey: KEY, accountScope: SCOPE } });
    expect(fingerprint("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  test("off-peak accounts are served with their plan's key", () => {
    const env = home({ provider: { "builtin:zai-coding-plan": { options: { apiKey: KEY } } } });
    expect(providerHeadersAnswer(ask("account:zai-individual-coding-plan-off-peak"), env)).toEqual({
      headersApplied: true,
      requestAuth: { apiKey: KEY, accountScope: SCOPE },
    });
  });

  test("accountScope: answered with every key (64 hex); a re-ask with expectedAccountScope gets the key while the scope holds, a refusal once the key changed", () => {
    const env = home({ provider: { "builtin:zai-coding-plan": { options: { apiKey: KEY } } } });
    expect(SCOPE).toMatch(/^[a-f0-9]{64}$/);
    const same = providerHeadersAnswer({ ...ask("account:zai-individual-coding-plan"), expectedAccountScope: SCOPE }, env);
    expect(same).toEqual({ headersApplied: true, requestAuth: { apiKey: KEY, accountScope: SCOPE } });
    const changed = providerHeadersAnswer(
      { ...ask("account:zai-individual-coding-plan"), expectedAccountScope: accountScopeOf("builtin:zai-coding-plan", "sk-other") },
      env,
    );
    expect(changed.headersApplied).toBe(false);
    expect(JSON.stringify(changed)).not.toContain(KEY);
  });

  test("the account plan's key, stored under the built-in id: headersApplied with requestAuth", () => {
    const env = home({ provider: { "builtin:zai-coding-plan": { options: { apiKey: KEY } } } });
    expect(providerHeadersAnswer(ask("account:zai-individual-coding-plan"), env)).toEqual({
      headersApplied: true,
      requestAuth: { apiKey: KEY, accountScope: SCOPE },
    });
    expect(providerHeadersAnswer(ask("builtin:zai-coding-plan"), env)).toEqual({
      headersApplied: true,
      requestAuth: { apiKey: KEY, accountScope: SCOPE },
    });
  });

  test("no sign-in: headersApplied false, saying what to do", () => {
    const a = providerHeadersAnswer(ask("account:zai-individual-coding-plan"), home({ provider: {} }));
    expect(a.headersApplied).toBe(false);
    if (a.headersApplied) return;
    expect(a.errorMessage).toContain("no sign-in for account:zai-individual-coding-plan");
    expect(a.errorMessage).toContain("Sign in to this plan in the ZCode app");
  });

  test("no config.json at all, a provider turned off, or no key: each says why", () => {
    const none = providerHeadersAnswer(ask("account:zai-individual-coding-plan"), home());
    expect(none).toMatchObject({ headersApplied: false });
    const off = providerHeadersAnswer(
      ask("account:zai-individual-coding-plan"),
      home({ provider: { "builtin:zai-coding-plan": { enabled: false, options: { apiKey: KEY } } } }),
    );
    expect(off).toMatchObject({ headersApplied: false });
    expect((off as { errorMessage: string }).errorMessage).toContain("builtin:zai-coding-plan is turned off in the ZCode app");
    const nokey = providerHeadersAnswer(
      ask("account:zai-individual-coding-plan"),
      home({ provider: { "builtin:zai-coding-plan": { options: {} } } }),
    );
    expect((nokey as { errorMessage: string }).errorMessage).toContain("stored no API key for builtin:zai-coding-plan");
  });

  test("params without a provider id: headersApplied false, never a thrown error", () => {
    const a = providerHeadersAnswer({ sessionId: "s1" }, home());
    expect(a.headersApplied).toBe(false);
    expect(providerHeadersAnswer(null, home()).headersApplied).toBe(false);
  });

  test("the key never reaches the log, even at trace level", async () => {
    const env = home({ provider: { "builtin:zai-coding-plan": { options: { apiKey: KEY } } } });
    // In a process of its own: the module's logger takes the level in force when it loads.
    const script = [
      `const { setLogLevel } = await import(${JSON.stringify(path.join(SRC, "log.ts"))});`,
      'setLogLevel("trace");',
      `const { providerHeadersAnswer } = await import(${JSON.stringify(path.join(SRC, "session/provider-headers.ts"))});`,
      `const env = ${JSON.stringify(env)};`,
      `for (const p of ${JSON.stringify([ask("account:zai-individual-coding-plan"), ask("openrouter")])}) process.stdout.write(JSON.stringify(providerHeadersAnswer(p, env)) + "\\n");`,
    ].join("\n");
    const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(code).toBe(0);
    // The key went to ZCode...
    expect(stdout).toContain(KEY);
    // ...and the log said what happened, without it.
    expect(stderr).toContain("answering account:zai-individual-coding-plan with the key of builtin:zai-coding-plan");
    expect(stderr).toContain("cannot provide credentials for openrouter");
    expect(stderr).not.toContain(KEY);
  });
});

// Without the app: `zcode login`'s credentials.json, and ZCODE_API_KEY.
describe("providerHeadersAnswer without the ZCode app", () => {
  const ZAI = "account:zai-individual-coding-plan";
  const CLI_KEY = "cli-manual-key-0123456789abcdef";
  const ENV_KEY = "env-key-0123456789abcdef";

  test("a key `zcode login` stored (API key sign-in) answers when the app has none", () => {
    const env = home();
    writeCliCredentials(env.HOME, [{ providerId: ZAI, source: "manual", key: CLI_KEY }]);
    expect(providerHeadersAnswer(ask(ZAI), env)).toEqual({
      headersApplied: true,
      requestAuth: { apiKey: CLI_KEY, accountScope: accountScopeOf(ZAI, CLI_KEY) },
    });
    // Another plan is not answered with this one's key.
    expect(providerHeadersAnswer(ask("account:bigmodel-individual-coding-plan"), env).headersApplied).toBe(false);
  });

  test("ZCODE_API_KEY answers before the app's and `zcode login`'s keys; its refusal names the variable", () => {
    const env = { ...home({ provider: { "builtin:zai-coding-plan": { options: { apiKey: KEY } } } }), ZCODE_API_KEY: ` ${ENV_KEY} ` };
    writeCliCredentials(env.HOME, [{ providerId: ZAI, source: "manual", key: CLI_KEY }]);
    const a = providerHeadersAnswer(ask(ZAI), env);
    expect(a).toMatchObject({ headersApplied: true, requestAuth: { apiKey: ENV_KEY } });
    const again = providerHeadersAnswer({ ...ask(ZAI), rejectedProjectTokenFingerprint: fingerprint(ENV_KEY) }, env);
    expect(again.headersApplied).toBe(false);
    if (!again.headersApplied) expect(again.errorMessage).toContain("refused the API key in ZCODE_API_KEY");
  });

  test("a browser (OAuth) sign-in or the app's keychain: refused, saying exactly why", () => {
    const oauth = home();
    writeCliCredentials(oauth.HOME, [{ providerId: ZAI, source: "oauth" }]);
    const a = providerHeadersAnswer(ask(ZAI), oauth);
    expect(a.headersApplied).toBe(false);
    if (!a.headersApplied) {
      expect(a.errorMessage).toContain("signed in to account:zai-individual-coding-plan through the browser");
      expect(a.errorMessage).toContain("ZCODE_API_KEY");
      expect(a.errorMessage).not.toContain("zai-oauth-access-token");
    }
    const chain = home();
    writeCliCredentials(chain.HOME, [{ providerId: ZAI, source: "keychain" }]);
    const b = providerHeadersAnswer(ask(ZAI), chain);
    if (!b.headersApplied) expect(b.errorMessage).toContain("OS keychain");
    expect(b.headersApplied).toBe(false);
  });
});
