// The child's environment: the desktop app's bundled CLI (a JS entry) exits at
// boot unless told where its built-in provider table is; a standalone binary
// finds its own. Real files in temporary directories, never the user's home.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  BUILTIN_PROVIDER_VAR,
  builtinProviderConfig,
  launchEnv,
  PERSONAL_PROVIDER_VAR,
  personalProviderConfig,
  providerConfigVars,
} from "../../../src/zcode/launch-env.ts";
import type { ZCodeLaunch } from "../../../src/zcode/resolve.ts";

const root = mkdtempSync(path.join(tmpdir(), "launch-env-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A fresh app layout: `<app>/resources/cli/zcode.cjs` plus the files asked for. */
function layout(files: { beside?: boolean; config?: boolean; personal?: boolean } = {}) {
  const base = path.join(root, `case-${++n}`);
  const cliDir = path.join(base, "app", "resources", "cli");
  const entry = path.join(cliDir, "zcode.cjs");
  const home = path.join(base, "home");
  mkdirSync(cliDir, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(entry, "// the CLI\n");
  const beside = path.join(cliDir, "provider", "zcode-builtin.json");
  const config = path.join(base, "app", "resources", "config", "provider", "zcode-builtin.json");
  const personal = path.join(home, ".zcode", "v2", "provider_config.json");
  for (const [want, file] of [
    [files.beside, beside],
    [files.config, config],
    [files.personal, personal],
  ] as const) {
    if (!want) continue;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "{}\n");
  }
  const js: ZCodeLaunch = {
    command: ["/usr/bin/node", entry],
    entry,
    source: "app-bundle",
    node: "/usr/bin/node",
    nodeVersion: "v22.12.0",
  };
  const native: ZCodeLaunch = { command: [path.join(base, "zcode")], entry: path.join(base, "zcode"), source: "path" };
  return {
    entry,
    home,
    beside,
    config,
    personal,
    js,
    native,
    env: { HOME: home, PATH: "/usr/bin:/bin" } as Record<string, string | undefined>,
  };
}

describe("builtinProviderConfig", () => {
  test("<dir>/provider/zcode-builtin.json beside the entry", () => {
    const l = layout({ beside: true });
    expect(builtinProviderConfig(l.entry)).toBe(l.beside);
  });

  test("else <dir>/../config/provider/zcode-builtin.json", () => {
    const l = layout({ config: true });
    expect(builtinProviderConfig(l.entry)).toBe(l.config);
  });

  test("both present: the one beside the entry wins", () => {
    const l = layout({ beside: true, config: true });
    expect(builtinProviderConfig(l.entry)).toBe(l.beside);
  });

  test("neither, or a directory of that name: nothing", () => {
    const l = layout();
    expect(builtinProviderConfig(l.entry)).toBeUndefined();
    mkdirSync(l.beside, { recursive: true });
    expect(builtinProviderConfig(l.entry)).toBeUndefined();
  });
});

describe("personalProviderConfig", () => {
  test("~/.zcode/v2/provider_config.json when it exists", () => {
    const l = layout({ personal: true });
    expect(personalProviderConfig(l.env)).toBe(l.personal);
    expect(personalProviderConfig(layout().env)).toBeUndefined();
  });

  test("only under an absolute home: a relative HOME is never searched", () => {
    const l = layout({ personal: true });
    const rel = path.relative(process.cwd(), l.home);
    const found = personalProviderConfig({ HOME: rel, USERPROFILE: rel });
    expect(found === undefined || path.isAbsolute(found)).toBe(true);
    expect(path.resolve(found ?? "/")).not.toBe(l.personal);
  });
});

describe("launchEnv", () => {
  test("JS entry: both tables set to what was found; the rest of the environment kept", () => {
    const l = layout({ config: true, personal: true });
    const out = launchEnv(l.js, { ...l.env, FOO: "bar" });
    expect(out[BUILTIN_PROVIDER_VAR]).toBe(l.config);
    expect(out[PERSONAL_PROVIDER_VAR]).toBe(l.personal);
    expect(out.FOO).toBe("bar");
    expect(out.HOME).toBe(l.home);
    expect(providerConfigVars(l.js, l.env)).toEqual({
      builtin: { path: l.config, from: "bridge" },
      personal: { path: l.personal, from: "bridge" },
    });
  });

  test("the user's own values are never overridden", () => {
    const l = layout({ beside: true, personal: true });
    const env = { ...l.env, [BUILTIN_PROVIDER_VAR]: "/etc/my-builtin.json", [PERSONAL_PROVIDER_VAR]: "/etc/my-personal.json" };
    const out = launchEnv(l.js, env);
    expect(out[BUILTIN_PROVIDER_VAR]).toBe("/etc/my-builtin.json");
    expect(out[PERSONAL_PROVIDER_VAR]).toBe("/etc/my-personal.json");
    expect(providerConfigVars(l.js, env)).toEqual({
      builtin: { path: "/etc/my-builtin.json", from: "user" },
      personal: { path: "/etc/my-personal.json", from: "user" },
    });
  });

  test("nothing found: nothing added", () => {
    const l = layout();
    const out = launchEnv(l.js, l.env);
    expect(BUILTIN_PROVIDER_VAR in out).toBe(false);
    expect(PERSONAL_PROVIDER_VAR in out).toBe(false);
    expect(providerConfigVars(l.js, l.env)).toEqual({});
  });

  test("a native binary gets none added, even with the files beside it", () => {
    const l = layout({ beside: true, config: true, personal: true });
    const native: ZCodeLaunch = { command: [l.entry], entry: l.entry, source: "env" };
    const out = launchEnv(native, l.env);
    expect(BUILTIN_PROVIDER_VAR in out).toBe(false);
    expect(PERSONAL_PROVIDER_VAR in out).toBe(false);
    expect(providerConfigVars(native, l.env)).toEqual({});
    // ...but the user's own values still reach it.
    expect(launchEnv(native, { ...l.env, [BUILTIN_PROVIDER_VAR]: "/x.json" })[BUILTIN_PROVIDER_VAR]).toBe("/x.json");
  });

  test("ZCODE_BASE_URL never reaches the child; the caller's env is not changed", () => {
    const l = layout({ beside: true });
    const env = { ...l.env, ZCODE_BASE_URL: "https://proxy.example" };
    for (const launch of [l.js, l.native]) {
      const out = launchEnv(launch, env);
      expect("ZCODE_BASE_URL" in out).toBe(false);
    }
    expect(env.ZCODE_BASE_URL).toBe("https://proxy.example");
    expect(BUILTIN_PROVIDER_VAR in env).toBe(false);
  });
});
