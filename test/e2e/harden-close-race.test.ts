// session/close arriving with or right behind a session/prompt (alone, or
// behind a set_mode, resume or load of the same session): the prompt is
// answered `cancelled`, a turn that reached ZCode is told to stop, and
// nothing of the closed session keeps running or polling ZCode.
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { sharedBridge, type Harness } from "../support/acp-harness.ts";

type Frame = ReturnType<Harness["simFrames"]>[number];

/** Requests to ZCode about `sessionId` (by method), from frame `from` on. */
function aboutSession(frames: Frame[], sessionId: string, from = 0): string[] {
  return frames
    .slice(from)
    .filter((f) => typeof f.method === "string" && f.params?.sessionId === sessionId)
    .map((f) => f.method!);
}

type Before = "nothing" | "set_mode" | "resume" | "load";

async function race(h: Harness, before: Before): Promise<void> {
  const { sessionId } = await h.newSession();
  await h.prompt(sessionId, "a first turn");
  const m = acp.methods.agent.session;
  const settle = <T>(p: Promise<T>) =>
    p.then(
      (v) => ({ ok: true as const, v }),
      (e: unknown) => ({ ok: false as const, e }),
    );
  // All written back to back, as an editor closing a tab does.
  const pre =
    before === "set_mode"
      ? settle(h.agent.request(m.setMode, { sessionId, modeId: "plan" }))
      : before === "resume"
        ? settle(h.agent.request(m.resume, { sessionId, cwd: h.stateDir, mcpServers: [] }))
        : before === "load"
          ? settle(h.agent.request(m.load, { sessionId, cwd: h.stateDir, mcpServers: [] }))
          : Promise.resolve({ ok: true as const, v: undefined });
  const prompt = settle(h.prompt(sessionId, "#scenario:slow n=400"));
  const close = settle(h.agent.request(m.close, { sessionId }));
  const [p, c] = await Promise.all([prompt, close, pre]);
  expect(c.ok).toBe(true);
  // Answered, and answered `cancelled` (never an error, never left pending).
  expect(p.ok ? p.v.stopReason : String((p as { e: unknown }).e)).toBe("cancelled");
  // Closed it stays, even when the resume or load before the close answered after it.
  const again = await h.prompt(sessionId, "after the close").then(
    (r) => r.stopReason,
    (e: { code?: number }) => e.code,
  );
  expect(again).toBe(-32002);
  const afterClose = h.simFrames().length;
  const framesNow = h.simFrames();
  const methods = aboutSession(framesNow, sessionId);
  // The turn that reached ZCode was told to stop (a load's own reads may come after).
  if (methods.filter((x) => x === "session/send").length === 2) {
    expect(methods.lastIndexOf("session/stop")).toBeGreaterThan(methods.lastIndexOf("session/send"));
  }
  // A busy other session (short stall timer) gives an orphaned turn of the closed one every chance to poll.
  const other = await h.newSession();
  expect((await h.prompt(other.sessionId, "#scenario:slow n=60")).stopReason).toBe("end_turn");
  expect(aboutSession(h.simFrames(), sessionId, afterClose).filter((x) => x !== "session/stop")).toEqual([]);
}

// One bridge for all: every test closes sessions of its own and reads only what concerns them.
const bridge = sharedBridge({ record: true, env: { ZCODE_ACP_STALL_MS: "40" } });

for (const before of ["nothing", "set_mode", "resume", "load"] as const) {
  test(`a prompt racing session/close (behind ${before}) is answered cancelled; nothing of the closed session runs on`, async () => {
    await bridge.run(async (h) => {
      for (let round = 0; round < 3; round++) await race(h, before);
    });
  }, 60_000);
}

test("session/close under a turn ZCode is running: the prompt answers cancelled, ZCode is told to stop, nothing polls on", async () => {
  await bridge.run(async (h) => {
    const { sessionId } = await h.newSession();
    const prompt = h.prompt(sessionId, "#scenario:slow n=400");
    await h.waitFor(() => h.text(sessionId).includes("chunk 2 "), "streaming");
    await h.agent.request(acp.methods.agent.session.close, { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    const methods = aboutSession(h.simFrames(), sessionId);
    expect(methods.lastIndexOf("session/stop")).toBeGreaterThan(methods.lastIndexOf("session/send"));
    const afterClose = h.simFrames().length;
    const other = await h.newSession();
    expect((await h.prompt(other.sessionId, "#scenario:slow n=60")).stopReason).toBe("end_turn");
    expect(aboutSession(h.simFrames(), sessionId, afterClose).filter((x) => x !== "session/stop")).toEqual([]);
  });
}, 60_000);
