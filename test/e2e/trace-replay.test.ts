// --trace end to end: both wires in the file, mode 0600, secrets redacted in
// every direction; then the trace's ZCode side replayed by the simulator
// (ZCODE_SIM_REPLAY) gives the editor the same updates, which is how a user's
// trace becomes a regression test.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { foldUpdates } from "../../src/session/update-sink.ts";
import { redact } from "../../src/redact.ts";
import { parseTrace, type TraceEntry } from "../../src/trace.ts";
import { Harness, withBridge } from "../support/acp-harness.ts";

const SECRET_ENV = "ghp_envSecretValue0001";
const SECRET_META = "meta-token-value-0002";
// First prompt of the session: it becomes the title, so it also comes back
// from the simulator (session/read) and goes to the editor (session_info_update).
const BEARER = "sk_live_bearerValue0003";
const PROMPTS = [`Bearer ${BEARER} #scenario:text`, "#scenario:tools", "#scenario:permission", "plain words to echo"];

/**
 * What the editor ends up seeing, whatever the timing: the sink's own merge
 * rules applied (a replay delivers frames in bursts, and the bridge rightly
 * merges updates that arrive together), then the bridge's random ids
 * (messageId) taken out.
 */
function normalized(h: Harness, sessionId: string): unknown[] {
  return foldUpdates(h.updates(sessionId)).map((u) => {
    const { messageId: _m, ...rest } = u as Record<string, unknown>;
    return rest;
  });
}

async function runSession(h: Harness, cwd: string): Promise<string> {
  const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
    cwd,
    mcpServers: [
      {
        name: "github",
        command: "/usr/local/bin/github-mcp",
        args: ["--stdio"],
        env: [
          { name: "GITHUB_TOKEN", value: SECRET_ENV },
          { name: "LOG_LEVEL", value: "debug" },
        ],
      },
    ],
  });
  for (const [i, text] of PROMPTS.entries()) {
    const r = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
      ...(i === 1 ? { _meta: { authToken: SECRET_META, apiKey: SECRET_META } } : {}),
    });
    expect(r.stopReason).toBe("end_turn");
  }
  return sessionId;
}

describe("wire trace", () => {
  const dir = mkdtempSync(join(tmpdir(), "trace-e2e-"));
  const tracePath = join(dir, "session.trace.jsonl");
  const cwd = mkdtempSync(join(tmpdir(), "trace-cwd-"));
  let recorded: unknown[] = [];
  let recordedSession = "";

  test("--trace writes all four directions, mode 0600, with every secret redacted", async () => {
    // An existing, world-readable file at the path must end up 0600 too.
    writeFileSync(tracePath, "stale\n");
    chmodSync(tracePath, 0o644);
    await withBridge({ args: ["--trace", tracePath] }, async (h) => {
      recordedSession = await runSession(h, cwd);
      recorded = normalized(h, recordedSession);
    });
    expect(statSync(tracePath).mode & 0o777).toBe(0o600);
    const text = readFileSync(tracePath, "utf8");
    expect(text).not.toContain("stale");
    const entries = parseTrace(text);
    const dirs = new Set(entries.map((e) => e.dir));
    expect([...dirs].sort()).toEqual(["bridge->editor", "bridge->zcode", "editor->bridge", "zcode->bridge"]);
    for (const e of entries) {
      expect(typeof e.t).toBe("number");
      expect(e.msg !== undefined || e.raw !== undefined).toBe(true);
    }
    // Timestamps never go backwards within one direction.
    for (const d of dirs) {
      const ts = entries.filter((e) => e.dir === d).map((e) => e.t);
      expect(ts).toEqual([...ts].sort((a, b) => a - b));
    }
    // No secret anywhere in the file, whichever direction carried it.
    for (const s of [SECRET_ENV, SECRET_META, BEARER]) expect(text).not.toContain(s);
    const has = (d: TraceEntry["dir"], needle: string) =>
      entries.some((e) => e.dir === d && JSON.stringify(e.msg ?? e.raw).includes(needle));
    // ...but the frames are there, redacted: the MCP env from the editor and
    // on to ZCode, the prompt's _meta, and the Bearer title coming back from ZCode.
    expect(has("editor->bridge", '{"name":"GITHUB_TOKEN","value":"[REDACTED]"}')).toBe(true);
    expect(has("bridge->zcode", '{"name":"GITHUB_TOKEN","value":"[REDACTED]"}')).toBe(true);
    expect(has("editor->bridge", '"authToken":"[REDACTED]"')).toBe(true);
    expect(has("zcode->bridge", "Bearer [REDACTED]")).toBe(true);
    expect(has("bridge->editor", "Bearer [REDACTED]")).toBe(true);
    // initialize (which the CLI may answer before the agent loads) is in it once each way.
    const inits = entries.filter((e) => e.dir === "editor->bridge" && (e.msg as any)?.method === "initialize");
    expect(inits.length).toBe(1);
    const initId = (inits[0]!.msg as any).id;
    expect(entries.filter((e) => e.dir === "bridge->editor" && (e.msg as any)?.id === initId && (e.msg as any)?.result).length).toBe(1);
    // Harmless values are kept as they were.
    expect(has("editor->bridge", '{"name":"LOG_LEVEL","value":"debug"}')).toBe(true);
    // The permission round trip is in the trace in both directions.
    expect(has("zcode->bridge", "interaction/requestPermission")).toBe(true);
    expect(has("bridge->editor", "session/request_permission")).toBe(true);
  });

  test("replaying the trace's ZCode side gives the editor the same updates", async () => {
    expect(recorded.length).toBeGreaterThan(10);
    await withBridge({ env: { ZCODE_SIM_REPLAY: tracePath, ZCODE_SIM_REPLAY_WAIT_MS: "2000" } }, async (h) => {
      const sessionId = await runSession(h, cwd);
      // The replay hands out the traced session id.
      expect(sessionId).toBe(recordedSession);
      // What ZCode sent is in the trace redacted, so the replay shows the
      // redacted form of what the editor first saw; everything else is equal.
      expect(normalized(h, sessionId)).toEqual(redact(recorded));
    });
  });
});

describe("committed trace fixture (regression)", () => {
  const fixture = join(import.meta.dir, "../fixtures/trace-basic.jsonl");

  test("the fixture replays: text, tool call and permission as recorded", async () => {
    const entries = parseTrace(readFileSync(fixture, "utf8"));
    // Expected content comes from the fixture itself: the text deltas ZCode sent.
    const deltas = entries
      .filter((e) => e.dir === "zcode->bridge")
      .map((e) => e.msg as { method?: string; params?: { type?: string; payload?: { kind?: string; delta?: string } } })
      .filter((m) => m.method === "session/event" && m.params?.type === "model.streaming" && m.params.payload?.kind === "text_delta")
      .map((m) => m.params!.payload!.delta!)
      .join("");
    expect(deltas.length).toBeGreaterThan(0);
    const prompts = entries
      .filter((e) => e.dir === "editor->bridge")
      .map((e) => e.msg as { method?: string; params?: any })
      .filter((m) => m.method === "session/prompt")
      .map((m) => m.params.prompt[0].text as string);
    expect(prompts.length).toBeGreaterThan(0);
    const newSession = entries.find((e) => e.dir === "editor->bridge" && (e.msg as any)?.method === "session/new")!.msg as any;
    await withBridge({ env: { ZCODE_SIM_REPLAY: fixture, ZCODE_SIM_REPLAY_WAIT_MS: "2000" } }, async (h) => {
      const { sessionId } = await h.agent.request(acp.methods.agent.session.new, { cwd: String(newSession.params.cwd), mcpServers: [] });
      for (const p of prompts) expect((await h.prompt(sessionId, p)).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toBe(deltas);
      const calls = h.updatesOfKind(sessionId, "tool_call");
      expect(calls.length).toBeGreaterThan(0);
      expect(calls[0]!.kind).toBe("execute");
      expect(h.received.permissionRequests.length).toBe(1);
    });
  });
});

describe("trace on shutdown", () => {
  test("SIGTERM right after a turn: the trace still ends with that turn's frames", async () => {
    const dir = mkdtempSync(join(tmpdir(), "trace-term-"));
    const path = join(dir, "t.jsonl");
    const h = await Harness.start({ args: ["--trace", path] });
    const { sessionId } = await h.newSession();
    const r = await h.prompt(sessionId, "last words");
    expect(r.stopReason).toBe("end_turn");
    h.kill("SIGTERM");
    expect(await h.proc.exited).toBe(0);
    await h.close({ expectExit: "any" });
    const entries = parseTrace(readFileSync(path, "utf8"));
    const last = entries.filter((e) => e.dir === "bridge->editor").at(-1)!.msg as { result?: { stopReason?: string } };
    expect(last.result?.stopReason).toBe("end_turn");
    expect(entries.some((e) => e.dir === "zcode->bridge" && JSON.stringify(e.msg).includes("Echo: "))).toBe(true);
  });
});
