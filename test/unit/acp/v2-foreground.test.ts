// ACP v2's foreground state (src/acp/v2/foreground.ts): running at a
// session's first turn, idle after its last, requires_action while the
// work waits for the editor, and a resume snapshot that says which.
import { expect, test } from "bun:test";
import { Foreground, idleUpdate } from "../../../src/acp/v2/foreground.ts";
import { invalidParams } from "../../../src/translate/errors.ts";

/** One turn of the event loop: every promise job queued so far has run. */
const turn = () => new Promise<void>((r) => setImmediate(r));

function recorder() {
  const sent: string[] = [];
  const fg = new Foreground(async (id, u) => {
    const x = u as { state: string; stopReason?: string };
    sent.push(`${id}:${x.state}${x.stopReason ? `:${x.stopReason}` : ""}`);
  });
  return { fg, sent };
}

test("two turns of one session: one running, one idle (the last turn's reason)", async () => {
  const { fg, sent } = recorder();
  await fg.begin("s");
  await fg.begin("s");
  expect(fg.running("s")).toBe(true);
  await fg.finish("s", { stopReason: "end_turn" });
  expect(sent).toEqual(["s:running"]);
  const ended = fg.ended("s");
  await fg.finish("s", { stopReason: "cancelled" });
  await ended;
  expect(sent).toEqual(["s:running", "s:idle:cancelled"]);
  expect(fg.running("s")).toBe(false);
  // Nothing runs: finishing again says nothing.
  await fg.finish("s", { stopReason: "end_turn" });
  expect(sent).toHaveLength(2);
});

test("requires_action while asked, running once the last answer came; nothing after idle", async () => {
  const { fg, sent } = recorder();
  // Not running: asking changes no state.
  expect(await fg.waitingFor("s", async () => 1)).toBe(1);
  expect(sent).toEqual([]);
  await fg.begin("s");
  let answerA!: () => void;
  let answerB!: () => void;
  const a = fg.waitingFor("s", () => new Promise<void>((r) => (answerA = r)));
  const b = fg.waitingFor("s", () => new Promise<void>((r) => (answerB = r)));
  await turn();
  expect(fg.snapshot("s")).toMatchObject({ state: "requires_action" });
  answerA();
  await a;
  expect(sent).toEqual(["s:running", "s:requires_action"]);
  answerB();
  await b;
  expect(sent).toEqual(["s:running", "s:requires_action", "s:running"]);
  // A question the turn's end overtakes: its answer brings no `running` after `idle`.
  let answerC!: () => void;
  const c = fg.waitingFor("s", () => new Promise<void>((r) => (answerC = r)));
  await turn();
  await fg.finish("s", { stopReason: "cancelled" });
  answerC();
  await c;
  expect(sent.slice(3)).toEqual(["s:requires_action", "s:idle:cancelled"]);
  expect(fg.snapshot("s")).toMatchObject({ state: "idle" });
});

test("a failed turn ends idle with stopReason error and the error's code and message", () => {
  expect(idleUpdate({ error: invalidParams("bad prompt") })).toMatchObject({
    sessionUpdate: "state_update",
    state: "idle",
    stopReason: "error",
    error: { code: -32602 },
  });
  expect(idleUpdate({ stopReason: "end_turn", usage: { totalTokens: 3 } })).toMatchObject({
    stopReason: "end_turn",
    usage: { totalTokens: 3 },
  });
});
