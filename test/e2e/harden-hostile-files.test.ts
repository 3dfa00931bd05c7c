// ZCode's files replaced by things that are not files: a FIFO (reading it
// blocks for ever) and /dev/zero (reading it never ends) in place of the
// app's setting.json and config.json, the CLI's config.json, a command and a
// skill. The compiled bridge still answers initialize, opens a session,
// lists the menu and answers /quota, with its memory bounded; doctor
// finishes.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AS_SHIPPED } from "../../scripts/allocator-env.ts";
import { withBridge } from "../support/acp-harness.ts";
import { promptAndCollect } from "./commands-support.ts";
import { BRIDGE_BIN, run, SIM_BIN } from "./cli-support.ts";

const tmp = mkdtempSync(join(tmpdir(), "zcode-hostile-files-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const MiB = 1024 * 1024;

/** A HOME where each of ZCode's files is `make(path)` instead, beside one ordinary command. */
function hostileHome(name: string, make: (path: string) => void): string {
  const home = join(tmp, name);
  for (const dir of [".zcode/v2", ".zcode/cli", ".zcode/commands", ".zcode/skills/odd"]) mkdirSync(join(home, dir), { recursive: true });
  writeFileSync(join(home, ".zcode/commands/fine.md"), "---\ndescription: An ordinary command\n---\nbody\n");
  for (const file of [
    ".zcode/v2/setting.json",
    ".zcode/v2/config.json",
    ".zcode/cli/config.json",
    ".zcode/commands/odd.md",
    ".zcode/skills/odd/SKILL.md",
  ]) {
    make(join(home, file));
  }
  return home;
}

const fifo = (p: string) => expect(Bun.spawnSync(["mkfifo", p]).exitCode).toBe(0);
const devZero = (p: string) => symlinkSync("/dev/zero", p);

/** Peak memory (VmHWM) of a running process, in bytes. */
function peakRss(pid: number): number {
  return Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;
}

describe("FIFOs and /dev/zero in place of ZCode's files", () => {
  for (const [kind, make] of [
    ["FIFO", fifo],
    ["/dev/zero", devZero],
  ] as const) {
    test(`${kind}: initialize is answered, a session opens with the menu, /quota answers; memory stays bounded`, async () => {
      const home = hostileHome(kind === "FIFO" ? "fifo" : "zero", make);
      // Its memory is measured: with the allocator as Bun ships it.
      await withBridge({ env: { ...AS_SHIPPED, HOME: home } }, async (h) => {
        expect(h.initializeResponse?.protocolVersion).toBeDefined();
        const { sessionId } = await h.newSession();
        await h.waitFor(() => h.updatesOfKind(sessionId, "available_commands_update").length > 0, "the command menu");
        const menu = h
          .updatesOfKind(sessionId, "available_commands_update")
          .at(-1)!
          .availableCommands.map((c) => c.name);
        expect(menu).toContain("fine");
        expect(menu).not.toContain("odd");
        const quota = await promptAndCollect(h, sessionId, "/quota");
        expect(quota.text).toStartWith("Not signed in");
        // Reading /dev/zero whole took the bridge to gigabytes.
        expect(peakRss(h.proc.pid)).toBeLessThan(256 * MiB);
      });
    }, 30_000);
  }

  test("doctor finishes with a FIFO as the app's setting.json and config.json", async () => {
    const home = hostileHome("fifo-doctor", fifo);
    const r = await run([BRIDGE_BIN, "doctor"], { env: { PATH: process.env.PATH, HOME: home, ZCODE_BIN: SIM_BIN }, timeoutMs: 20_000 });
    // Killed by the run's timer, it would have no exit code of its own (137).
    expect([0, 1]).toContain(r.code);
    expect(r.stdout).toContain(SIM_BIN);
  }, 30_000);
});
