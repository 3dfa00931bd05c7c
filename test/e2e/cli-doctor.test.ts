// `zcode-acp-server doctor` against the simulator as ZCode and against a
// missing one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, run, SIM_BIN } from "./cli-support.ts";

const SECRET = "sk-doctor-must-never-print-this";
let home: string;
let emptyHome: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "zcode-acp-doctor-"));
  mkdirSync(join(home, ".zcode/v2"), { recursive: true });
  writeFileSync(join(home, ".zcode/v2/config.json"), JSON.stringify({ apiKey: SECRET }));
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
