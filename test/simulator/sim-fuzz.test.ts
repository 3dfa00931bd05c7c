// ZCODE_SIM_FUZZ: junk frames among the real ones, real events of unknown
// types or odd payloads (consuming seqs), and every turn still ends.
import { afterEach, beforeAll, expect, test } from "bun:test";
import { ensureSimBuilt, type Frame, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** The real end of a turn: junk events never carry a turnId on the envelope. */
const realEnd = (sid: string) => (f: Frame) =>
  f.method === "session/event" &&
  f.params?.sessionId === sid &&
  (f.params.type === "turn.completed" || f.params.type === "turn.failed") &&
  typeof f.params.turnId === "string";

async function createRetrying(c: SimClient): Promise<string> {
  // A fuzzed answer may be mangled; the bridge would report an error, the test retries.
  for (let i = 0; i < 10; i++) {
    const r = await c.request("session/create", { workspace: { workspacePath: "/w/f", workspaceKey: "/w/f" } });
    if (typeof r.result?.session?.sessionId === "string") return r.result.session.sessionId;
  }
  throw new Error("create never answered cleanly");
}

for (const seed of [1, 2, 3, 42]) {
  test(`seed ${seed}: junk is written, every turn still completes`, async () => {
    const c = new SimClient(tempDir(), { env: { ZCODE_SIM_FUZZ: String(seed), ZCODE_SIM_RESEND_MS: "100" } });
    open.push(c);
    const sid = await createRetrying(c);
    await c.request("session/subscribe", { sessionId: sid, deliveryKind: "desktop-continuous" });
    for (const prompt of ["hello", "#scenario:bash", "#scenario:permission", "#scenario:flood n=300", "#scenario:tools"]) {
      const from = c.frames.length;
      c.send({ id: `send-${prompt}`, method: "session/send", params: { sessionId: sid, content: prompt } });
      if (prompt.includes("permission")) {
        const req = await c.waitFor(
          (f) =>
            f.method === "interaction/requestPermission" &&
            typeof f.params?.requestId === "string" &&
            typeof f.id === "string" &&
            f.id.startsWith("server-"),
          5000,
          from,
        );
        c.send({ id: req.id, result: { decision: "allow" } });
      }
      await c.waitFor(realEnd(sid), 10_000, from);
    }
    const junk = c.rawLines.filter((l) => {
      try {
        const f = JSON.parse(l);
        return !f || typeof f !== "object" || Array.isArray(f);
      } catch {
        return true;
      }
    });
    expect(junk.length).toBeGreaterThan(0);
    // Real events, odd ones included, keep seq contiguous (junk duplicates or breaks seqs, never skips one).
    const seqs = new Set(
      c.frames
        .filter((f) => f.method === "session/event" && f.params?.sessionId === sid && Number.isInteger(f.params.seq) && f.params.seq >= 1)
        .map((f) => f.params.seq as number),
    );
    const max = Math.max(...seqs);
    expect(seqs.size).toBe(max);
    const odd = c.frames.filter(
      (f) =>
        f.method === "session/event" &&
        f.params?.sessionId === sid &&
        Number.isInteger(f.params.seq) &&
        typeof f.params.eventId === "string" &&
        !f.params.eventId.startsWith("fuzz-"),
    );
    expect(
      odd.some(
        (f) =>
          ![
            "session.titleUpdated",
            "session.updated",
            "turn.started",
            "turn.completed",
            "turn.failed",
            "model.streaming",
            "tool.updated",
            "permission.requested",
            "permission.resolved",
            "streamRecovery.updated",
            "checkpoint.created",
          ].includes(f.params.type) ||
          (f.params.type === "session.updated" && !f.params.payload?.usage && !f.params.payload?.hookEventName),
      ),
    ).toBe(true);
    expect(
      c.frames.some(
        (f) => f.method === "state.updated" && f.params?.reason !== "prompt_started" && f.params?.reason !== "prompt_completed",
      ),
    ).toBe(true);
    expect(c.stderr).not.toContain("threw");
  }, 30_000);
}
