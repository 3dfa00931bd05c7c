// One judgment of the ZCode app's sign-in for doctor and /quota: a
// config.json that merely exists signs in no one; a GLM Coding Plan with a
// key is a sign-in /quota can use; a provider's own key is a sign-in for
// ZCode but gives /quota nothing.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quotaTarget } from "../../../src/quota/target.ts";
import { appSignIn } from "../../../src/zcode/sign-in.ts";

const tmp = mkdtempSync(join(tmpdir(), "sign-in-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function home(config?: unknown): { HOME: string } {
  const h = join(tmp, `h${n++}`);
  mkdirSync(join(h, ".zcode/v2"), { recursive: true });
  if (config !== undefined) writeFileSync(join(h, ".zcode/v2/config.json"), JSON.stringify(config));
  return { HOME: h };
}

const plan = { "builtin:zai-coding-plan": { name: "Z.ai Coding Plan", options: { apiKey: "k1" } } };
const own = { openrouter: { options: { apiKey: "k2", baseURL: "https://openrouter.ai/api/v1" } } };

test("each case, and /quota agrees with it", () => {
  const cases: Array<[unknown, string, boolean]> = [
    [undefined, "none", false],
    [{}, "none", false],
    [{ provider: { "builtin:zai-coding-plan": { options: {} } } }, "none", false],
    [{ provider: { "builtin:zai-coding-plan": { enabled: false, options: { apiKey: "k" } } } }, "none", false],
    [{ provider: own }, "provider-key", false],
    [{ provider: plan }, "plan", true],
    [{ provider: { ...own, ...plan } }, "plan", true],
  ];
  for (const [config, kind, quota] of cases) {
    const env = home(config);
    expect({ config, kind: appSignIn(env).kind as string }).toEqual({ config, kind });
    expect({ config, quota: quotaTarget(env, undefined).ok }).toEqual({ config, quota });
  }
});

test("what each kind carries: the file, whether it exists, the plans and the keyed providers", () => {
  const none = appSignIn(home({}));
  expect(none.kind === "none" && none.exists).toBe(true);
  const missing = appSignIn(home());
  expect(missing.kind === "none" && missing.exists).toBe(false);
  const both = appSignIn(home({ provider: { ...own, ...plan } }));
  expect(both.kind).toBe("plan");
  if (both.kind === "plan") {
    expect(both.plans.map((p) => p.id)).toEqual(["builtin:zai-coding-plan"]);
    expect(both.keyed.map((p) => p.id)).toEqual(["openrouter", "builtin:zai-coding-plan"]);
  }
});
