// Cross-check: everything the simulator sends in its ordinary scenarios must
// satisfy the bridge's ZCode schemas (src/zcode/schemas.ts). The two were
// written independently from the same spec, so a failure here points at a
// disagreement about ZCODE-SHAPES.md in one of them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as v from "valibot";
import * as S from "../../src/zcode/schemas.ts";
import { ensureSimBuilt, type Frame, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);
let c: SimClient;
afterAll(() => c?.close());

const RESULT_SCHEMAS: Record<string, v.GenericSchema> = {
  "session/create": S.CreateResultSchema,
  "session/resume": S.ResumeResultSchema,
  "session/list": S.ListResultSchema,
  "session/read": S.ReadResultSchema,
  "session/messages": S.MessagesResultSchema,
  "session/subscribe": S.SubscribeResultSchema,
  "session/send": S.SendResultSchema,
  "session/stop": S.EmptyResultSchema,
  "session/close": S.EmptyResultSchema,
  "session/fork": S.ForkResultSchema,
  "session/rewind": S.RewindResultSchema,
  "session/goal": S.GoalResultSchema,
  "session/compact": S.CompactResultSchema,
  "session/steer": S.SteerResultSchema,
  "session/setMode": S.SetModeResultSchema,
  "session/setThoughtLevel": S.SetThoughtLevelResultSchema,
};

const problems: string[] = [];
function check(what: string, schema: v.GenericSchema, value: unknown): void {
  const r = v.safeParse(schema, value);
  if (!r.success) problems.push(`${what}: ${r.issues.map((i) => `${v.getDotPath(i) ?? "(root)"}: ${i.message}`).join("; ")} in ${JSON.stringify(value).slice(0, 300)}`);
}

async function call(method: string, params: Record<string, unknown>): Promise<any> {
  const r = await c.request(method, params);
  if (r.error) throw new Error(`${method} → ${r.error.code} ${r.error.message}`);
  check(method, RESULT_SCHEMAS[method]!, r.result);
  return r.result;
}

test("results, events and interaction requests of every ordinary scenario fit the bridge's schemas", async () => {
  c = new SimClient(tempDir());
  const ws = { workspacePath: "/w/s", workspaceKey: "/w/s" };
  const { session } = await call("session/create", { workspace: ws, mode: "plan" });
  const sid = session.sessionId as string;
  await call("session/subscribe", { sessionId: sid, deliveryKind: "desktop-continuous", includeSnapshot: true, afterSeq: 0 });
  const answer = (f: Frame) => {
    if (f.method === "interaction/requestPermission") {
      check(f.method, S.PermissionRequestParamsSchema, f.params);
      c.send({ id: f.id, result: { decision: "allow" } });
    } else if (f.method === "interaction/requestUserInput") {
      check(f.method, S.UserInputRequestParamsSchema, f.params);
      c.send({ id: f.id, result: { action: "accept", content: {} } });
    }
  };
  const prompts = ["hello", "#scenario:text", "#scenario:tools", "#scenario:batch", "#scenario:permission", "#scenario:plan", "#scenario:question", "#scenario:question-multi", "#scenario:usage", "#scenario:fail-transient", "#scenario:fail-fatal", "#scenario:max-tokens", "#scenario:seq-gap"];
  for (const p of prompts) {
    const from = c.frames.length;
    await call("session/send", { sessionId: sid, content: p });
    const seen = new Set<unknown>();
    for (;;) {
      const f = await c.waitFor((x) => (x.method?.startsWith("interaction/") && !seen.has(x.id)) || (x.method === "session/event" && (x.params.type === "turn.completed" || x.params.type === "turn.failed")), 5000, from);
      if (f.method === "session/event") break;
      seen.add(f.id);
      answer(f);
    }
  }
  await call("session/steer", { sessionId: sid, content: "x" }).catch(() => {});
  await c.call("session/send", { sessionId: sid, content: "#scenario:slow n=20" });
  await call("session/steer", { sessionId: sid, content: "use tabs" });
  await call("session/stop", { sessionId: sid });
  await c.waitTurnEnd(sid, 5000, c.frames.length - 3).catch(() => {});
  await Bun.sleep(100);
  const sub = await call("session/subscribe", { sessionId: sid, afterSeq: 0, includeSnapshot: true });
  for (const e of sub.events) check(`event ${e.type}`, S.ZCodeEventSchema, e);
  for (const f of c.frames) if (f.method === "session/event") check(`pushed event ${f.params.type}`, S.ZCodeEventSchema, f.params);
  await call("session/read", { sessionId: sid });
  await call("session/messages", { sessionId: sid });
  await call("session/list", { workspace: ws });
  await call("session/resume", { sessionId: sid, workspace: ws });
  await call("session/goal", { sessionId: sid, action: "set", objective: "ship it" });
  await call("session/setMode", { sessionId: sid, mode: "build" });
  await call("session/setThoughtLevel", { sessionId: sid, thoughtLevel: "low" });
  const fork = await call("session/fork", { sessionId: sid, target: { kind: "latestCheckpoint" } });
  const read = await call("session/read", { sessionId: sid });
  await call("session/rewind", { sessionId: sid, target: { kind: "latestCheckpoint" }, expectedRevision: read.projection.revision });
  await call("session/compact", { sessionId: sid });
  await call("session/close", { sessionId: fork.forkedSessionId });
  expect(problems).toEqual([]);
}, 30_000);
