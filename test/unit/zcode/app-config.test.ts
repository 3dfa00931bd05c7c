// The ZCode app's ~/.zcode/v2/config.json, read-only and best effort, in a
// temporary HOME.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { appProviderFor, appProviders, readAppJson, zcodeAppDir, type AppProvider } from "../../../src/zcode/app-config.ts";

const root = mkdtempSync(path.join(tmpdir(), "app-config-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A home whose config.json holds `content` (a string is written as is). */
function home(content?: unknown): { HOME: string } {
  const h = path.join(root, `home-${++n}`);
  mkdirSync(path.join(h, ".zcode", "v2"), { recursive: true });
  if (content !== undefined) {
    writeFileSync(path.join(h, ".zcode", "v2", "config.json"), typeof content === "string" ? content : JSON.stringify(content));
  }
  return { HOME: h };
}

const CONFIG = {
  provider: {
    "builtin:zai-coding-plan": {
      name: "Z.ai Coding Plan",
      options: { apiKey: "  sk-zai-123  ", baseURL: "https://api.z.ai/api/coding/paas/v4" },
    },
    "builtin:bigmodel-start-plan": { name: "BigModel Start", enabled: false, options: { apiKey: "sk-bm" } },
    openrouter: { options: { apiKey: "" } },
    weird: "not an object",
  },
};

describe("appProviders", () => {
  test("the providers in the file's order: name, enabled, trimmed key and base URL", () => {
    expect(appProviders(home(CONFIG))).toEqual([
      {
        id: "builtin:zai-coding-plan",
        name: "Z.ai Coding Plan",
        enabled: true,
        apiKey: "sk-zai-123",
        baseURL: "https://api.z.ai/api/coding/paas/v4",
      },
      { id: "builtin:bigmodel-start-plan", name: "BigModel Start", enabled: false, apiKey: "sk-bm" },
      { id: "openrouter", enabled: true },
      { id: "weird", enabled: true },
    ]);
  });

  test("a BOM is tolerated", () => {
    expect(appProviders(home(`\uFEFF${JSON.stringify(CONFIG)}`)).map((p) => p.id)).toHaveLength(4);
  });

  test("no file, broken JSON, no providers, or no absolute home: nothing configured", () => {
    expect(appProviders(home())).toEqual([]);
    expect(appProviders(home("{ not json"))).toEqual([]);
    expect(appProviders(home({ provider: [] }))).toEqual([]);
    expect(appProviders(home(["x"]))).toEqual([]);
    expect(zcodeAppDir({ HOME: "relative/home", USERPROFILE: "" })).not.toBe(path.join("relative/home", ".zcode", "v2"));
  });

  test("zcodeAppDir and readAppJson", () => {
    const env = home({ a: 1 });
    expect(zcodeAppDir(env)).toBe(path.join(env.HOME, ".zcode", "v2"));
    expect(readAppJson(path.join(env.HOME, ".zcode", "v2", "config.json"))).toEqual({ a: 1 });
    expect(readAppJson(path.join(env.HOME, "missing.json"))).toBeUndefined();
  });

  test("a FIFO or /dev/zero in config.json's place is nothing configured, at once", () => {
    const fifo = home();
    expect(Bun.spawnSync(["mkfifo", path.join(fifo.HOME, ".zcode", "v2", "config.json")]).exitCode).toBe(0);
    expect(appProviders(fifo)).toEqual([]);
    const zero = home();
    symlinkSync("/dev/zero", path.join(zero.HOME, ".zcode", "v2", "config.json"));
    expect(appProviders(zero)).toEqual([]);
  });
});

describe("appProviderFor", () => {
  const providers: AppProvider[] = [
    { id: "builtin:zai-coding-plan", enabled: true, apiKey: "k1" },
    { id: "builtin:zai-start-plan", enabled: true, apiKey: "k2" },
    { id: "builtin:bigmodel-coding-plan", enabled: true, apiKey: "k3" },
    { id: "account:zai-individual-coding-plan", enabled: true, apiKey: "exact" },
  ];

  test("an exact id wins", () => {
    expect(appProviderFor(providers, "account:zai-individual-coding-plan")?.apiKey).toBe("exact");
    expect(appProviderFor(providers, "builtin:zai-start-plan")?.apiKey).toBe("k2");
  });

  test("account:<family>-individual-coding-plan → builtin:<family>-coding-plan (also start plans, any case)", () => {
    const rest = providers.slice(0, 3);
    expect(appProviderFor(rest, "account:zai-individual-coding-plan")?.id).toBe("builtin:zai-coding-plan");
    expect(appProviderFor(rest, "account:zai-start-plan")?.id).toBe("builtin:zai-start-plan");
    expect(appProviderFor(rest, "account:ZAI-Individual-Coding-Plan")?.id).toBe("builtin:zai-coding-plan");
  });

  test("a team plan gets its own key, never the individual plan's; off-peak accounts are served by their plan", () => {
    const team = { id: "builtin:bigmodel-team-coding-plan", enabled: true, apiKey: "team-key" };
    const individual = { id: "builtin:bigmodel-coding-plan", enabled: true, apiKey: "individual-key" };
    expect(appProviderFor([individual], "account:bigmodel-team-coding-plan")).toBeUndefined();
    expect(appProviderFor([individual, team], "account:bigmodel-team-coding-plan")?.apiKey).toBe("team-key");
    expect(appProviderFor([individual, team], "account:bigmodel-individual-coding-plan-off-peak")?.apiKey).toBe("individual-key");
    expect(appProviderFor([individual, team], "account:bigmodel-off-peak")?.apiKey).toBe("individual-key");
    expect(appProviderFor([individual, team], "account:bigmodel-team-coding-plan-off-peak")?.apiKey).toBe("team-key");
  });

  test("no such plan, or not an account plan: nothing", () => {
    expect(appProviderFor(providers, "account:other-individual-coding-plan")).toBeUndefined();
    expect(appProviderFor(providers, "account:zai-enterprise")).toBeUndefined();
    expect(appProviderFor(providers, "openrouter")).toBeUndefined();
    expect(appProviderFor([], "account:zai-individual-coding-plan")).toBeUndefined();
  });
});
