// /steer, /rewind, retries and stop on ZCode 0.16.9, through the v4 command
// channel (ZCODE-V4.md), against the simulator; the 0.15.3 fallback.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, test } from "bun:test";
import { en } from "../../src/i18n/en/index.ts";
import { sharedBridge, withBridge } from "../support/acp-harness.ts";
import { envelopeIssues } from "../simulator/v4.ts";
import { chunkText, expectHistory, newSession, promptAndCollect, simRequests, v4Commands, waitForCommands } from "./commands-support.ts";

// One bridge for the tests with no options but a record, across the describes: each
// reads only its own session's frames (an earlier test's late stop or held steer may
// still reach ZCode during the next one).
const bridge = sharedBridge({ record: true });

describe("0.16.9: the menu", () => {
  test("/steer and /rewind are offered (v4 probed beside session/new)", () =>
    withBridge({ record: true }, async (h) => {
      const sid = await newSession(h);
      expect(await waitForCommands(h, sid)).toEqual([
        "fork",
        "rewind",
        "goal",
        "compact",
        "steer",
        "mode",
        "model",
        "thought",
        "quota",
        "help",
      ]);
      expect(h.simFrames().filter((f) => f.method === "v4/commands/query")).toHaveLength(1);
    }));
});

describe("0.16.9: /steer", () => {
  test("a guide reaches the running turn: answered at once, shown as the user's words in that turn, one turn", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      const before = h.received.updates.length;
      const framesBefore = h.simFrames().length;
      const turn = h.prompt(sid, "#scenario:guided");
      await h.waitFor(() => h.updates(sid).some((u) => u.sessionUpdate === "tool_call"), "the turn's tool call");
      const steer = await promptAndCollect(h, sid, "/steer use TypeScript");
      expect(steer.response.stopReason).toBe("end_turn");
      expect(steer.text).toContain("Steering the running turn with:\n\n> use TypeScript");
      expect((await turn).stopReason).toBe("end_turn");
      const updates = h.received.updates
        .slice(before)
        .filter((u) => u.sessionId === sid)
        .map((u) => u.update);
      const users = updates.filter(
        (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "user_message_chunk" }> => u.sessionUpdate === "user_message_chunk",
      );
      expect(users.map((u) => (u.content.type === "text" ? u.content.text : ""))).toEqual(["use TypeScript"]);
      // The user's words come before the reply that answers them.
      const userAt = updates.indexOf(users[0]!);
      expect(chunkText(updates.slice(userAt))).toContain("[guide received: use TypeScript]");
      // This session's (a shared bridge: an earlier test's held steer may be deleted meanwhile).
      const cmds = v4Commands(h, framesBefore).filter((c) => c.sessionId === sid);
      expect(cmds).toHaveLength(1);
      expect(cmds[0]).toMatchObject({ type: "sendText", sessionId: sid, payload: { text: "use TypeScript", requestedDelivery: "guide" } });
      expect(simRequests(h, framesBefore).filter((f) => f.method === "session/send" && f.params?.sessionId === sid)).toHaveLength(1);
      await expectHistory(h, sid, ["#scenario:guided", "use TypeScript"]);
    }));

  test("the turn is stopped before the guide is taken in: the user is told, and what becomes of it", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      const before = h.received.updates.length;
      const turn = h.prompt(sid, "#scenario:guided hold=1");
      await h.waitFor(() => h.updates(sid).some((u) => u.sessionUpdate === "tool_call"), "the turn's tool call");
      const steer = await promptAndCollect(h, sid, "/steer also lint");
      expect(steer.text).toContain("Steering the running turn with:");
      await h.cancel(sid);
      expect((await turn).stopReason).toBe("cancelled");
      const text = chunkText(
        h.received.updates
          .slice(before)
          .filter((u) => u.sessionId === sid)
          .map((u) => u.update),
      );
      expect(text).toContain(
        "This steer did not reach the turn: the turn was stopped first. It will not run; send it again as a prompt if you still want it.",
      );
      expect(text).toContain("> also lint");
      expect(h.updates(sid).some((u) => u.sessionUpdate === "user_message_chunk")).toBe(false);
    }));
});

describe("0.16.9: /rewind", () => {
  test("/rewind alone undoes the last turn's files; the chat stays", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      expect((await h.prompt(sid, "#scenario:edit")).stopReason).toBe("end_turn");
      const out = await promptAndCollect(h, sid, "/rewind");
      expect(out.text).toMatch(
        /^Rewound the last turn's changes to 1 file; the conversation is unchanged:\n\n- `.*greet\.ts` \(restored\)$/,
      );
      const cmd = out.frames.find((f) => f.method === "v4/command" && f.params?.sessionId === sid)!.params;
      expect(cmd).toMatchObject({
        type: "applyFileRewind",
        payload: { target: { rowId: expect.any(Number), entityId: expect.any(String) } },
      });
      expect(typeof cmd.baseRevision).toBe("number");
      expect(typeof cmd.baseLogEpoch).toBe("string");
      await expectHistory(h, sid, ["#scenario:edit"]);
      // Nothing left to undo.
      expect((await promptAndCollect(h, sid, "/rewind")).text).toStartWith("Nothing to rewind");
    }));

  test("unsafe files: nothing changes, the user is told which files and why", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      await h.prompt(sid, "#scenario:edit unsafe=1");
      const out = await promptAndCollect(h, sid, "/rewind");
      expect(out.text).toStartWith("Nothing was rewound: ZCode cannot safely restore these files, so it changed none of them:");
      expect(out.text).toMatch(/- `.*greet\.ts`: changed since the turn \(by you or another program\)/);
      const again = await promptAndCollect(h, sid, "/rewind try again");
      expect(again.text).toStartWith("Nothing was changed: the last turn's files cannot be restored safely");
      await expectHistory(h, sid, ["#scenario:edit unsafe=1"]);
    }));

  test("/rewind <new prompt>: the last prompt replaced and run again; ZCode's history has only the new one", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      await h.prompt(sid, "#scenario:edit");
      const out = await promptAndCollect(h, sid, "/rewind say hello instead");
      expect(out.response.stopReason).toBe("end_turn");
      expect(out.text).toContain("Rewound the last turn (files and chat). Running the new prompt:");
      expect(out.text).toContain("Echo: say hello instead");
      expect(out.frames.find((f) => f.method === "v4/command" && f.params?.sessionId === sid)!.params).toMatchObject({
        type: "editUserQuery",
        payload: { newText: "say hello instead", workspaceMode: "rewind" },
      });
      expect(out.frames.some((f) => f.method === "session/send" && f.params?.sessionId === sid)).toBe(false);
      await expectHistory(h, sid, ["say hello instead"]);
    }));
});

describe("a command's words and the turn it starts arrive in one read", () => {
  // ZCODE_SIM_ACK_WITH_FIRST_TEXT (test/simulator/main.ts): each v4 command's ACK is written with the events up
  // to its turn's first text, in one write, as a late read of the pipe gets them on a busy machine.
  test("/rewind <new prompt>: 'Running the new prompt:' comes before the new turn's text, never inside it", () =>
    withBridge({ record: true, env: { ZCODE_SIM_ACK_WITH_FIRST_TEXT: "1" } }, async (h) => {
      const sid = await newSession(h);
      await h.prompt(sid, "hello");
      const out = await promptAndCollect(h, sid, "/rewind say hello instead");
      expect(out.response.stopReason).toBe("end_turn");
      expect(out.text).toBe(`${en.commands.rewind.rerunningChatOnly}\n\nEcho: say hello instead`);
    }));
});

describe("0.16.9: retries and stop", () => {
  test("a retry after two transient failures leaves one copy of the prompt in ZCode's history", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      const prompt = "#scenario:fail-transient fails=2";
      const out = await promptAndCollect(h, sid, prompt);
      expect(out.response.stopReason).toBe("end_turn");
      expect(out.text).toContain("Echo:");
      expect(out.frames.filter((f) => f.method === "session/send" && f.params?.sessionId === sid)).toHaveLength(1);
      const retries = out.frames.filter((f) => f.method === "v4/command" && f.params?.sessionId === sid);
      expect(retries.map((f) => [f.params.type, f.params.payload.newText])).toEqual([
        ["editUserQuery", prompt],
        ["editUserQuery", prompt],
      ]);
      await expectHistory(h, sid, [prompt]);
    }));

  test("a failure after a first reply is retried with retryTurn on that turn's reply", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      const prompt = "#scenario:fail-transient fails=1 after=1";
      const out = await promptAndCollect(h, sid, prompt);
      expect(out.response.stopReason).toBe("end_turn");
      expect(out.frames.filter((f) => f.method === "v4/command" && f.params?.sessionId === sid).map((f) => f.params.type)).toEqual([
        "retryTurn",
      ]);
      await expectHistory(h, sid, [prompt]);
    }));

  test("a turn a v4 command started is stopped with v4 stop naming its execution; session/send turns keep session/stop", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      await h.prompt(sid, "hello");
      const framesBefore = h.simFrames().length;
      const turn = h.prompt(sid, "/rewind #scenario:slow n=200");
      await h.waitFor(() => h.text(sid).includes("chunk 0 "), "the rerun to stream");
      await h.cancel(sid);
      expect((await turn).stopReason).toBe("cancelled");
      await h.waitFor(() => v4Commands(h, framesBefore).some((c) => c.type === "stop" && c.sessionId === sid), "the v4 stop");
      const stop = v4Commands(h, framesBefore).find((c) => c.type === "stop" && c.sessionId === sid)!;
      expect(stop.payload.expectedForegroundExecutionId).toMatch(/^runtime_command_\d+$/);
      expect(simRequests(h, framesBefore).some((f) => f.method === "session/stop" && f.params?.sessionId === sid)).toBe(false);

      const legacyFrom = h.simFrames().length;
      const legacy = h.prompt(sid, "#scenario:slow n=200");
      await h.waitFor(() => simRequests(h, legacyFrom).some((f) => f.method === "session/send" && f.params?.sessionId === sid), "the send");
      await h.waitFor(() => h.text(sid).split("chunk 0 ").length > 2, "the second turn to stream");
      await h.cancel(sid);
      expect((await legacy).stopReason).toBe("cancelled");
      await h.waitFor(
        () => simRequests(h, legacyFrom).some((f) => f.method === "session/stop" && f.params?.sessionId === sid),
        "session/stop",
      );
      expect(v4Commands(h, legacyFrom).some((c) => c.type === "stop" && c.sessionId === sid)).toBe(false);
    }));

  test("a stop that arrives after its turn ended never stops the next turn", () =>
    withBridge({ record: true, env: { ZCODE_SIM_HANDLER_DELAY_MS: "150" } }, async (h) => {
      const sid = await newSession(h);
      await h.prompt(sid, "hello");
      // The rerun streams until the stop reaches ZCode, then ends: the stop waits
      // 150 ms in ZCode's request queue and finds the turn over (whatever the load).
      const first = h.prompt(sid, "/rewind #scenario:slow n=3 untilstop=1");
      await h.waitFor(() => h.text(sid).includes("chunk 0 "), "the rerun to stream");
      await h.cancel(sid);
      await first;
      const next = await promptAndCollect(h, sid, "#scenario:slow n=20");
      expect(next.response.stopReason).toBe("end_turn");
      expect(next.text).toContain("chunk 19 ");
      const stop = v4Commands(h).find((c) => c.type === "stop");
      expect(stop?.payload.expectedForegroundExecutionId).toMatch(/^runtime_command_\d+$/);
    }));
});

describe("0.15.3: the legacy methods", () => {
  test("/steer is session/steer, /rewind is session/rewind; no v4 frame but the probe", () =>
    withBridge({ simVersion: "0.15.3", record: true }, async (h) => {
      const sid = await newSession(h);
      expect(await waitForCommands(h, sid)).toContain("steer");
      const turn = h.prompt(sid, "#scenario:slow n=60");
      await h.waitFor(() => h.text(sid).includes("chunk 0 "), "the turn to stream");
      const steer = await promptAndCollect(h, sid, "/steer use tabs");
      expect(steer.frames.filter((f) => f.method === "session/steer")).toHaveLength(1);
      expect((await turn).stopReason).toBe("end_turn");
      const rewind = await promptAndCollect(h, sid, "/rewind");
      expect(rewind.text).toStartWith("Rewound to the latest checkpoint");
      expect(rewind.frames.some((f) => f.method === "session/rewind")).toBe(true);
      const retry = await promptAndCollect(h, sid, "#scenario:fail-transient fails=1");
      expect(retry.response.stopReason).toBe("end_turn");
      expect(retry.frames.filter((f) => f.method === "session/send")).toHaveLength(2);
      expect(
        h
          .simFrames()
          .filter((f) => f.method?.startsWith("v4/"))
          .map((f) => f.method),
      ).toEqual(["v4/commands/query"]);
    }));
});

describe("0.16.9: every v4 frame the bridge writes", () => {
  test("steer, file rewind, rewrite, both retries and stop: each passes ZCode's strict envelope and payload schemas", () =>
    withBridge({ record: true }, async (h) => {
      const sid = await newSession(h);
      const turn = h.prompt(sid, "#scenario:guided");
      await h.waitFor(() => h.updates(sid).some((u) => u.sessionUpdate === "tool_call"), "the turn's tool call");
      await h.prompt(sid, "/steer use TypeScript");
      await turn;
      await h.prompt(sid, "#scenario:edit");
      await h.prompt(sid, "/rewind");
      await h.prompt(sid, "/rewind #scenario:edit");
      await h.prompt(sid, "#scenario:fail-transient fails=1");
      await h.prompt(sid, "#scenario:fail-transient fails=1 after=1");
      const slow = h.prompt(sid, "/rewind #scenario:slow n=200");
      await h.waitFor(() => h.text(sid).includes("chunk 0 "), "the rerun to stream");
      await h.cancel(sid);
      await slow;
      await h.waitFor(() => v4Commands(h).some((c) => c.type === "stop"), "the v4 stop");
      const frames = v4Commands(h);
      expect(new Set(frames.map((f) => f.type))).toEqual(new Set(["sendText", "applyFileRewind", "editUserQuery", "retryTurn", "stop"]));
      for (const f of frames) expect({ type: f.type, issues: envelopeIssues(f) }).toEqual({ type: f.type, issues: [] });
      // One clientId for the whole bridge process; every commandId its own.
      expect(new Set(frames.map((f) => f.clientId)).size).toBe(1);
      expect(new Set(frames.map((f) => f.commandId)).size).toBe(frames.length);
    }));
});

describe("a cancel during an active /goal", () => {
  test("pauses the goal in ZCode; the cancel says so and how to resume; /goal shows it paused", () =>
    bridge.run(async (h) => {
      const sid = await newSession(h);
      const goal = h.prompt(sid, "/goal #scenario:slow n=3000");
      await h.waitFor(() => h.text(sid).includes("Working toward the goal"), "ZCode to work toward the goal");
      await h.cancel(sid);
      expect((await goal).stopReason).toBe("cancelled");
      expect(h.text(sid)).toContain("The goal is paused (the work toward it was cancelled); `/goal resume` picks it up again.");
      await h.waitFor(() => simRequests(h).some((f) => f.method === "session/stop" && f.params?.sessionId === sid), "the stop");
      const shown = await promptAndCollect(h, sid, "/goal");
      expect(shown.text).toMatch(/^Goal paused/);
      const help = await promptAndCollect(h, sid, "/help");
      expect(help.text).toContain("`/goal resume` continues");
    }));
});
