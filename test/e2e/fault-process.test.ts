// Process faults around a running turn: the ZCode child SIGKILLed, the editor
// closing stdin, SIGTERM, the bridge SIGKILLed (also while ZCode's
// `--version` probe hangs in a grandchild), our stdout closed (EPIPE).
// Each time: the bridge keeps working or exits 0, and no child outlives it.
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, Harness, SIM_BIN, isAlive, withBridge } from "../support/acp-harness.ts";
import { zcodeChild } from "./process-support.ts";
import { pollUntil } from "../support/poll.ts";

async function gone(pid: number, withinMs: number): Promise<number> {
  const t0 = Date.now();
  if (!(await pollUntil(() => !isAlive(pid) || isZombie(pid), withinMs)))
    throw new Error(`process ${pid} still alive after ${withinMs} ms`);
  return Date.now() - t0;
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Starts a long streaming turn and resolves once its first chunk arrived. */
async function streaming(h: Harness): Promise<{ sessionId: string; prompt: Promise<unknown> }> {
  const { sessionId } = await h.newSession();
  const prompt = h.prompt(sessionId, "#scenario:slow n=2000");
  prompt.catch(() => {});
  await h.waitFor(() => h.updatesOfKind(sessionId, "agent_message_chunk").length > 0, "the first chunk");
  return { sessionId, prompt };
}

describe("the ZCode child dies", () => {
  test("SIGKILL mid-turn: the prompt fails saying the CLI died (not on a timeout); the next prompt gets a new child and works", async () => {
    await withBridge({ record: true }, async (h) => {
      const { sessionId, prompt } = await streaming(h);
      const child = await zcodeChild(h.proc.pid);
      process.kill(child, "SIGKILL");
      const err = await prompt.then(
        () => undefined,
        (e: Error) => e,
      );
      // Failed by the exit itself: the message names the signal.
      expect(err).toBeInstanceOf(Error);
      expect(err!.message).toMatch(/ZCode|CLI/i);
      expect(err!.message).toMatch(/died|exited|killed|SIGKILL/i);
      expect(err!.message).toContain("SIGKILL");

      const before = h.updates(sessionId).length;
      const r = await h.prompt(sessionId, "after the kill");
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: after the kill");
      expect(h.updates(sessionId).length).toBeGreaterThan(before);
      const second = await zcodeChild(h.proc.pid);
      expect(second).not.toBe(child);
      // The new child had to resume the session before using it.
      const methods = h.simMethods();
      expect(methods.lastIndexOf("session/resume")).toBeGreaterThan(methods.indexOf("session/send"));
    });
  });
});

describe("the editor goes away", () => {
  test("stdin closed mid-turn: the child is gone within 2 s and the bridge exits 0", async () => {
    const h = await Harness.start();
    await streaming(h);
    const child = await zcodeChild(h.proc.pid);
    const t0 = Date.now();
    // Exit 0 (a bridge that hung would be SIGKILLed by the harness), then the child goes.
    const code = await h.close({ expectExit: "any", allowProblems: true });
    await gone(child, 2000 - (Date.now() - t0));
    expect(code).toBe(0);
  });

  test.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
    "%s mid-turn: the child is gone within 2 s and the bridge exits 0",
    async (signal) => {
      const h = await Harness.start();
      await streaming(h);
      const child = await zcodeChild(h.proc.pid);
      const t0 = Date.now();
      h.kill(signal);
      const code = await h.proc.exited;
      await gone(child, 2000 - (Date.now() - t0));
      expect(code).toBe(0);
      await h.close({ expectExit: "any", allowProblems: true });
    },
  );

  test("the bridge is SIGKILLed: its child exits within a few seconds", async () => {
    const h = await Harness.start();
    await streaming(h);
    const child = await zcodeChild(h.proc.pid);
    h.kill("SIGKILL");
    await h.proc.exited;
    await gone(child, 5000);
    await h.close({ expectExit: "any", allowProblems: true });
  });

  test("our stdout closed (EPIPE) mid-turn: same as stdin closed — child gone, exit 0", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "fault-epipe-"));
    // node:child_process, because its stdout stream can be destroyed, which
    // closes our end of the pipe for real.
    const proc = spawn(BRIDGE_BIN, [], {
      cwd: stateDir,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ZCODE_BIN: SIM_BIN, ZCODE_SIM_STATE_DIR: stateDir, ZCODE_SIM_DELAY_MS: "1", ZCODE_ACP_LOG_LEVEL: "warn" },
    });
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => proc.on("exit", (code) => r(code)));
    try {
      const lines: any[] = [];
      let buf = "";
      let onLine: () => void = () => {};
      proc.stdout!.on("data", (d: Buffer) => {
        buf += d.toString();
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          lines.push(JSON.parse(buf.slice(0, nl)));
          buf = buf.slice(nl + 1);
          onLine();
        }
      });
      const until = (pred: (m: any) => boolean) =>
        new Promise<any>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error(`timeout; stderr:\n${stderr}`)), 10_000);
          onLine = () => {
            const m = lines.find(pred);
            if (m) {
              clearTimeout(t);
              resolve(m);
            }
          };
          onLine();
        });
      const send = (m: object) => proc.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
      send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
      await until((m) => m.id === 1);
      send({ id: 2, method: "session/new", params: { cwd: stateDir, mcpServers: [] } });
      const sessionId = (await until((m) => m.id === 2)).result.sessionId;
      send({ id: 3, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "#scenario:slow n=5000" }] } });
      await until((m) => m.method === "session/update" && m.params.update.sessionUpdate === "agent_message_chunk");
      const child = await zcodeChild(proc.pid!);
      // Close the read end of the bridge's stdout; its next write fails with
      // EPIPE. Its stdin stays open: it must leave because stdout is gone.
      proc.stdout!.destroy();
      const t0 = Date.now();
      const code = await Promise.race([exited, Bun.sleep(5000).then(() => "still running" as const)]);
      expect(code).toBe(0);
      await gone(child, 2000 - Math.min(1500, Date.now() - t0));
    } finally {
      proc.kill("SIGKILL");
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});

describe("the bridge is SIGKILLed while ZCode's `--version` probe hangs", () => {
  function commandLine(pid: number): string {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      return "(gone)";
    }
  }

  /** Pids of every process whose command line contains `marker`. */
  function withMarker(marker: string): number[] {
    const pids: number[] = [];
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker) && !isZombie(Number(name))) pids.push(Number(name));
      } catch {
        // gone meanwhile
      }
    }
    return pids;
  }

  test("no process of the probe remains: the wrapper and its grandchild go with the bridge", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zcode-probe-hang-"));
    const marker = `probe-grandchild-${process.pid}-${Date.now()}`;
    const bin = join(dir, "zcode");
    // A wrapper that does not exec: `--version` hangs in a grandchild (that
    // ignores SIGTERM and SIGHUP), app-server is the simulator.
    writeFileSync(
      bin,
      `#!/bin/sh
if [ "$1" = "--version" ]; then
  sh -c 'trap "" TERM HUP; while :; do sleep 1; done' ${marker}
  exit 0
fi
exec '${SIM_BIN}' "$@"
`,
    );
    chmodSync(bin, 0o755);
    const h = await Harness.start({ env: { ZCODE_BIN: bin } });
    try {
      // The probe runs as ZCode is started ahead of the first session.
      await h.waitFor(() => withMarker(marker).length > 0, "the hanging probe's grandchild");
      h.kill("SIGKILL");
      await h.proc.exited;
      // The guard's kill chain is a shell, `kill`, `sleep 0` and `kill` again, which a loaded machine runs late:
      // 10 s were once not enough with both cores busy. Sized for that; a failure says what was left.
      const left = () => [...withMarker(marker), ...withMarker(bin)];
      const named = (pid: number) => `${pid} ${commandLine(pid)}`;
      await h
        .waitFor(() => left().length === 0, "the probe's processes to end", 30_000)
        .catch((e: Error) => {
          throw new Error(`${e.message}\nstill running: ${left().map(named).join("; ")}`);
        });
    } finally {
      // Whatever the outcome, nothing of this test stays behind.
      for (const pid of [...withMarker(marker), ...withMarker(bin)]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      await h.close({ expectExit: "any", allowProblems: true });
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
