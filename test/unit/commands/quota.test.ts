// /quota as a command: it reads the app's config from the bridge's env (not
// process.env), asks a local stand-in for the quota service and never ZCode.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { optionsFromSettings } from "../../../src/translate/options/options.ts";
import { runCommand } from "../support/commands-fakes.ts";
import { CREATE_SETTINGS, settings } from "../support/bridge-fixtures.ts";

const root = mkdtempSync(path.join(tmpdir(), "quota-command-"));
const requests: Array<{ path: string; authorization: string | null }> = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const url = new URL(req.url);
    requests.push({ path: url.pathname, authorization: req.headers.get("authorization") });
    if (url.pathname.startsWith("/expired")) return Response.json({ code: 401, msg: "token expired or incorrect", success: false });
    return Response.json({
      code: 200,
      success: true,
      data: { level: "max", limits: [{ type: "TOKENS_LIMIT", unit: 3, number: 5, usage: 100, currentValue: 25, remaining: 75 }] },
    });
  },
});
afterAll(() => {
  server.stop(true);
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
/** A bridge env whose HOME has config.json with these providers, asking the local server at `urlPath`. */
function env(providers: Record<string, unknown>, urlPath = `/q${++n}`): Record<string, string> {
  const home = path.join(root, `home-${++n}`);
  mkdirSync(path.join(home, ".zcode", "v2"), { recursive: true });
  writeFileSync(path.join(home, ".zcode", "v2", "config.json"), JSON.stringify({ provider: providers }));
  return { HOME: home, ZCODE_ACP_QUOTA_URL: `http://127.0.0.1:${server.port}${urlPath}` };
}

const zai = (apiKey: string) => ({
  "builtin:zai-coding-plan": { name: "Z.ai Coding Plan", options: { apiKey, baseURL: "https://api.z.ai/api/coding/paas/v4" } },
});

describe("/quota", () => {
  test("shows the card, sends the bare key in Authorization, calls no ZCode method", async () => {
    requests.length = 0;
    const r = await runCommand("/quota", {}, { env: env(zai("key-one")) });
    expect(r.calls).toEqual([]);
    expect(r.said).toHaveLength(1);
    expect(r.said[0]).toStartWith("```text\nGLM Coding Plan · Max\n");
    expect(r.said[0]).toContain("5-hour  █████░░░░░░░░░░░░░░░   25% used");
    expect(r.said[0]).not.toContain("key-one");
    expect(requests.map((q) => q.authorization)).toEqual(["key-one"]);
  });

  test("the session's current model picks the provider", async () => {
    requests.length = 0;
    const e = env({
      "builtin:bigmodel-coding-plan": { options: { apiKey: "bm-key", baseURL: "https://open.bigmodel.cn/api/paas/v4" } },
      ...zai("zai-key"),
    });
    // CREATE_SETTINGS' current model is on the Z.ai plan: its key, not the first one in the file.
    const options = optionsFromSettings(settings(CREATE_SETTINGS));
    expect(options.model?.current).toStartWith("builtin:zai-coding-plan/");
    await runCommand("/quota", {}, { env: e, options });
    await runCommand("/quota", {}, { env: { ...e, ZCODE_ACP_QUOTA_URL: `${e.ZCODE_ACP_QUOTA_URL}-2` }, options: {} });
    expect(requests.map((q) => q.authorization)).toEqual(["zai-key", "bm-key"]);
  });

  test("a second /quota within 10 s is answered from the cache", async () => {
    requests.length = 0;
    const e = env(zai("key-cached"));
    const a = await runCommand("/quota", {}, { env: e });
    const b = await runCommand("/quota", {}, { env: e });
    expect(b.said).toEqual(a.said);
    expect(requests).toHaveLength(1);
  });

  test("a refused key: not signed in or expired, naming the provider", async () => {
    const r = await runCommand("/quota", {}, { env: env(zai("key-expired"), "/expired") });
    expect(r.said).toEqual([
      "Not signed in, or the sign-in expired: the GLM Coding Plan refused the key the ZCode app stored for Z.ai Coding Plan. Sign in again in the ZCode app (Settings → Models), then run `/quota` again.",
    ]);
  });

  test("no GLM sign-in: says so without asking anyone", async () => {
    requests.length = 0;
    const r = await runCommand(
      "/quota",
      {},
      { env: env({ openrouter: { options: { apiKey: "k", baseURL: "https://openrouter.ai/api/v1" } } }) },
    );
    expect(r.said[0]).toStartWith("Not signed in: the ZCode app has no GLM Coding Plan sign-in");
    expect(requests).toEqual([]);
  });

  test("a bad ZCODE_ACP_QUOTA_URL is reported, and nothing is sent", async () => {
    requests.length = 0;
    const r = await runCommand("/quota", {}, { env: { ...env(zai("k")), ZCODE_ACP_QUOTA_URL: "file:///etc/passwd" } });
    expect(r.said[0]).toStartWith("`ZCODE_ACP_QUOTA_URL` is set but is not an http:// or https:// URL");
    expect(requests).toEqual([]);
  });

  test("arguments get the usage line", async () => {
    requests.length = 0;
    const r = await runCommand("/quota now", {}, { env: env(zai("k")) });
    expect(r.said).toEqual(["`/quota` takes no arguments.\n\nUsage: `/quota`"]);
    expect(requests).toEqual([]);
  });
});
