// `zcode-acp-server doctor` against the simulator as ZCode and against a
// missing one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { BRIDGE_BIN, run, SIM_BIN } from "./cli-support.ts";

const SECRET = "sk-doctor-must-never-print-this";
let home: string;
let emptyHome: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "zcode-acp-doctor-"));
  mkdirSync(join(home, ".zcode/v2"), { recursive: true });
  writeFileSync(
    join(home, ".zcode/v2/config.json"),
    JSON.stringify({ provider: { "builtin:zai-coding-plan": { name: "Z.ai Coding Plan", options: { apiKey: SECRET } } } }),
  );
  emptyHome = mkdtempSync(join(tmpdir(), "zcode-acp-doctor-empty-"));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(emptyHome, { recursive: true, force: true });
});

test("all well: names the CLI and how it was found, its version, sign-in; prints editor settings; exit 0", async () => {
  const r = await run([BRIDGE_BIN, "doctor"], {
    env: { PATH: process.env.PATH, HOME: home, ZCODE_BIN: SIM_BIN, ZCODE_SIM_VERSION: "0.15.3" },
  });
  expect(r.stdout).toContain(SIM_BIN);
  expect(r.stdout).toContain("ZCODE_BIN");
  expect(r.stdout).toContain("0.15.3 (supported)");
  expect(r.stdout).toContain(join(home, ".zcode/v2/config.json"));
  expect(r.stdout).toContain("All checks passed.");
  expect(r.stdout).toContain('"agent_servers"');
  expect(r.stdout).toContain('"type": "custom"'); // Zed
  expect(r.stdout).toContain("~/.jetbrains/acp.json");
  expect(r.stdout).toContain(`"command": "${BRIDGE_BIN}"`);
  expect(r.stdout + r.stderr).not.toContain(SECRET);
  expect(r.code).toBe(0);
});

describe("which ZCode protocol the sessions get", () => {
  const doctor = (env: Record<string, string>, args: string[] = []) =>
    run([BRIDGE_BIN, "doctor", ...args], { env: { PATH: process.env.PATH, HOME: home, ZCODE_BIN: SIM_BIN, ...env } });

  test("auto: legacy for 0.15 and 0.16, v4 for a CLI without its legacy methods", async () => {
    expect((await doctor({ ZCODE_SIM_VERSION: "0.15.3" })).stdout).toContain(
      "ok    ZCode protocol: legacy: the CLI serves the legacy session methods and no v4",
    );
    expect((await doctor({ ZCODE_SIM_VERSION: "0.16.9" })).stdout).toContain(
      "ok    ZCode protocol: legacy: the CLI serves the legacy session methods (v4 too",
    );
    const v4only = await doctor({ ZCODE_SIM_PROTOCOL: "v4-only" });
    expect(v4only.stdout).toContain("ok    ZCode protocol: v4: the CLI answers the legacy methods 'method not found' and serves v4");
    expect(v4only.code).toBe(0);
  }, 30_000);

  test("forced v4 on a CLI without v4: fails with the fix; in Chinese too", async () => {
    const r = await doctor({ ZCODE_SIM_VERSION: "0.15.3" }, ["--zcode-protocol", "v4"]);
    expect(r.stdout).toContain("FAIL  ZCode protocol: --zcode-protocol v4 asks for the v4 protocol, but this CLI does not serve it");
    expect(r.stdout).toContain("--zcode-protocol auto");
    expect(r.stdout).toContain('"ZCODE_ACP_ZCODE_PROTOCOL": "v4"');
    expect(r.code).toBe(1);
    const zh = await doctor({ ZCODE_SIM_PROTOCOL: "v4-only", ZCODE_ACP_LANG: "zh" });
    expect(zh.stdout).toContain("ZCode 协议：v4：此 CLI 对旧版方法回答“方法不存在”，并提供 v4");
  }, 30_000);
});

test("--zcode-bin works like ZCODE_BIN", async () => {
  const r = await run([BRIDGE_BIN, "doctor", "--zcode-bin", SIM_BIN], { env: { PATH: process.env.PATH, HOME: home } });
  expect(r.stdout).toContain(SIM_BIN);
  expect(r.code).toBe(0);
});

test("a zcode on PATH: says it was found there", async () => {
  const bin = join(home, "path-bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(SIM_BIN, join(bin, "zcode"));
  const r = await run([BRIDGE_BIN, "doctor"], { env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home } });
  expect(r.stdout).toContain(`ok    ZCode CLI: ${join(bin, "zcode")} (found on PATH)`);
  expect(r.stdout).toContain("not needed (native binary)");
  expect(r.code).toBe(0);
});

test("too old a ZCode: says which version and what is needed; exit 1", async () => {
  const r = await run([BRIDGE_BIN, "doctor"], {
    env: { PATH: process.env.PATH, HOME: home, ZCODE_BIN: SIM_BIN, ZCODE_SIM_VERSION: "0.14.7" },
  });
  expect(r.stdout).toContain("0.14.7 is too old");
  expect(r.stdout).toContain("fix:");
  expect(r.code).toBe(1);
});

test("missing ZCode and no sign-in: each failure with its fix; exit 1", async () => {
  const r = await run([BRIDGE_BIN, "doctor"], {
    env: { PATH: "/nonexistent-path", HOME: emptyHome, ZCODE_BIN: join(emptyHome, "no-zcode-here") },
  });
  expect(r.stdout).toContain("FAIL  ZCode CLI");
  expect(r.stdout).toContain("no-zcode-here");
  expect(r.stdout).toMatch(/fix: .*ZCODE_BIN/);
  expect(r.stdout).toContain("FAIL  ZCode sign-in");
  expect(r.stdout).toContain("sign in");
  expect(r.code).toBe(1);
});

describe("a .cjs entry (run with an explicitly resolved Node)", () => {
  let dir: string;
  let entry: string;
  /** A stand-in `node` reporting `version`; run with `<entry> --version` it prints the ZCode version. */
  const fakeNode = (name: string, version: string) => {
    const p = join(dir, name);
    writeFileSync(p, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo v${version}; exit 0; fi\n[ "$2" = "--version" ] && echo 0.15.3\n`);
    chmodSync(p, 0o755);
    return p;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "zcode-acp-doctor-cjs-"));
    entry = join(dir, "zcode.cjs");
    writeFileSync(entry, "// a ZCode entry stand-in\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("names the Node that runs it and its version; exit 0", async () => {
    const node = fakeNode("node22", "22.11.0");
    const r = await run([BRIDGE_BIN, "doctor"], { env: { PATH: "/usr/bin:/bin", HOME: home, ZCODE_BIN: entry, ZCODE_NODE: node } });
    expect(r.stdout).toContain(`ok    ZCode CLI: ${entry}`);
    expect(r.stdout).toContain(`ok    Node for the JS entry: ${node} (22.11.0)`);
    expect(r.stdout).toContain("0.15.3 (supported)");
    expect(r.code).toBe(0);
  });

  test("too old a Node: the CLI counts as found, the Node check fails with the Node fix; exit 1", async () => {
    const node = fakeNode("node20", "20.1.0");
    const r = await run([BRIDGE_BIN, "doctor"], { env: { PATH: "/usr/bin:/bin", HOME: home, ZCODE_BIN: entry, ZCODE_NODE: node } });
    expect(r.stdout).toContain(`ok    ZCode CLI: ${entry}`);
    expect(r.stdout).toContain("FAIL  Node for the JS entry:");
    expect(r.stdout).toContain("20.1.0");
    expect(r.stdout).toMatch(/fix: .*ZCODE_NODE/);
    expect(r.stdout).not.toContain("Install the ZCode CLI");
    expect(r.code).toBe(1);
  });
});

describe("the editor snippets doctor prints", () => {
  /** The Zed snippet's ZCode entry. */
  function zedEntry(stdout: string): { command: string; args: string[]; env: Record<string, string> } {
    const json = /^\{\n[\s\S]*?^\}$/m.exec(stdout)![0];
    return JSON.parse(json).agent_servers.ZCode;
  }

  test("they carry the settings doctor ran with: a relative ZCODE_BIN made absolute, --lang, other ZCODE_ACP_ settings", async () => {
    const r = await run([BRIDGE_BIN, "--lang", "zh", "doctor"], {
      cwd: join(SIM_BIN, ".."),
      env: { PATH: process.env.PATH, HOME: home, ZCODE_BIN: "./zcode-sim", ZCODE_ACP_MODE: "plan", ZCODE_SIM_IGNORED: "x" },
    });
    expect(r.code).toBe(0);
    const zed = zedEntry(r.stdout);
    expect(zed.env).toEqual({ ZCODE_BIN: SIM_BIN, ZCODE_ACP_LANG: "zh", ZCODE_ACP_MODE: "plan" });
    expect(r.stdout).toContain(`"ZCODE_BIN": "${SIM_BIN}"`); // JetBrains too
    // Nothing set: nothing added.
    const bare = await run([BRIDGE_BIN, "doctor"], { env: { PATH: `${join(home, "path-bin")}:/usr/bin:/bin`, HOME: home } });
    expect(zedEntry(bare.stdout).env).toEqual({});
  });

  test("a Homebrew copy gets the opt/ path that follows upgrades, not the versioned keg", async () => {
    const prefix = mkdtempSync(join(tmpdir(), "zcode-acp-brew-"));
    try {
      const keg = join(prefix, "Cellar/zcode-acp-server/0.1.0/bin");
      mkdirSync(keg, { recursive: true });
      copyFileSync(BRIDGE_BIN, join(keg, "zcode-acp-server"));
      chmodSync(join(keg, "zcode-acp-server"), 0o755);
      mkdirSync(join(prefix, "opt"));
      symlinkSync("../Cellar/zcode-acp-server/0.1.0", join(prefix, "opt/zcode-acp-server"));
      mkdirSync(join(prefix, "bin"));
      symlinkSync("../Cellar/zcode-acp-server/0.1.0/bin/zcode-acp-server", join(prefix, "bin/zcode-acp-server"));
      const r = await run([join(prefix, "bin/zcode-acp-server"), "doctor"], {
        env: { PATH: process.env.PATH, HOME: home, ZCODE_BIN: SIM_BIN },
      });
      expect(r.stdout).toContain("installed by Homebrew");
      expect(zedEntry(r.stdout).command).toBe(join(prefix, "opt/zcode-acp-server/bin/zcode-acp-server"));
      expect(r.stdout).not.toContain(`"command": "${keg}`);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });

  test("a copy in npx's cache gets `npx -y @zcode-acp/server@<version>`, not the cache path", async () => {
    const cache = mkdtempSync(join(tmpdir(), "zcode-acp-npx-"));
    try {
      const bin = join(cache, "_npx/f359daac56d7bb04/node_modules/@zcode-acp/server/bin");
      mkdirSync(bin, { recursive: true });
      copyFileSync(BRIDGE_BIN, join(bin, "zcode-acp-server.exe"));
      chmodSync(join(bin, "zcode-acp-server.exe"), 0o755);
      const r = await run([join(bin, "zcode-acp-server.exe"), "doctor"], {
        env: { PATH: process.env.PATH, HOME: home, ZCODE_BIN: SIM_BIN },
      });
      const zed = zedEntry(r.stdout);
      expect(zed.command).toBe("npx");
      expect(zed.args).toEqual(["-y", `@zcode-acp/server@${pkg.version}`]);
      expect(zed.env).toEqual({ ZCODE_BIN: SIM_BIN });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe("sign-in, judged as /quota judges it", () => {
  const withConfig = async (config: unknown) => {
    const h = mkdtempSync(join(tmpdir(), "zcode-acp-signin-"));
    mkdirSync(join(h, ".zcode/v2"), { recursive: true });
    writeFileSync(join(h, ".zcode/v2/config.json"), JSON.stringify(config));
    try {
      return await run([BRIDGE_BIN, "doctor"], { env: { PATH: process.env.PATH, HOME: h, ZCODE_BIN: SIM_BIN } });
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  };

  test("a config.json that merely exists is not a sign-in", async () => {
    const r = await withConfig({});
    expect(r.stdout).toMatch(/FAIL {2}ZCode sign-in: .*config\.json has no enabled provider with an API key/);
    expect(r.code).toBe(1);
    const off = await withConfig({ provider: { "builtin:zai-coding-plan": { enabled: false, options: { apiKey: SECRET } } } });
    expect(off.stdout).toContain("has no enabled provider with an API key");
    expect(off.stdout).not.toContain(SECRET);
  });

  test("a GLM Coding Plan with a key: signed in, named", async () => {
    const r = await withConfig({ provider: { "builtin:zai-coding-plan": { name: "Z.ai Coding Plan", options: { apiKey: SECRET } } } });
    expect(r.stdout).toContain("ok    ZCode sign-in: signed in to Z.ai Coding Plan (GLM Coding Plan");
    expect(r.code).toBe(0);
  });

  test("only a provider's own key: signed in for ZCode, and doctor says /quota has nothing to show", async () => {
    const r = await withConfig({
      provider: { openrouter: { name: "OpenRouter", options: { apiKey: SECRET, baseURL: "https://openrouter.ai/api/v1" } } },
    });
    expect(r.stdout).toContain("ok    ZCode sign-in: an API key for OpenRouter");
    expect(r.stdout).toContain("no GLM Coding Plan, so /quota has nothing to show");
    expect(r.stdout).not.toContain(SECRET);
    expect(r.code).toBe(0);
  });
});

test("no ZCode: says where to get it, and does not tell the user to run doctor from inside doctor", async () => {
  const r = await run([BRIDGE_BIN, "doctor"], { env: { PATH: "/usr/bin:/bin", HOME: emptyHome } });
  expect(r.code).toBe(1);
  expect(r.stdout).toContain("FAIL  ZCode CLI: The ZCode CLI was not found.");
  expect(r.stdout).toContain("fix: Install the ZCode desktop app or CLI (https://zcode.z.ai)");
  expect(r.stdout).not.toContain("Run `zcode-acp-server doctor`");
  expect(r.stdout.match(/Install the ZCode/g)).toHaveLength(1);
});
