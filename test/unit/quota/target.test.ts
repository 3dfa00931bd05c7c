// Which key /quota sends where: the provider rule, the host by base URL, and
// ZCODE_ACP_QUOTA_URL, from a config.json in a temporary HOME.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AppProvider } from "../../../src/zcode/app-config.ts";
import { activeQuotaProvider, planFamily, quotaTarget } from "../../../src/quota/target.ts";
import { writeCliCredentials } from "../../support/zcode-credentials.ts";

const root = mkdtempSync(path.join(tmpdir(), "quota-target-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function home(providers: Record<string, unknown>, extra: Record<string, string> = {}): Record<string, string> {
  const h = path.join(root, `home-${++n}`);
  mkdirSync(path.join(h, ".zcode", "v2"), { recursive: true });
  writeFileSync(path.join(h, ".zcode", "v2", "config.json"), JSON.stringify({ provider: providers }));
  return { HOME: h, ...extra };
}

const ZAI = { name: "Z.ai Coding Plan", options: { apiKey: "zai-key", baseURL: "https://api.z.ai/api/coding/paas/v4" } };
const BIGMODEL = { name: "BigModel Coding Plan", options: { apiKey: "bm-key", baseURL: "https://open.bigmodel.cn/api/coding/paas/v4" } };

describe("planFamily", () => {
  test("by the host of the base URL, subdomains included, nothing else", () => {
    expect(planFamily({ id: "x", baseURL: "https://api.z.ai/api/anthropic" })).toBe("zai");
    expect(planFamily({ id: "x", baseURL: "https://Z.AI/v1" })).toBe("zai");
    expect(planFamily({ id: "x", baseURL: "https://open.bigmodel.cn/api/paas/v4" })).toBe("bigmodel");
    expect(planFamily({ id: "x", baseURL: "https://dev.bigmodel.cn" })).toBe("bigmodel");
    // Look-alikes are other hosts: the key must not go to z.ai or bigmodel.cn for them, nor to them.
    expect(planFamily({ id: "builtin:zai-coding-plan", baseURL: "https://api.z.ai.example.com" })).toBeUndefined();
    expect(planFamily({ id: "x", baseURL: "https://notz.ai" })).toBeUndefined();
    expect(planFamily({ id: "x", baseURL: "https://openrouter.ai/api/v1" })).toBeUndefined();
    expect(planFamily({ id: "x", baseURL: "not a url" })).toBeUndefined();
  });

  test("without a base URL, a built-in plan id names its family", () => {
    expect(planFamily({ id: "builtin:zai-coding-plan" })).toBe("zai");
    expect(planFamily({ id: "builtin:bigmodel-start-plan" })).toBe("bigmodel");
    expect(planFamily({ id: "openrouter" })).toBeUndefined();
    expect(planFamily({ id: "account:zai-individual-coding-plan" })).toBeUndefined();
  });
});

describe("activeQuotaProvider", () => {
  const p = (id: string, extra: Partial<AppProvider> = {}): AppProvider => ({
    id,
    enabled: true,
    apiKey: `${id}-key`,
    baseURL: id.includes("zai") ? "https://api.z.ai/v4" : "https://open.bigmodel.cn/v4",
    ...extra,
  });
  const providers = [p("builtin:bigmodel-coding-plan"), p("builtin:zai-coding-plan")];

  test("the current model's provider, through the account → built-in mapping", () => {
    expect(activeQuotaProvider(providers, "builtin:zai-coding-plan/GLM-5.3")?.id).toBe("builtin:zai-coding-plan");
    expect(activeQuotaProvider(providers, "account:zai-individual-coding-plan/GLM-5.3")?.id).toBe("builtin:zai-coding-plan");
    expect(activeQuotaProvider(providers, "account:bigmodel-team-coding-plan/GLM-5.3")?.id).toBe("builtin:bigmodel-coding-plan");
  });

  test("otherwise the first enabled GLM provider with a key, in the file's order", () => {
    expect(activeQuotaProvider(providers, undefined)?.id).toBe("builtin:bigmodel-coding-plan");
    expect(activeQuotaProvider(providers, "openrouter/some-model")?.id).toBe("builtin:bigmodel-coding-plan");
    expect(activeQuotaProvider(providers, "garbage")?.id).toBe("builtin:bigmodel-coding-plan");
    const openrouter = p("openrouter", { baseURL: "https://openrouter.ai/api/v1" });
    // The current model's provider is not a GLM plan: its key stays home.
    expect(activeQuotaProvider([openrouter, ...providers], "openrouter/x")?.id).toBe("builtin:bigmodel-coding-plan");
  });

  test("disabled, keyless and foreign providers are skipped, even for the current model", () => {
    const list = [
      p("builtin:zai-coding-plan", { enabled: false }),
      p("builtin:bigmodel-coding-plan", { apiKey: undefined }),
      p("proxy", { baseURL: "https://llm.example.com" }),
      p("builtin:bigmodel-start-plan"),
    ];
    expect(activeQuotaProvider(list, "builtin:zai-coding-plan/GLM-5.3")?.id).toBe("builtin:bigmodel-start-plan");
    expect(activeQuotaProvider(list.slice(0, 3), "builtin:zai-coding-plan/GLM-5.3")).toBeUndefined();
    expect(activeQuotaProvider([], "builtin:zai-coding-plan/GLM-5.3")).toBeUndefined();
  });
});

describe("quotaTarget", () => {
  test("the plan's own host and the quota path, with the provider's key", () => {
    expect(quotaTarget(home({ "builtin:zai-coding-plan": ZAI }), "builtin:zai-coding-plan/GLM-5.3")).toEqual({
      ok: true,
      target: {
        url: "https://api.z.ai/api/monitor/usage/quota/limit",
        key: "zai-key",
        providerId: "builtin:zai-coding-plan",
        providerName: "Z.ai Coding Plan",
      },
    });
    const bm = quotaTarget(home({ "builtin:bigmodel-coding-plan": BIGMODEL }), undefined);
    expect(bm.ok && bm.target.url).toBe("https://open.bigmodel.cn/api/monitor/usage/quota/limit");
    expect(bm.ok && bm.target.key).toBe("bm-key");
  });

  test("the session's model picks between two plans", () => {
    const env = home({ "builtin:bigmodel-coding-plan": BIGMODEL, "builtin:zai-coding-plan": ZAI });
    const zai = quotaTarget(env, "builtin:zai-coding-plan/GLM-5.3");
    const bm = quotaTarget(env, "account:bigmodel-individual-coding-plan/GLM-5.3");
    expect(zai.ok && [zai.target.key, zai.target.url]).toEqual(["zai-key", "https://api.z.ai/api/monitor/usage/quota/limit"]);
    expect(bm.ok && [bm.target.key, bm.target.url]).toEqual(["bm-key", "https://open.bigmodel.cn/api/monitor/usage/quota/limit"]);
  });

  test("ZCODE_ACP_QUOTA_URL replaces the whole URL; the key is still the provider's", () => {
    const env = home({ "builtin:zai-coding-plan": ZAI }, { ZCODE_ACP_QUOTA_URL: "  http://127.0.0.1:9/quota?x=1  " });
    const r = quotaTarget(env, undefined);
    expect(r.ok && r.target.url).toBe("http://127.0.0.1:9/quota?x=1");
    expect(r.ok && r.target.key).toBe("zai-key");
    // Empty counts as unset.
    const unset = quotaTarget({ ...env, ZCODE_ACP_QUOTA_URL: " " }, undefined);
    expect(unset.ok && unset.target.url).toBe("https://api.z.ai/api/monitor/usage/quota/limit");
  });

  test("a bad override is reported, not used (and not worked around)", () => {
    for (const bad of ["file:///etc/passwd", "ftp://x/y", "127.0.0.1:8080/quota", "::"]) {
      expect(quotaTarget(home({ "builtin:zai-coding-plan": ZAI }, { ZCODE_ACP_QUOTA_URL: bad }), undefined)).toEqual({
        ok: false,
        reason: "bad_override",
      });
    }
  });

  test("no config, no GLM provider, no key: not signed in", () => {
    const empty = path.join(root, "no-config");
    mkdirSync(empty, { recursive: true });
    expect(quotaTarget({ HOME: empty }, undefined)).toEqual({ ok: false, reason: "not_signed_in" });
    expect(quotaTarget(home({ openrouter: { options: { apiKey: "k", baseURL: "https://openrouter.ai/api/v1" } } }), undefined)).toEqual({
      ok: false,
      reason: "not_signed_in",
    });
    expect(quotaTarget(home({ "builtin:zai-coding-plan": { options: { baseURL: "https://api.z.ai" } } }), undefined)).toEqual({
      ok: false,
      reason: "not_signed_in",
    });
  });
});

// Without the app's plan: ZCODE_API_KEY for the current plan model, else `zcode login`'s API key.
describe("quotaTarget without the ZCode app", () => {
  const BIG = "account:bigmodel-individual-coding-plan";

  test("`zcode login`'s API key, to its plan's own host", () => {
    const env = home({});
    writeCliCredentials(env.HOME!, [{ providerId: BIG, source: "manual", key: "cli-bm-key-0123456789" }]);
    expect(quotaTarget(env, undefined)).toEqual({
      ok: true,
      target: {
        url: "https://open.bigmodel.cn/api/monitor/usage/quota/limit",
        key: "cli-bm-key-0123456789",
        providerId: BIG,
        providerName: BIG,
      },
    });
  });

  test("ZCODE_API_KEY first, sent only where the current model's plan says", () => {
    const env = home({ "builtin:zai-coding-plan": ZAI }, { ZCODE_API_KEY: "env-key-0123456789" });
    expect(quotaTarget(env, "account:zai-individual-coding-plan/GLM-5.3")).toMatchObject({
      ok: true,
      target: { url: "https://api.z.ai/api/monitor/usage/quota/limit", key: "env-key-0123456789", providerId: "ZCODE_API_KEY" },
    });
    // A model of no GLM plan: the key's owner is unknown, so it goes nowhere.
    expect(quotaTarget(env, "openrouter/some-model")).toEqual({ ok: false, reason: "not_signed_in" });
  });
});
