// Streaming text and reasoning, turn outcomes, usage, compaction, and the
// scenarios that report what reached the simulated CLI.
import { newId } from "../store.ts";
import type { Turn } from "../turn.ts";
import { readSpec } from "./fixtures.ts";
import { useTools } from "./tools.ts";

/** Reasoning, then `Echo: <prompt>` and any notes (attachments, auth) on new lines. */
export async function defaultReply(t: Turn, suffix = ""): Promise<void> {
  await t.sayChunked(`The user said: ${t.text}. I'll echo it back.`, "reasoning", 2);
  const notes = t.notes.length ? `\n${t.notes.join("\n")}` : "";
  await t.sayChunked(`Echo: ${t.text}${suffix}${notes}`, "text", 3);
}

export async function text(t: Turn): Promise<void> {
  for (const d of ["Let me think ", "about héllo ", "wörld… ", "done."]) {
    await t.reasoning(d);
    await t.pace();
  }
  for (const d of ["Here is ", "some text: ", "héllo wörld ✓ 日本", " — multi-byte ", "UTF-8 🚀 included."]) {
    await t.say(d);
    await t.pace();
  }
}

/** A turn that ends with one of turn.completed's error result types. */
function ending(resultType: string) {
  return async (t: Turn): Promise<void> => {
    await t.sayChunked(`Stopping early (${resultType}).`, "text", 2);
    t.resultType = resultType;
  };
}

/** Not a real result type: the model stopped for this reason and the turn still succeeds [GUESSED]. */
function stopReason(reason: string) {
  return async (t: Turn): Promise<void> => {
    t.stopReasonOverride = reason;
    await t.sayChunked(`The model stopped (${reason}).`, "text", 2);
  };
}

/** The model request reports fixed usage. */
export async function usage(t: Turn): Promise<void> {
  t.nextStepUsage = { inputTokens: 12345, outputTokens: 678, reasoningTokens: 0, cacheReadTokens: 0 };
  await t.say("Reporting usage. ");
  await t.pace();
  await t.say("Done.");
}

async function maxToolCalls(t: Turn): Promise<void> {
  await t.say("Reading. ");
  await useTools(t, [readSpec(t.ws)]);
  await t.say("Tool call limit reached.");
  t.resultType = "error_max_tool_calls";
}

/** fails=N (counted per prompt text): a retryable provider failure; top=1 puts `retryable` at the top level; after=1 fails after a first reply. */
export async function failTransient(t: Turn): Promise<void> {
  const fails = t.num("fails", 1);
  const sent = t.s.promptCounts[t.raw] ?? 1;
  if (sent <= fails) {
    await t.pace();
    // after=1: the failure comes after a first complete reply (the turn then has a reply ZCode offers to retry).
    if (t.params.after === "1") {
      await t.say("Checking the files.");
      await t.endStep();
    }
    const { providerId, modelId } = t.s.model;
    t.failure =
      t.params.top === "1"
        ? {
            type: "model_error",
            code: "model_rate_limited",
            message: "Rate limit reached for requests",
            retryable: true,
            turnPhase: "model_streaming",
          }
        : {
            type: "model_error",
            code: "model_rate_limited",
            message: "Rate limit reached for requests",
            detail: `provider=${providerId} provider_code=1302 model=${modelId} status=429 retryable=true`,
            attribution: {
              source: "provider",
              reason: "rate_limited",
              providerId,
              modelId,
              transport: "sse",
              statusCode: 429,
              providerErrorCode: "1302",
              retryable: true,
            },
            turnPhase: "model_streaming",
          };
    return;
  }
  await defaultReply(t);
}

export async function failFatal(t: Turn): Promise<void> {
  await t.reasoning("Thinking… ");
  await t.pace();
  const { providerId, modelId } = t.s.model;
  t.failure = {
    type: "model_error",
    code: "1113",
    message: "Insufficient balance or no resource package. Please recharge.",
    detail: `provider=${providerId} provider_code=1113 model=${modelId} status=429 retryable=false`,
    attribution: {
      source: "provider",
      reason: "insufficient_balance",
      exceptionKind: "provider_business",
      providerId,
      modelId,
      statusCode: 429,
      providerErrorCode: "1113",
      retryable: false,
    },
    turnPhase: "model_streaming",
  };
}

/**
 * The GLM Coding Plan's 5-hour allowance is spent: the provider answers 429
 * with business code 1308, which ZCode maps to a terminal rate limit
 * (jimpablo/ZCode@aac4755: apps/zcode-cli/packages/adapters/src/model/
 * failure-provider-business-codes.ts, "1308" → model_rate_limited,
 * rate_limited, retryable false); the turn.failed shape is fail-transient's.
 */
export async function failQuota(t: Turn): Promise<void> {
  await t.reasoning("Thinking… ");
  await t.pace();
  const { providerId, modelId } = t.s.model;
  t.failure = {
    type: "model_error",
    code: "model_rate_limited",
    message: "Usage limit reached for 5 hour. Your limit will reset at 2026-12-04 17:00:00",
    detail: `provider=${providerId} provider_code=1308 model=${modelId} status=429 retryable=false`,
    attribution: {
      source: "provider",
      reason: "rate_limited",
      providerId,
      modelId,
      transport: "sse",
      statusCode: 429,
      providerErrorCode: "1308",
      retryable: false,
    },
    turnPhase: "model_streaming",
  };
}

/** Every model.streaming kind of the enum, including the ones the real mapper never sends. */
export async function markers(t: Turn): Promise<void> {
  const st = t.beginStep();
  const amid = st.info.messageId;
  const m = (kind: string, extra: Record<string, unknown> = {}) => t.emit("model.streaming", { assistantMessageId: amid, kind, ...extra });
  await m("start");
  await m("reasoning_start");
  await t.reasoning("Checking every marker. ");
  await m("reasoning_end");
  await m("text_start");
  await t.say("Markers: ");
  await t.say("all of them.");
  await m("text_end");
  await m("error", { delta: "transient stream hiccup (recovered)" });
  await m("finish", { done: true });
  await useTools(t, [readSpec(t.ws)]);
  await m("start");
  await t.say(" Done.");
  await m("finish", { done: true });
}

/** Reports what reached the CLI at launch and in this session. */
export async function env(t: Turn): Promise<void> {
  const l = t.cfg.launch;
  const lv = t.s.model.options?.reasoningLevel;
  const lines = [
    `ZCODE_BUILTIN_PROVIDER_CONFIG_FILE=${l.builtinProviderConfigFile ?? "unset"}`,
    `ZCODE_PERSONAL_PROVIDER_CONFIG_FILE=${l.personalProviderConfigFile ?? "unset"}`,
    `ZCODE_BASE_URL=${l.baseUrl ?? "unset"}`,
    `mcpServers=${t.s.mcpServerNames.join(",") || "none"}`,
    `runtimePreferences=${t.r.prefs ? JSON.stringify(t.r.prefs) : "none"}`,
    `model=${t.s.model.providerId}/${t.s.model.modelId}${lv ? `@${lv}` : ""}`,
    `mode=${t.s.mode}`,
    ...t.notes,
  ];
  await t.sayChunked(lines.join("\n"), "text", 2);
}

/** Adds n earlier exchanges to the transcript (a long session), then echoes. */
export async function history(t: Turn): Promise<void> {
  const n = t.num("n", 20);
  const at = t.s.messages.indexOf(t.userMessage);
  const older = [];
  for (let i = 0; i < n; i++) {
    const u = t.userInfo();
    const ai = {
      messageId: newId("msg"),
      sessionId: t.s.id,
      role: "assistant" as const,
      time: { created: u.time.created, completed: u.time.created },
      parentMessageId: u.messageId,
      agent: t.agent(),
      path: { cwd: t.ws, root: t.ws },
      cost: 0,
      tokens: { input: 1000 + i, output: 20, reasoning: 0, cache: { read: 0, write: 0 } },
      finish: "stop",
    };
    older.push({ info: u, parts: [t.part(u.messageId, { type: "text" as const, text: `earlier question ${i + 1}` })] });
    older.push({
      info: ai,
      parts: [
        t.part(ai.messageId, { type: "step-start" as const }),
        t.part(ai.messageId, { type: "text" as const, text: `earlier answer ${i + 1}` }),
        t.part(ai.messageId, { type: "step-finish" as const, reason: "stop", cost: 0, tokens: ai.tokens }),
      ],
    });
  }
  t.s.messages.splice(at, 0, ...older);
  await defaultReply(t);
}

/**
 * A very long conversation before this turn's reply, for session/load at
 * scale (`bun run bench load`): n user/assistant pairs (2n messages), each
 * answer with a Bash tool whose output shares `bytes` in total, one tool
 * output of `big` bytes and one answer of `text` characters near the end.
 * The outputs are one shared string in memory; the stored JSON holds them all.
 */
export async function hugeHistory(t: Turn): Promise<void> {
  const n = t.num("n", 10_000);
  const bytes = t.num("bytes", 200_000_000);
  const big = t.num("big", 8_000_000);
  const textChars = t.num("text", 2_000_000);
  const each = "x".repeat(Math.max(1, Math.floor(bytes / Math.max(1, n)) - 1)) + "\n";
  const at = t.s.messages.indexOf(t.userMessage);
  const older = [];
  for (let i = 0; i < n; i++) {
    const u = t.userInfo();
    const ai = {
      messageId: newId("msg"),
      sessionId: t.s.id,
      role: "assistant" as const,
      time: { created: u.time.created, completed: u.time.created },
      parentMessageId: u.messageId,
      agent: t.agent(),
      path: { cwd: t.ws, root: t.ws },
      cost: 0,
      tokens: { input: 1000, output: 20, reasoning: 0, cache: { read: 0, write: 0 } },
      finish: "stop",
    };
    const nearEnd = i === n - 2;
    const output = nearEnd ? "y".repeat(big) : each;
    const now = u.time.created;
    older.push({ info: u, parts: [t.part(u.messageId, { type: "text" as const, text: `question ${i + 1}` })] });
    older.push({
      info: ai,
      parts: [
        t.part(ai.messageId, { type: "step-start" as const }),
        t.part(ai.messageId, {
          type: "tool" as const,
          callId: `call_huge_${i}`,
          tool: "Bash",
          state: {
            status: "completed" as const,
            input: { command: `cat part-${i}.log` },
            output,
            title: `cat part-${i}.log`,
            metadata: {},
            startedAt: now,
            completedAt: now,
          },
        }),
        t.part(ai.messageId, { type: "text" as const, text: nearEnd ? "z".repeat(textChars) : `answer ${i + 1}` }),
        t.part(ai.messageId, { type: "step-finish" as const, reason: "stop", cost: 0, tokens: ai.tokens }),
      ],
    });
  }
  t.s.messages.splice(at, 0, ...older);
  await defaultReply(t);
}

/** The compaction a session/compact runs: a summary message replaces the context. */
export async function compact(t: Turn): Promise<void> {
  const before = t.s.contextUsed;
  await t.emit("session.updated", { trigger: "manual", phase: "standalone_turn", preCompactTokenCount: before });
  const st = t.beginStep();
  const summary = `Summary of the conversation so far (${t.s.messages.length - 1} messages)${t.text ? `, focusing on: ${t.text}` : ""}.`;
  st.info.semantics = {
    origin: "agent_runtime",
    kind: "compact_summary",
    uiVisibility: "visible",
    providerVisibility: "visible",
    transcriptVisibility: "visible",
  };
  st.message.parts.push(t.part(st.info.messageId, { type: "compaction" as const, auto: false, reason: "manual" }));
  st.message.parts.push(t.part(st.info.messageId, { type: "text" as const, text: summary }));
  await t.pace();
  await t.endStep("stop");
  t.response = "";
  const after = Math.max(100, Math.floor(before / 10));
  t.s.contextUsed = after;
  await t.emit("session.updated", {
    trigger: "manual",
    phase: "standalone_turn",
    preCompactTokenCount: before,
    postCompactTokenCount: after,
    summaryMessageId: st.info.messageId,
  });
}

/**
 * A compaction ZCode starts itself before the turn's model request (trigger
 * "auto", phase "pre_request": the context was full), then the reply.
 */
export async function autoCompaction(t: Turn): Promise<void> {
  const before = Math.max(t.s.contextUsed, 1000);
  await t.emit("session.updated", { trigger: "auto", phase: "pre_request", preCompactTokenCount: before });
  await t.pace();
  const after = Math.max(100, Math.floor(before / 10));
  t.s.contextUsed = after;
  await t.emit("session.updated", { trigger: "auto", phase: "pre_request", preCompactTokenCount: before, postCompactTokenCount: after });
  await defaultReply(t);
}

export const basicScenarios = {
  default: (t: Turn) => defaultReply(t),
  text,
  usage,
  "max-turns": ending("error_max_turns"),
  "max-budget": ending("error_max_budget"),
  "max-tool-calls": maxToolCalls,
  "during-execution": ending("error_during_execution"),
  "max-tokens": stopReason("max_tokens"),
  refusal: stopReason("refusal"),
  "fail-transient": failTransient,
  "fail-fatal": failFatal,
  "fail-quota": failQuota,
  markers,
  env,
  history,
  "huge-history": hugeHistory,
  // Marks the session: its next cold resume falls back to the default model.
  "forget-model": (t: Turn) => defaultReply(t),
  compact,
  "auto-compaction": autoCompaction,
};
