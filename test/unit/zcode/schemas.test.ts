// The shared shapes read from ZCode: tolerant where a detail may drift
// (a bad optional field reads as absent, a bad list entry is dropped), strict
// only where the bridge cannot work without the value (ids, roles).
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import {
  ErrorDetailSchema,
  maybe,
  MessageSchema,
  ModelOptionSchema,
  ModelSelectionSchema,
  ProjectionSchema,
  SessionInfoSchema,
  SettingsSchema,
  str,
  summarizeIssues,
  TodoSchema,
  tolerantArray,
  WorkspaceSchema,
} from "../../../src/zcode/schemas.ts";

const ok = <S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> => {
  const r = v.safeParse(schema, value);
  if (!r.success) throw new Error(`expected ${JSON.stringify(value)} to parse: ${summarizeIssues(r.issues)}`);
  return r.output;
};
const bad = (schema: v.GenericSchema, value: unknown) => expect(v.safeParse(schema, value).success).toBe(false);

describe("maybe", () => {
  const S = v.looseObject({ id: str, note: maybe(str), count: maybe(v.number()) });

  test("a present, well-typed value is kept", () => {
    expect(ok(S, { id: "a", note: "n", count: 3 })).toEqual({ id: "a", note: "n", count: 3 });
  });

  test("absent stays absent", () => {
    expect(ok(S, { id: "a" })).toEqual({ id: "a" });
  });

  test("a value of the wrong type reads as absent instead of failing the object", () => {
    const out = ok(S, { id: "a", note: 42, count: "three" });
    expect(out.note).toBeUndefined();
    expect(out.count).toBeUndefined();
    expect(out.id).toBe("a");
  });

  test("the required field is still required", () => {
    bad(S, { note: "n" });
    bad(S, { id: 7 });
  });
});

describe("tolerantArray", () => {
  const L = tolerantArray(v.looseObject({ value: str }));

  test("unreadable entries are dropped, the readable ones kept in order", () => {
    expect(ok(L, [{ value: "a" }, 7, { value: 1 }, null, { value: "b", extra: true }])).toEqual([
      { value: "a" },
      { value: "b", extra: true },
    ]);
  });

  test("an empty list is fine; something that is not a list is not", () => {
    expect(ok(L, [])).toEqual([]);
    bad(L, { value: "a" });
    bad(L, "a");
  });
});

describe("sessions and workspaces", () => {
  test("SessionInfo: only sessionId is required; unknown keys pass through", () => {
    const s = ok(SessionInfoSchema, {
      sessionId: "sess_1",
      title: "",
      workspace: { workspacePath: "/w", workspaceKey: "/w" },
      mode: "yolo",
      status: "idle",
      sessionKind: "interactive",
      createdAt: 1,
      updatedAt: 2,
      traceId: "tr",
    });
    expect(s).toMatchObject({ sessionId: "sess_1", title: "", workspace: { workspacePath: "/w" }, traceId: "tr" });
    expect(ok(SessionInfoSchema, { sessionId: "s", title: null }).title).toBeNull();
    bad(SessionInfoSchema, { title: "no id" });
    bad(SessionInfoSchema, { sessionId: 12 });
  });

  test("a broken workspace or timestamp is read as absent, the session still reads", () => {
    const s = ok(SessionInfoSchema, { sessionId: "s", workspace: { workspaceKey: "k" }, createdAt: "yesterday" });
    expect(s.workspace).toBeUndefined();
    expect(s.createdAt).toBeUndefined();
  });

  test("Workspace needs its path", () => {
    expect(ok(WorkspaceSchema, { workspacePath: "/w" })).toEqual({ workspacePath: "/w" });
    bad(WorkspaceSchema, { workspaceKey: "/w" });
  });
});

describe("settings (ZCode's real shapes)", () => {
  const GLM = {
    ref: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" },
    label: "GLM-5.3",
    providerLabel: "Z.ai Coding Plan",
    contextWindow: 200000,
    maxOutputTokens: 128000,
    reasoning: {
      levels: [
        { value: "low", label: "Low" },
        { value: "high", label: "High" },
        { value: "max", label: "Max" },
      ],
      defaultLevel: "max",
    },
    properties: {},
  };

  test("a model entry is named by ref, never a top-level modelId", () => {
    const m = ok(ModelOptionSchema, GLM);
    expect(m.ref).toEqual({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" });
    expect(m.reasoning?.levels?.map((l) => l.value)).toEqual(["low", "high", "max"]);
    expect(m.reasoning?.defaultLevel).toBe("max");
    bad(ModelOptionSchema, { modelId: "GLM-5.3", label: "GLM-5.3" });
    bad(ModelOptionSchema, { ref: { providerId: "p" } });
  });

  test("contextWindow may be null; a bad level is dropped, not the model", () => {
    const m = ok(ModelOptionSchema, {
      ...GLM,
      contextWindow: null,
      reasoning: { levels: [{ value: "low" }, { label: "no value" }], defaultLevel: 3 },
    });
    expect(m.contextWindow).toBeNull();
    expect(m.reasoning?.levels).toEqual([{ value: "low" }]);
    expect(m.reasoning?.defaultLevel).toBeUndefined();
  });

  test("the whole settings block of a create answer", () => {
    const s = ok(SettingsSchema, {
      model: {
        current: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "max" } },
        available: [GLM, { label: "broken entry" }, { ...GLM, ref: { providerId: "p2", modelId: "m2" }, disabledReason: "Sign in first" }],
        lastUsed: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" },
      },
      thoughtLevel: {
        enabled: true,
        current: "max",
        available: [
          { value: "low", label: "Low" },
          { value: "max", label: "Max" },
        ],
      },
      mode: { current: "yolo" },
      permission: { mode: "yolo" },
    });
    expect(s.model?.current).toEqual({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "max" } });
    expect(s.model?.available?.map((m) => m.ref.modelId)).toEqual(["GLM-5.3", "m2"]);
    expect(s.model?.available?.[1]?.disabledReason).toBe("Sign in first");
    expect(s.thoughtLevel).toMatchObject({ enabled: true, current: "max" });
    expect(s.mode?.current).toBe("yolo");
  });

  test("a broken current model or mode reads as absent", () => {
    const s = ok(SettingsSchema, { model: { current: { providerId: "p" } }, mode: "yolo", thoughtLevel: { enabled: "yes" } });
    expect(s.model?.current).toBeUndefined();
    expect(s.mode).toBeUndefined();
    expect(s.thoughtLevel?.enabled).toBeUndefined();
  });

  test("ModelSelection needs provider and model", () => {
    expect(ok(ModelSelectionSchema, { providerId: "p", modelId: "m" })).toEqual({ providerId: "p", modelId: "m" });
    bad(ModelSelectionSchema, { providerId: "p" });
  });
});

describe("projection, todos, errors", () => {
  test("contextWindow null has been seen on real CLIs", () => {
    expect(ok(ProjectionSchema, { status: "idle", contextUsed: 0, contextWindow: null }).contextWindow).toBeNull();
    expect(ok(ProjectionSchema, { status: 3 }).status).toBeUndefined();
  });

  test("a todo is ZCode's {content, status, priority}; content is required", () => {
    expect(ok(TodoSchema, { content: "x", status: "pending", priority: "high" })).toEqual({
      content: "x",
      status: "pending",
      priority: "high",
    });
    bad(TodoSchema, { status: "pending" });
  });

  test("ErrorDetail: a string code, retry hints under attribution", () => {
    const e = ok(ErrorDetailSchema, {
      type: "model_error",
      code: "model_rate_limited",
      message: "Rate limit reached",
      attribution: { source: "provider", retryable: true, statusCode: 429 },
      stack: "Error: …",
    });
    expect(e.code).toBe("model_rate_limited");
    expect(e.attribution?.retryable).toBe(true);
    expect(ok(ErrorDetailSchema, { code: 1302 }).code).toBe(1302);
    expect(ok(ErrorDetailSchema, { code: { nested: true }, message: 5 })).toMatchObject({ code: undefined, message: undefined });
  });
});

describe("history messages", () => {
  test("real parts: text, reasoning, tool {callId, tool, state}; unknown part types are left out", () => {
    const m = ok(MessageSchema, {
      info: { messageId: "msg_1", role: "assistant", time: { created: 1 } },
      parts: [
        { type: "step-start" },
        { type: "reasoning", text: "hm" },
        { type: "text", text: "On it." },
        {
          partId: "prt_3",
          type: "tool",
          callId: "call_1",
          tool: "Bash",
          state: { status: "completed", input: { command: "ls" }, output: "README.md", title: "Bash", metadata: { schemaVersion: 1 } },
        },
        { type: "tool", toolCallId: "old_shape", toolName: "Bash", state: { status: "completed" } },
        { type: "step-finish", tokens: {} },
      ],
    });
    expect(m.parts.map((p) => p.type)).toEqual(["reasoning", "text", "tool"]);
    const tool = m.parts[2]!;
    if (tool.type !== "tool") throw new Error("not a tool part");
    expect(tool.callId).toBe("call_1");
    expect(tool.state).toMatchObject({ status: "completed", output: "README.md", input: { command: "ls" } });
  });

  test("info: role is required; synthetic, visibility and semantics are read", () => {
    const m = ok(MessageSchema, {
      info: {
        messageId: "m",
        role: "user",
        synthetic: true,
        visibility: "model-only",
        semantics: { kind: "system_reminder", uiVisibility: "hidden" },
      },
      parts: [],
    });
    expect(m.info).toMatchObject({
      synthetic: true,
      visibility: "model-only",
      semantics: { kind: "system_reminder", uiVisibility: "hidden" },
    });
    bad(MessageSchema, { info: { messageId: "m" }, parts: [] });
  });

  test("a tool part's error and metadata.display", () => {
    const m = ok(MessageSchema, {
      info: { role: "assistant" },
      parts: [
        { type: "tool", callId: "c", tool: "Edit", state: { status: "error", input: {}, error: "String to replace not found in file." } },
        {
          type: "tool",
          callId: "d",
          tool: "Edit",
          state: { status: "completed", output: "ok", metadata: { display: { kind: "file_diff" } } },
        },
      ],
    });
    const [e, d] = m.parts;
    if (e?.type !== "tool" || d?.type !== "tool") throw new Error("not tool parts");
    expect(e.state.error).toBe("String to replace not found in file.");
    expect(d.state.metadata?.display).toEqual({ kind: "file_diff" });
  });
});

describe("summarizeIssues", () => {
  test("one line with the path of the first issue", () => {
    const r = v.safeParse(v.object({ a: v.object({ b: v.string() }) }), { a: { b: 1 } });
    if (r.success) throw new Error("expected a failure");
    expect(summarizeIssues(r.issues)).toStartWith("a.b: ");
    expect(summarizeIssues([])).toBe("invalid");
  });
});
