// The compiled bridge knows who installed it: `upgrade` refuses to replace a
// copy npm, Homebrew or an editor's registry install owns (naming the right
// command) and downloads nothing; `doctor` prints its own path, version and
// origin, and warns when a different `zcode-acp-server` comes first on PATH.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { BRIDGE_BIN, run, serveFiles, SIM_BIN } from "./cli-support.ts";

let tmp: string;
let home: string;
let srv: ReturnType<typeof serveFiles>;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-origin-"));
  home = join(tmp, "home");
  mkdirSync(join(home, ".zcode/v2"), { recursive: true });
  writeFileSync(
    join(home, ".zcode/v2/config.json"),
    JSON.stringify({ provider: { "builtin:zai-coding-plan": { name: "Z.ai Coding Plan", options: { apiKey: "sk-test" } } } }),
  );
  // Any download attempt would show up here.
  srv = serveFiles(new Map());
});
afterAll(() => {
  srv?.server.stop(true);
  rmSync(tmp, { recursive: true, force: true });
});

/** A copy of the compiled bridge at `rel` under the temp dir. */
function copyAt(rel: string): string {
  const p = join(tmp, rel);
  mkdirSync(dirname(p), { recursive: true });
  copyFileSync(BRIDGE_BIN, p);
  chmodSync(p, 0o755);
  return p;
}

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  ZCODE_ACP_DOWNLOAD_BASE: srv.base,
  ...extra,
});

describe("upgrade refuses copies another tool owns, naming its command", () => {
  const cases = [
    {
      name: "npm (inside node_modules)",
      rel: "npm-prefix/lib/node_modules/@zcode-acp/server/bin/zcode-acp-server.exe",
      says: ["installed by npm (@zcode-acp/server)", "npm install -g @zcode-acp/server@latest"],
    },
    {
      name: "Homebrew (a Cellar keg, run through its bin symlink)",
      rel: "homebrew/Cellar/zcode-acp-server/0.1.0/bin/zcode-acp-server",
      link: "homebrew/bin/zcode-acp-server",
      says: ["installed by Homebrew", "brew upgrade zcode-acp/tap/zcode-acp-server"],
    },
    {
      name: "Zed's registry install",
      rel: "home/.local/share/zed/external_agents/registry/zcode-acp-server/0.1.0/zcode-acp-server",
      says: ["installed by Zed from the ACP registry", "Zed updates agents it installed"],
    },
    {
      name: "a JetBrains IDE's registry install",
      rel: "home/.cache/JetBrains/acp/zcode-acp-server/zcode-acp-server",
      says: ["installed by JetBrains from the ACP registry", "Settings | Tools | AI Assistant | Agents"],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const bin = copyAt(c.rel);
      let cmd = bin;
      if (c.link) {
        cmd = join(tmp, c.link);
        mkdirSync(dirname(cmd), { recursive: true });
        symlinkSync(bin, cmd);
      }
      const before = readFileSync(bin);
      const requests = srv.requests.length;
      const r = await run([cmd, "upgrade"], { env: env() });
      expect(r.code).toBe(1);
      for (const s of c.says) expect(r.stderr).toContain(s);
      expect(r.stderr).toContain(realpathSync(bin));
      expect(srv.requests.length).toBe(requests);
      expect(readFileSync(bin).equals(before)).toBe(true);
    });
  }
});

describe("doctor: this bridge and PATH", () => {
  /** A program called zcode-acp-server in its own directory, printing `version`. */
  function impostor(name: string, version: string): string {
    const dir = join(tmp, `impostor-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "zcode-acp-server"), `#!/bin/sh\necho '${version}'\n`);
    chmodSync(join(dir, "zcode-acp-server"), 0o755);
    return dir;
  }
  const doctor = (bin: string, path: string) => run([bin, "doctor"], { env: env({ PATH: path, ZCODE_BIN: SIM_BIN }) });

  test("prints its own path, version and origin", async () => {
    const bin = copyAt("standalone/bin/zcode-acp-server");
    const r = await doctor(bin, "/usr/bin:/bin");
    expect(r.stdout).toContain(`ok    This bridge: ${realpathSync(bin)} (version ${pkg.version}, standalone`);
    expect(r.stdout).not.toContain("WARN");
    expect(r.code).toBe(0);
    const npm = copyAt("doc-npm/lib/node_modules/@zcode-acp/server/bin/zcode-acp-server.exe");
    expect((await doctor(npm, "/usr/bin:/bin")).stdout).toContain("installed by npm (@zcode-acp/server)");
  });

  test("another version earlier on PATH: WARN naming it, doctor still passes", async () => {
    const bin = copyAt("ours/zcode-acp-server");
    const old = impostor("old", "0.0.9");
    const r = await doctor(bin, `${old}:${dirname(bin)}:/usr/bin:/bin`);
    expect(r.stdout).toContain(
      `WARN  PATH: ${join(old, "zcode-acp-server")} comes before this bridge on PATH and is zcode-acp-server 0.0.9, not ${pkg.version}`,
    );
    expect(r.stdout).toContain(`fix: Remove or upgrade ${join(old, "zcode-acp-server")}, or put ${realpathSync(bin)}`);
    expect(r.stdout).toContain("All checks passed.");
    expect(r.code).toBe(0);
    // After ours on PATH it shadows nothing.
    const after = await doctor(bin, `${dirname(bin)}:${old}:/usr/bin:/bin`);
    expect(after.stdout).not.toContain("WARN");
  });

  test("not on PATH itself: the first one on PATH is what runs by name; a different program is named as such", async () => {
    const bin = copyAt("elsewhere/zcode-acp-server");
    const other = impostor("other", "hello from another tool");
    const r = await doctor(bin, `${other}:/usr/bin:/bin`);
    expect(r.stdout).toContain(`WARN  PATH: ${join(other, "zcode-acp-server")} comes first on PATH and is a different program`);
    expect(r.stdout).toContain("hello from another tool");
    // The same version elsewhere, or a link to this very binary, is no warning.
    const same = impostor("same", pkg.version);
    expect((await doctor(bin, `${same}:/usr/bin:/bin`)).stdout).not.toContain("WARN");
    const links = join(tmp, "links");
    mkdirSync(links, { recursive: true });
    symlinkSync(bin, join(links, "zcode-acp-server"));
    expect((await doctor(bin, `${links}:${other}:/usr/bin:/bin`)).stdout).not.toContain("WARN");
  });
});
