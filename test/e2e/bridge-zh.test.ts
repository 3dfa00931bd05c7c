// A zh session end to end (ZCODE_ACP_LANG=zh): every text the bridge itself
// writes in the scenarios that make it speak — its notices in the
// conversation, the titles and texts it composes around tool calls, the
// labels of permission, plan and question dialogs, option menus, the JSON-RPC
// errors the editor shows — is Chinese with no English left. ZCode's own
// words (the simulator's echo, its tool output, its option names, its error
// messages, the user's and the model's inputs) stay as they are: they are
// taken out before the check, never translated.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { zh } from "../../src/i18n/zh/index.ts";
import { sharedBridge, withBridge, type Harness } from "../support/acp-harness.ts";
import { englishLeft } from "../support/english-left.ts";
import { contentText, toolViews, type ToolView } from "./interaction-support.ts";

const ZH = { ZCODE_ACP_LANG: "zh" };
const FORM: acp.ClientCapabilities = { elicitation: { form: {} } };
const CJK = /[\u4e00-\u9fff]/;

/**
 * `text` is the bridge's Chinese: once ZCode's own words are taken out, some
 * CJK and no English outside code, paths, ids and kept names. `what` names
 * the text in a failure.
 */
function expectZh(what: string, text: string | undefined, zcodeWords: ReadonlyArray<string | undefined> = []): void {
  let rest = text ?? "";
  for (const w of zcodeWords) if (w) rest = rest.split(w).join(" ");
  expect({ what, englishLeft: englishLeft(rest) }).toEqual({ what, englishLeft: [] });
  expect({ what, text, cjk: CJK.test(rest) }).toEqual({ what, text, cjk: true });
}

/** The bridge's own lines in the conversation: italic notices on their own (ZCode's text never comes framed so). */
function notices(h: Harness, sessionId: string): string[] {
  return h
    .updatesOfKind(sessionId, "agent_message_chunk")
    .map((u) => (u.content.type === "text" ? u.content.text : ""))
    .filter((text) => /^\s*_[\s\S]+_\s*$/.test(text));
}

async function rejection(p: Promise<unknown>): Promise<acp.RequestError & { code: number; data?: any }> {
  try {
    await p;
  } catch (e) {
    return e as acp.RequestError & { code: number };
  }
  throw new Error("expected the request to fail");
}

/** Every string value of a tool's input, at any depth: the model's words, not the bridge's. */
function inputWords(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(inputWords);
  if (v && typeof v === "object") return Object.values(v).flatMap(inputWords);
  return [];
}

/** A title that is the model's own words (a command, a subagent's description) rather than one the bridge composed. */
function titleFromInput(v: ToolView): boolean {
  const input = (v.rawInput ?? {}) as Record<string, unknown>;
  return [input.command, input.description].some((w) => typeof w === "string" && v.title?.startsWith(w));
}

describe("zh: what the bridge says", () => {
  // One zh bridge for the tests with no other option: each reads only its own session.
  const bridge = sharedBridge({ env: ZH });

  test("initialize and session setup: the sign-in, option names and descriptions, mode names", async () => {
    await bridge.run(async (h) => {
      const auth = h.initializeResponse!.authMethods![0]! as { name: string; description?: string };
      expectZh("auth name", auth.name);
      expectZh("auth description", auth.description);
      const { configOptions, modes } = await h.newSession();
      expect(configOptions!.map((o) => o.name)).toEqual([zh.bridge.options.mode, zh.bridge.options.model, zh.bridge.options.thought]);
      for (const o of configOptions!) {
        expectZh(`option ${o.id}`, o.name);
        expectZh(`description of ${o.id}`, o.description ?? undefined);
      }
      const mode = configOptions!.find((o) => o.id === "mode") as { options: Array<{ value: string; name: string }> };
      for (const c of mode.options) expectZh(`mode ${c.value}`, c.name);
      for (const m of modes!.availableModes) expectZh(`mode ${m.id}`, m.name);
    });
  });

  test("permission: ZCode's option names as ZCode sent them; a denial in the bridge's words", async () => {
    const reject = (req: acp.RequestPermissionRequest): acp.RequestPermissionResponse => ({
      outcome: { outcome: "selected", optionId: req.options.find((o) => o.kind === "reject_once")!.optionId },
    });
    await withBridge({ env: ZH, onPermission: reject }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:permission")).stopReason).toBe("end_turn");
      const req = h.received.permissionRequests[0]!;
      // ZCode's own words: shown as they are.
      expect(req.options.map((o) => o.name)).toEqual(["Allow once", "Always allow in this project", "Deny"]);
      const denied = toolViews(h, sessionId).get(req.toolCall.toolCallId)!;
      expect(denied.status).toBe("failed");
      expectZh("denied tool", contentText(denied));
      expect(contentText(denied)).toBe(zh.tools.rejected);
    });
  });

  test("plan approval without forms: the prompt's title and options; the verdict under the plan", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:plan")).stopReason).toBe("end_turn");
      const req = h.received.permissionRequests[0]!;
      expectZh("plan prompt title", req.toolCall.title ?? undefined);
      for (const o of req.options) expectZh(`plan option ${o.optionId}`, o.name);
      const plan = [...toolViews(h, sessionId).values()].find((v) => v.kind === "switch_mode")!;
      expectZh("plan tool title", plan.title);
      const planText = String((plan.rawInput as { plan?: string }).plan ?? "");
      expectZh("plan verdict", contentText(plan), [planText]);
      expect(contentText(plan)).toContain(zh.tools.planApproved);
    });
  });

  test("plan approval with forms: message, form title, choices and feedback field", async () => {
    await withBridge(
      { env: ZH, clientCapabilities: FORM, onElicitation: () => ({ action: "accept", content: { decision: "approve" } }) },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "#scenario:plan")).stopReason).toBe("end_turn");
        const form = h.received.elicitations[0]! as any;
        const plan = [...toolViews(h, sessionId).values()].find((v) => v.kind === "switch_mode")!;
        expectZh("plan form message", form.message, [String((plan.rawInput as { plan?: string }).plan ?? "")]);
        const schema = form.requestedSchema;
        expectZh("plan form title", schema.title);
        expectZh("decision title", schema.properties.decision.title);
        for (const c of schema.properties.decision.oneOf) expectZh(`decision ${c.const}`, c.title);
        expectZh("feedback title", schema.properties.feedback.title);
        expectZh("feedback description", schema.properties.feedback.description);
      },
    );
  });

  test("questions without forms: ZCode's choices as they are, plus the bridge's way out", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:question-multi")).stopReason).toBe("end_turn");
      expect(h.received.permissionRequests).toHaveLength(2);
      for (const req of h.received.permissionRequests) {
        const last = req.options.at(-1)!;
        expect(last.optionId).toBe("decline");
        expectZh("decline option", last.name);
      }
      expect(h.received.permissionRequests[1]!.options.map((o) => o.name)).toEqual(["Bun", "npm", zh.bridge.question.decline]);
    });
  });

  test("questions with forms: the message for several questions and the free-text field", async () => {
    await withBridge({ env: ZH, clientCapabilities: FORM, onElicitation: () => ({ action: "decline" }) }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:question-multi");
      const form = h.received.elicitations[0]! as any;
      expectZh("questions message", form.message);
      expectZh("other title", form.requestedSchema.properties.other.title);
      expectZh("other description", form.requestedSchema.properties.other.description);
    });
  });

  test("tools: every title the bridge composes, exit codes, the failing Bash and Edit", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:tools")).stopReason).toBe("end_turn");
      const views = [...toolViews(h, sessionId).values()];
      const composed = views.filter((v) => !titleFromInput(v));
      // Read, Grep, Glob, two Edits, Write, WebFetch, WebSearch, TodoWrite.
      expect(composed.length).toBeGreaterThanOrEqual(9);
      for (const v of composed) expectZh(`title of ${v.toolCallId}`, v.title, inputWords(v.rawInput));
      // Bash: the output is the command's; the exit code line is the bridge's.
      const bashes = views.filter((v) => v.kind === "execute");
      expect(bashes.length).toBe(2);
      for (const b of bashes) {
        const said = contentText(b).replace(/```[\s\S]*?```/g, "");
        expectZh(`after the output of ${b.title}`, said);
      }
      const failed = views.filter((v) => v.status === "failed");
      expect(failed.map((v) => v.kind).sort()).toEqual(["edit", "execute"]);
      expect(contentText(failed.find((v) => v.kind === "execute")!)).toContain(zh.tools.exitCode(1));
      expectZh(
        "failed edit title",
        failed.find((v) => v.kind === "edit")!.title,
        inputWords(failed.find((v) => v.kind === "edit")!.rawInput),
      );
      // The rest of the conversation is ZCode's and stays as it is.
      expect(h.text(sessionId)).toContain("All tools ran");
    });
  });

  test("notices: a retried turn, limits that end a turn, an interrupted one, auto-compact", async () => {
    await withBridge({ env: { ...ZH, ZCODE_SIM_CONTEXT_FILL: "0.95" }, args: ["--auto-compact", "80%"] }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:fail-transient fails=1")).stopReason).toBe("end_turn");
      expect((await h.prompt(sessionId, "#scenario:max-budget")).stopReason).toBe("max_turn_requests");
      expect((await h.prompt(sessionId, "#scenario:max-turns")).stopReason).toBe("max_turn_requests");
      expect((await h.prompt(sessionId, "#scenario:max-tool-calls")).stopReason).toBe("max_turn_requests");
      expect((await h.prompt(sessionId, "#scenario:during-execution")).stopReason).toBe("end_turn");
      await h.waitFor(() => notices(h, sessionId).some((n) => n.includes("自动压缩")), "the auto-compact notice");
      const said = notices(h, sessionId);
      // Retry, three limits, one interruption, auto-compactions after the turns that ended end_turn.
      expect(said.length).toBeGreaterThanOrEqual(6);
      for (const n of said) expectZh("notice", n, ["Rate limit reached for requests"]);
      expect(said.some((n) => n.includes(zh.bridge.turn.maxBudget))).toBe(true);
      expect(said.some((n) => n.includes(zh.bridge.turn.maxTurns))).toBe(true);
      expect(said.some((n) => n.includes("秒后重试"))).toBe(true);
    });
  });

  test("a fatal turn error: the JSON-RPC error around ZCode's message is Chinese", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const e = await rejection(h.prompt(sessionId, "#scenario:fail-fatal"));
      const zcodeMessage = e.data?.zcodeError?.message as string;
      expect(zcodeMessage).toContain("Insufficient balance");
      expectZh("fatal turn error", e.message, [zcodeMessage]);
      expect(e.message).toContain("错误码 1113");
    });
  });

  test("request errors: a relative cwd, audio, an unknown option, values not offered, an unknown session", async () => {
    await bridge.run(async (h) => {
      const cwd = await rejection(h.agent.request(acp.methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] }));
      expect(cwd.code).toBe(-32602);
      expectZh("relative cwd", cwd.message);
      const { sessionId } = await h.newSession();
      const audio = await rejection(h.prompt(sessionId, [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }]));
      expectZh("audio", audio.message);
      const setOption = acp.methods.agent.session.setConfigOption;
      const unknown = await rejection(h.agent.request(setOption, { sessionId, configId: "nope", value: "x" }));
      expectZh("unknown option", unknown.message);
      const level = await rejection(h.agent.request(setOption, { sessionId, configId: "thought_level", value: "ultra" }));
      expectZh("level not offered", level.message);
      const model = await rejection(h.agent.request(setOption, { sessionId, configId: "model", value: "some-other-model" }));
      expectZh("model not offered", model.message);
      const gone = await rejection(h.prompt("no-such-session", "hi"));
      expectZh("unknown session", gone.message);
    });
  });
});
