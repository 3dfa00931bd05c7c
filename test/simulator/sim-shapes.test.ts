// Cross-check: everything the simulator writes in its ordinary scenarios must
// satisfy ZCode's own strict schemas (transcribed in
// test/simulator/zcode-schemas.ts from jimpablo/ZCode's zcode-protocol). The
// simulator's code builds its frames by hand, so a failure here is a shape
// the real CLI would not send (or a desktop client would drop).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { formatIssues, type Schema, validate } from "./schema.ts";
import { requestParams, results, sessionEvent, stateUpdated } from "./zcode-schemas.ts";
import { ensureSimBuilt, type Frame, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);
let c: SimClient;
afterAll(() => c?.close());

const problems: string[] = [];
function check(what: string, schema: Schema, value: unknown): void {
  const r = validate(schema, value);
  if (!r.ok) problems.push(`${what}: ${formatIssues(r.issues)} in ${JSON.stringify(value).slice(0, 300)}`);
}

async function call(method: string, params: Record<string, unknown>): Promise<any> {
  const r = await c.request(method, params);
  if (r.error) throw new Error(`${method} → ${r.error.code} ${r.error.message}`);
  check(method, results[method]!, r.result);
  return r.result;
}

test("the transcribed schemas reject what ZCode's would", () => {
  expect(
    validate(sessionEvent, {
      eventId: "e",
      sessionId: "s",
      seq: 1,
      timestamp: 1,
      type: "tool.updated",
      payload: { kind: "result", toolCallId: "c", result: {}, duration: 1, output: "x" },
    }).ok,
  ).toBe(false);
  expect(
    validate(sessionEvent, {
      eventId: "e",
      sessionId: "s",
      seq: 1,
      timestamp: 1,
      type: "turn.completed",
      payload: { response: "", tokenCount: 0, toolCallCount: 0, duration: 0, resultType: "max_tokens" },
    }).ok,
  ).toBe(false);
  expect(validate(results["session/send"]!, { sessionId: "s", accepted: true }).ok).toBe(false);
  expect(validate(sessionEvent, { eventId: "e", sessionId: "s", seq: 1, timestamp: 1, type: "mystery.event", payload: {} }).ok).toBe(false);
});

test("results, events, requests to the bridge and state.updated of every ordinary scenario fit ZCode's strict schemas", async () => {
  c = new SimClient(tempDir(), { autoHeaders: { headersApplied: true, requestAuth: { apiKey: "k" } } });
  const ws = { workspacePath: "/w/s", workspaceKey: "/w/s" };
  const created = await call("session/create", { workspace: ws, mode: "plan" });
  const sid = created.session.sessionId as string;
  await call("session/subscribe", { sessionId: sid, deliveryKind: "desktop-continuous", includeSnapshot: true, afterSeq: 0 });
  const answer = (f: Frame) => {
    const schema = requestParams[f.method];
    if (schema) check(`request ${f.method}`, schema, f.params);
    if (f.method === "interaction/requestPermission") c.send({ id: f.id, result: f.params.options[1].response });
    else if (f.method === "interaction/requestUserInput") {
      const q = f.params.questions[0];
      c.send({ id: f.id, result: { action: "accept", content: { answers: { [q.question]: q.options[0].value } } } });
    }
  };
  const prompts = [
    "hello",
    "#scenario:text",
    "#scenario:tools",
    "#scenario:batch",
    "#scenario:permission",
    "#scenario:plan",
    "#scenario:question",
    "#scenario:question-multi",
    "#scenario:usage",
    "#scenario:markers",
    "#scenario:history n=3",
    "#scenario:env",
    "#scenario:fail-transient",
    "#scenario:fail-transient top=1 x",
    "#scenario:fail-fatal",
    "#scenario:max-turns",
    "#scenario:max-tool-calls",
    "#scenario:seq-gap",
    "#scenario:subagent",
    "#scenario:nope",
  ];
  for (const p of prompts) {
    const from = c.frames.length;
    await call("session/send", {
      sessionId: sid,
      content: p,
      attachments: [{ kind: "image", filename: "a.png", mimeType: "image/png", dataBase64: "AAAA" }],
    });
    const seen = new Set<unknown>();
    for (;;) {
      const f = await c.waitFor(
        (x) =>
          (x.method?.startsWith("interaction/") && !seen.has(x.id)) ||
          (x.method === "state.updated" && x.params.sessionId === sid && ["prompt_completed", "prompt_failed"].includes(x.params.reason)),
        5000,
        from,
      );
      if (f.method === "state.updated") break;
      seen.add(f.id);
      answer(f);
    }
  }
  // An account provider: provider runtime headers.
  await call("session/setModel", {
    sessionId: sid,
    model: { providerId: "account:bigmodel-individual-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "high" } },
  });
  await c.turn(sid, "with auth");
  await call("session/setThoughtLevel", { sessionId: sid, thoughtLevel: "low" });
  await call("session/setMode", { sessionId: sid, mode: "build" });
  await c.call("session/send", { sessionId: sid, content: "#scenario:slow n=20" });
  await c.waitEvent(sid, "model.streaming", 5000, c.frames.length - 1);
  await call("session/read", { sessionId: sid });
  await call("session/stop", { sessionId: sid });
  await c.waitIdle(sid, 5000, c.frames.length - 5);
  const sub = await call("session/subscribe", { sessionId: sid, deliveryKind: "desktop-continuous", afterSeq: 0, includeSnapshot: true });
  expect(sub.events.length).toBeGreaterThan(100);
  await call("session/events", { sessionId: sid, afterSeq: 10, limit: 5 });
  await call("session/read", { sessionId: sid, messageLimit: 2 });
  await call("session/messages", { sessionId: sid });
  await call("session/subagents", { sessionId: sid, endedLimit: 1 });
  await call("session/list", { workspace: ws });
  await call("session/resume", { sessionId: sid });
  await call("session/goal", { sessionId: sid, action: "show" });
  const fork = await call("session/fork", { sessionId: sid, target: { kind: "latestCheckpoint" } });
  await call("session/goal", { sessionId: fork.forkedSessionId, action: "set", objective: "ship it" });
  await c.waitIdle(fork.forkedSessionId);
  await call("session/compact", { sessionId: sid, instructions: "short" });
  await c.waitIdle(sid, 5000, c.frames.length - 3);
  await call("session/close", { sessionId: fork.forkedSessionId });
  for (const f of c.frames) {
    if (f.method === "session/event") check(`pushed event ${f.params.type}`, sessionEvent, f.params);
    else if (f.method === "state.updated") check(`state.updated ${f.params.reason}`, stateUpdated, f.params);
    else if (f.method && f.id !== undefined && requestParams[f.method]) check(`request ${f.method}`, requestParams[f.method]!, f.params);
  }
  for (const f of c.frames) if ("jsonrpc" in f) problems.push(`jsonrpc in ${JSON.stringify(f).slice(0, 100)}`);
  expect(problems).toEqual([]);
}, 30_000);
