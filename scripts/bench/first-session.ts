// The first usable session, as an editor sees it, and the same thing for the
// ZCode simulator alone (the floor no bridge can beat): used by startup.ts.
//
// Bridge: spawn, `initialize` at once; on its answer `authenticate` (a second
// request only the loaded agent answers) and `session/new` together, as an
// editor sends them; then optionally turns. ZCode alone: spawn the simulator
// with the same boot delay, wait for its first answer (booted), then time
// its first `session/create`.
import { readFileSync } from "node:fs";
import { RawAcpClient } from "./raw-acp-client.ts";

/** Memory of a process from /proc (Linux), in MB. */
export interface Rss {
  total: number;
  /** Private memory: the JS heap, malloc, JIT code, stacks. */
  anon: number;
  /** Pages of files, almost all of them the executable's own code and data. */
  file: number;
}

export function rssOf(pid: number): Rss {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? Number.NaN) / 1024;
  return { total: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile") + kb("RssShmem") };
}

export interface BridgeRun {
  /** spawn -> initialize answered */
  initialize: number;
  /** spawn -> authenticate answered: the agent has loaded */
  second: number;
  /** spawn -> session/new answered */
  sessionNew: number;
  rssAfterNew?: Rss;
  rssAfterTurns?: Rss;
  /** The JS heap's own figures, when the binary reports them (the bench's heap build). */
  heapAfterNew?: HeapFigures;
}

export interface HeapFigures {
  /** JS heap in use / reserved, MB. */
  used: number;
  total: number;
}

const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "bench", version: "0" } };
/** Time for the process to settle (timers, commands update) before its memory is read. */
const SETTLE_MS = 300;

export async function bridgeSession(
  cmd: string[],
  o: {
    sim: string;
    stateDir: string;
    bootMs: number;
    turns?: number;
    memory?: boolean;
    /** The binary reports its heap on SIGUSR2 (heap-report-main.ts); never send that signal to another. */
    heapReport?: boolean;
    env?: Record<string, string>;
  },
): Promise<BridgeRun> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: o.stateDir,
    ZCODE_BIN: o.sim,
    ZCODE_SIM_STATE_DIR: o.stateDir,
    ZCODE_SIM_BOOT_MS: String(o.bootMs),
    ZCODE_SIM_DELAY_MS: "1",
    ...o.env,
  };
  const t0 = performance.now();
  const c = RawAcpClient.spawn({ cmd, env, keep: false });
  try {
    await c.initialize();
    const initialize = performance.now() - t0;
    let second = 0;
    const auth = c.request("authenticate", { methodId: "zcode-app" }).then(() => (second = performance.now() - t0));
    const sessionId = await c.newSession(o.stateDir);
    const sessionNew = performance.now() - t0;
    await auth;
    const run: BridgeRun = { initialize, second, sessionNew };
    if (o.memory) {
      await Bun.sleep(SETTLE_MS);
      run.rssAfterNew = rssOf(c.pid);
      if (o.heapReport) run.heapAfterNew = await heapOf(c);
      for (let i = 0; i < (o.turns ?? 0); i++) await c.prompt(sessionId, `hello ${i}`);
      await Bun.sleep(SETTLE_MS);
      run.rssAfterTurns = rssOf(c.pid);
    }
    return run;
  } finally {
    await c.close();
  }
}

/** SIGUSR2 to a binary built from heap-report-main.ts: it prints `HEAP {json}` on stderr. */
async function heapOf(c: RawAcpClient): Promise<HeapFigures | undefined> {
  const before = c.stderr.length;
  try {
    process.kill(c.pid, "SIGUSR2");
  } catch {
    return undefined;
  }
  for (let i = 0; i < 25; i++) {
    const m = /HEAP (\{.*\})/.exec(c.stderr.slice(before));
    if (m) return JSON.parse(m[1] as string) as HeapFigures;
    await Bun.sleep(20);
  }
  return undefined;
}

export interface SimRun {
  /** spawn -> the first answer: process start and boot */
  ready: number;
  /** the first session/create, request -> answer, once booted */
  create: number;
}

/** The simulator alone on ZCode's wire: the floor for a first session. */
export async function simSession(sim: string, o: { stateDir: string; bootMs: number }): Promise<SimRun> {
  const env = { PATH: process.env.PATH ?? "", HOME: o.stateDir, ZCODE_SIM_STATE_DIR: o.stateDir, ZCODE_SIM_BOOT_MS: String(o.bootMs) };
  const t0 = performance.now();
  const p = Bun.spawn([sim, "app-server", "--stdio"], { env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const answers = new Map<number, (t: number) => void>();
  const waitFor = (id: number) => new Promise<number>((r) => answers.set(id, r));
  const send = (msg: unknown) => {
    p.stdin.write(`${JSON.stringify(msg)}\n`);
    void p.stdin.flush();
  };
  const reading = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of p.stdout) {
      buf += dec.decode(chunk, { stream: true });
      for (let i = buf.indexOf("\n"); i !== -1; i = buf.indexOf("\n")) {
        const msg = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        // ZCode asks for the runtime preferences right after create: answer like the bridge does.
        if (msg.method === "session/requestRuntimePreferences") {
          send({
            id: msg.id,
            result: { nativeSearchEnhancementsEnabled: false, memoryEnabled: false, askUserQuestionAutoResolutionEnabled: false },
          });
        } else if (typeof msg.id === "number" && msg.method === undefined) answers.get(msg.id)?.(performance.now());
      }
    }
  })();
  const workspace = { workspacePath: o.stateDir, workspaceKey: o.stateDir };
  try {
    // The cheapest request there is: answered as soon as ZCode has booted.
    send({ id: 1, method: "runtime/capabilities", params: {} });
    const ready = (await waitFor(1)) - t0;
    const t1 = performance.now();
    send({ id: 2, method: "session/create", params: { workspace } });
    const create = (await waitFor(2)) - t1;
    return { ready, create };
  } finally {
    p.stdin.end();
    await p.exited;
    await reading;
  }
}
