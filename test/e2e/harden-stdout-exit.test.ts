// The bridge exits (stdin EOF, SIGTERM) while the editor is slow to read its
// stdout: what is queued must still reach the editor within the shutdown
// grace, and never as half a line. The editor here is a real pipe whose
// reader sleeps, then reads everything (a Bun parent would read the child's
// pipe eagerly and never back it up).
import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readlinkSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN } from "./cli-support.ts";
import { pollUntil } from "../support/poll.ts";

const N = 5000; // ~3.5 MB of initialize answers: far more than a pipe holds
const PAUSE_S = 1.5; // shorter than the grace (3 s), longer than the exit used to take

function requests(n: number): string {
  let s = "";
  for (let i = 1; i <= n; i++) s += `${JSON.stringify({ jsonrpc: "2.0", id: i, method: "initialize", params: { protocolVersion: 1 } })}\n`;
  return s;
}

/** The bridge process somewhere under the shell `sh` (each pipeline element is a subshell). */
function bridgePid(sh: number): number | undefined {
  const parent = new Map<number, number>();
  const bridges: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      if (readlinkSync(`/proc/${e}/exe`) === BRIDGE_BIN) bridges.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return bridges.find((pid) => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === sh) return true;
    return false;
  });
}

async function slowEditor(end: "eof" | "sigterm"): Promise<{ text: string; stderr: string }> {
  // `bridge | { sleep; cat; }`: the bridge writes into a pipe nobody reads for PAUSE_S.
  const sh = Bun.spawn(["/bin/sh", "-c", `{ "$0"; echo "bridge-exit=$?" >&2; } | { sleep ${PAUSE_S}; cat; }`, BRIDGE_BIN], {
    env: { PATH: process.env.PATH, HOME: "/nonexistent", ZCODE_ACP_LOG_LEVEL: "warn" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => sh.kill("SIGKILL"), 30_000);
  const out = new Response(sh.stdout).text();
  const err = new Response(sh.stderr).text();
  try {
    sh.stdin.write(requests(N));
    await sh.stdin.flush();
    if (end === "sigterm") {
      // Let the answers back up first.
      await Bun.sleep(400);
      let pid: number | undefined;
      await pollUntil(() => (pid = bridgePid(sh.pid)) !== undefined, 1_000, 20);
      expect(pid).toBeDefined();
      process.kill(pid!, "SIGTERM");
    }
  } finally {
    sh.stdin.end();
  }
  const [text, stderr] = await Promise.all([out, err, sh.exited]);
  clearTimeout(killer);
  return { text, stderr };
}

function check(text: string): { lines: number; ids: Set<number> } {
  expect(text.endsWith("\n")).toBe(true);
  const ids = new Set<number>();
  const lines = text.split("\n").filter(Boolean);
  for (const l of lines) {
    const m = JSON.parse(l); // throws on half a line
    expect(m.result?.protocolVersion).toBe(1);
    ids.add(m.id);
  }
  return { lines: lines.length, ids };
}

test("stdin EOF while the editor is not reading: every request answered, every line whole", async () => {
  const r = await slowEditor("eof");
  expect(r.stderr).toContain("bridge-exit=0");
  const { lines, ids } = check(r.text);
  expect(lines).toBe(N);
  expect(ids.size).toBe(N);
}, 40_000);

test("SIGTERM while the editor is not reading: what was queued arrives, every line whole", async () => {
  const r = await slowEditor("sigterm");
  expect(r.stderr).toContain("bridge-exit=0");
  const { lines } = check(r.text);
  expect(lines).toBeGreaterThan(0);
}, 40_000);

/**
 * `bridge | reader`, the reader starting only once the bridge has said on
 * stderr that it gave up waiting for it (the grace is spent): whatever it
 * then reads must be whole lines.
 */
async function lateEditor(end: "eof" | "sigterm"): Promise<{ text: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "zcode-late-editor-"));
  const errFile = join(dir, "bridge.err");
  const script =
    `{ "$0" 2>"$1"; echo "bridge-exit=$?" >>"$1"; } | ` +
    `{ until grep -q "did not read our output" "$1" 2>/dev/null; do sleep 0.05; done; cat; }`;
  const sh = Bun.spawn(["/bin/sh", "-c", script, BRIDGE_BIN, errFile], {
    env: { PATH: process.env.PATH, HOME: "/nonexistent", ZCODE_ACP_LOG_LEVEL: "warn" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const killer = setTimeout(() => sh.kill("SIGKILL"), 60_000);
  const out = new Response(sh.stdout).text();
  try {
    sh.stdin.write(requests(N));
    await sh.stdin.flush();
    if (end === "sigterm") {
      let pid: number | undefined;
      // Signalled once its answers have backed up: the pipe is full when the bridge stops taking our requests.
      await pollUntil(() => (pid = bridgePid(sh.pid)) !== undefined, 5_000, 20);
      expect(pid).toBeDefined();
      process.kill(pid!, "SIGTERM");
    }
  } finally {
    sh.stdin.end();
  }
  const [text] = await Promise.all([out, sh.exited]);
  clearTimeout(killer);
  const stderr = readFileSync(errFile, "utf8");
  rmSync(dir, { recursive: true, force: true });
  return { text, stderr };
}

for (const end of ["eof", "sigterm"] as const) {
  test(`${end}: an editor that reads only after the bridge gave up waiting still gets whole lines only`, async () => {
    const r = await lateEditor(end);
    expect(r.stderr).toContain("bridge-exit=0");
    const { lines } = check(r.text);
    expect(lines).toBeGreaterThan(0);
  }, 60_000);
}
