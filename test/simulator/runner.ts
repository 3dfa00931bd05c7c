// Starts and ends turns: prompt parsing (#scenario tags), what happens before
// the first model request (title, SessionStart hook, launch and provider-auth
// checks), the turn.completed / turn.failed that ends every turn, and the
// state.updated that follows it.
import { type TurnAttachment, wireAttachment } from "./attachments.ts";
import { isAccountProvider } from "./catalog.ts";
import type { Answer } from "./interactions.ts";
import { formatIssues, validate } from "./schema.ts";
import { extraRows, scenarios } from "./scenarios/index.ts";
import type { Runtime, Sim } from "./sim.ts";
import { newId, uuid } from "./store.ts";
import { Stopped, Turn, type TurnFailure } from "./turn.ts";
import type { Message, SessionRecord } from "./types.ts";
import { afterTurnQueue, settleLeftInputs } from "./v4-queue.ts";
import { log } from "./wire.ts";
import { providerHeadersResponse } from "./zcode-schemas.ts";

export interface ParsedPrompt {
  scenario: string;
  params: Record<string, string>;
  /** The prompt without the tag and its key=value words. */
  text: string;
}

const TAG = /#scenario:([A-Za-z0-9_-]+)((?:[ \t]+[A-Za-z_][A-Za-z0-9_]*=\S*)*)/;

export function parsePrompt(content: string, dflt: string): ParsedPrompt {
  const m = TAG.exec(content);
  if (!m) return { scenario: dflt, params: {}, text: content.trim() };
  const params: Record<string, string> = {};
  for (const w of m[2]!.trim().split(/\s+/)) {
    if (!w) continue;
    const eq = w.indexOf("=");
    params[w.slice(0, eq)] = w.slice(eq + 1);
  }
  const text = (content.slice(0, m.index) + content.slice(m.index + m[0].length)).replace(/\s+/g, " ").trim();
  return { scenario: m[1]!, params, text };
}

export interface TurnInput {
  raw: string;
  prompt: ParsedPrompt;
  kind?: "regular" | "compact";
  inputId?: string;
  queryId?: string;
  attachments?: TurnAttachment[];
  /** A turn the CLI starts itself (goal continuation): synthetic input source. */
  inputSource?: string;
  /** state.updated reasons at the end: [completed, failed, cancelled]. */
  endReasons?: [string, string, string];
  /** v4: how the turn came to be (turnHeader.origin) and the command that made it. */
  origin?: "userInput" | "editRerun";
  sourceCommandId?: string;
}

/**
 * Claims the session for a turn synchronously (so a second send in the same
 * tick gets -32010 and an early stop is not lost); `runTurn` then plays it.
 */
export function prepareTurn(sim: Sim, s: SessionRecord, r: Runtime, input: TurnInput): Turn {
  const turn = new Turn(sim, s, r, {
    text: input.prompt.text,
    raw: input.raw,
    scenario: input.prompt.scenario,
    params: input.prompt.params,
    kind: input.kind ?? "regular",
    ...(input.inputId ? { inputId: input.inputId } : {}),
    ...(input.queryId ? { queryId: input.queryId } : {}),
    ...(input.inputSource ? { inputSource: input.inputSource } : {}),
    attachments: input.attachments ?? [],
    endReasons: input.endReasons ?? ["prompt_completed", "prompt_failed", "prompt_completed"],
  });
  r.turn = turn;
  if (input.kind !== "compact") {
    turn.log = {
      turnId: turn.id,
      origin: input.inputSource ? "goalContinuation" : (input.origin ?? "userInput"),
      state: "running",
      startedAt: turn.startedAt,
      messageIds: [],
      guidedIds: [],
      files: [],
      fileState: "active",
      ...(input.sourceCommandId ? { sourceCommandId: input.sourceCommandId } : {}),
    };
    (s.turnLog ??= []).push(turn.log);
  }
  return turn;
}

const HOOK_DESCRIPTOR = {
  clientVisible: true,
  commandDisplay: 'node "/home/dev/.zcode/cli/plugins/cache/claude-plugins-official/vercel/0.45.1/hooks/session-start-seen-skills.mjs"',
  executionMode: "foreground",
  executionType: "command",
  pluginId: "vercel@claude-plugins-official",
  pluginName: "vercel",
  sourceKind: "plugin",
  sourcePath: "/home/dev/.zcode/cli/plugins/cache/claude-plugins-official/vercel/0.45.1/hooks/hooks.json",
  timeoutMs: 60000,
};

const REMINDERS = [
  "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. This is just a gentle reminder - ignore if not applicable.",
  "As you answer the user's questions, you can use the following context:\n# currentDate\nToday's date is in the session metadata. IMPORTANT: this context may or may not be relevant to your tasks.",
];

function reminderMessage(turn: Turn, n: number): Message {
  const info = turn.userInfo({
    synthetic: true,
    source: "todo_reminder",
    visibility: "model-only",
    semantics: {
      origin: "system",
      kind: "system_reminder",
      uiVisibility: "hidden",
      providerVisibility: "visible",
      transcriptVisibility: "hidden",
    },
  });
  return {
    info,
    parts: [
      turn.part(info.messageId, {
        type: "text" as const,
        text: `<system-reminder>\n${REMINDERS[n % REMINDERS.length]}\n</system-reminder>`,
        synthetic: true,
      }),
    ],
  };
}

/**
 * v4-only: no interaction/requestProviderRuntimeHeaders; the execution's credentials come with the input
 * (jimpablo/ZCode@aac4755 packages/shared/src/model-execution.ts modelExecutionSchema.requestAuth
 * {apiKey, apiKeyId, accountScope, headers}: "凭据只属于单次执行，不进入 Session 配置"; command.ts sendText
 * `modelExecution`, "仅 idle startNow 接受"). Read as the headers answer would be; none → the same auth failure.
 */
function v4RequestAuth(turn: Turn): Answer {
  if (turn.requestAuth) return { result: { headersApplied: true, requestAuth: turn.requestAuth } };
  return {
    result: {
      headersApplied: false,
      errorMessage: "no modelExecution.requestAuth came with the input (a v4-only CLI has no interaction/requestProviderRuntimeHeaders)",
    },
  };
}

/** Checks the CLI makes before a model request; a failure ends the turn. */
async function beforeModelRequest(turn: Turn): Promise<void> {
  const { sim, s } = turn;
  const baseUrl = sim.cfg.launch.baseUrl;
  if (baseUrl) {
    // [GUESSED wording] The CLI reads ZCODE_BASE_URL as its service origin; requests go there and fail.
    turn.failure = {
      type: "configuration_error",
      code: "service_origin_override",
      message: `Model request failed: ZCODE_BASE_URL (${baseUrl}) overrides the ZCode service origin, so the provider endpoint cannot be reached`,
      attribution: { source: "runtime", errorPhase: "configuration", retryable: false },
      turnPhase: "model_request",
    };
    return;
  }
  if (!isAccountProvider(s.model.providerId)) return;
  const modelSelection = structuredClone(s.model);
  const ans: Answer =
    sim.cfg.protocol === "v4-only"
      ? v4RequestAuth(turn)
      : await sim.outgoing
          .request(
            "interaction/requestProviderRuntimeHeaders",
            {
              requestId: uuid(),
              sessionId: s.id,
              turnId: turn.id,
              workspace: s.workspace,
              modelSelection,
              providerId: s.model.providerId,
              reason: "model-request",
            },
            { signal: turn.signal },
          )
          .catch(() => {
            throw new Stopped();
          });
  let problem: string | undefined;
  if ("error" in ans) problem = `${ans.error.message} (${ans.error.code})`;
  else {
    const v = validate(providerHeadersResponse, ans.result);
    if (!v.ok) problem = `invalid interaction/requestProviderRuntimeHeaders result — ${formatIssues(v.issues)}`;
    else {
      const r = v.value as { headersApplied: boolean; requestAuth?: Record<string, unknown>; errorMessage?: string };
      if (!r.headersApplied) problem = r.errorMessage ?? "the client did not apply provider runtime headers";
      else {
        const auth = r.requestAuth ?? {};
        const how = ["apiKey", "apiKeyId", "accountScope", "headers"].filter((k) => auth[k] !== undefined);
        turn.notes.push(`auth: ${how.length ? how.join("+") : "none"}`);
      }
    }
  }
  if (problem !== undefined) {
    // [GUESSED shape] The model request fails as an account-auth error (-32031-like).
    turn.failure = {
      type: "model_error",
      code: "runtime_authentication_required",
      message: `Provider authentication failed for ${s.model.providerId}: ${problem}`,
      detail: `provider=${s.model.providerId} model=${s.model.modelId} protocol_code=-32031 retryable=false`,
      attribution: {
        source: "provider",
        reason: "runtime_authentication_required",
        errorPhase: "prepare",
        providerId: s.model.providerId,
        modelId: s.model.modelId,
        retryable: false,
      },
      turnPhase: "model_request",
    };
  }
}

/** The runtime's command counter (foregroundExecutionId): never repeats in a process. */
let executions = 0;

/** Runs a prepared turn to its end. Resolves when the final events are stored. */
export async function runTurn(turn: Turn): Promise<void> {
  const { sim, s, r } = turn;
  const attachments = turn.o.attachments;
  const turnNumber = s.turnCount + 1;
  const messagesBefore = s.messages.length;
  const todosBefore = structuredClone(s.todos);
  try {
    if (s.title === "" && turn.kind === "regular" && !turn.o.inputSource) {
      const title = (turn.text || turn.raw).split("\n")[0]!.trim().slice(0, 100);
      s.title = title;
      s.titleSource = "first_input";
      await turn.emit("session.titleUpdated", { previousTitle: "", source: "first_input", title });
    }
    if (!r.started) {
      r.started = true;
      await turn.emit("session.updated", {
        descriptor: HOOK_DESCRIPTOR,
        hookEventName: "SessionStart",
        hookIndex: 0,
        hookCount: 1,
        startedAt: Date.now(),
      });
    }
    if (turnNumber % 2 === 0 && turn.kind === "regular") s.messages.push(reminderMessage(turn, turnNumber / 2));
    const userSemantics =
      turn.kind === "compact"
        ? {
            semantics: {
              origin: "real_user" as const,
              kind: "slash_command",
              commandName: "compact",
              uiVisibility: "visible" as const,
              providerVisibility: "visible" as const,
              transcriptVisibility: "visible" as const,
            },
          }
        : turn.o.inputSource
          ? { synthetic: true, source: turn.o.inputSource, visibility: "model-only" as const }
          : {};
    const info = turn.userInfo(userSemantics);
    const parts: Message["parts"] = [turn.part(info.messageId, { type: "text" as const, text: turn.raw })];
    for (const a of attachments) {
      if (a.type === "image" || a.type === "pdf") {
        parts.push(
          turn.part(info.messageId, {
            type: "file",
            mime: a.mimeType ?? (a.type === "pdf" ? "application/pdf" : "image/*"),
            filename: a.filename,
            url: a.content ?? `file://${a.path}`,
          }) as never,
        );
      }
    }
    turn.userMessage = { info, parts };
    s.messages.push(turn.userMessage);
    turn.log?.messageIds.push(info.messageId);
    sim.store.touch(s);
    const started: Record<string, unknown> = {
      executionStartedAt: performance.timeOrigin + performance.now(),
      turnNumber,
      input: turn.raw,
    };
    if (turn.o.inputId) started.inputId = turn.o.inputId;
    if (turn.o.queryId) started.queryId = turn.o.queryId;
    if (turn.o.inputSource) {
      started.inputSource = turn.o.inputSource;
      started.inputVisibility = "model-only";
    }
    started.messageId = info.messageId;
    turn.foregroundExecutionId = `runtime_command_${++executions}`;
    started.foregroundExecutionId = turn.foregroundExecutionId;
    if (attachments.length) started.attachments = attachments.map(wireAttachment);
    // Not via turn.emit: even a turn stopped before it began is framed by started/completed.
    sim.emit(s, "turn.started", started, { turnId: turn.id, live: turn.live("turn.started") });
    turn.check();
    if (attachments.length) turn.notes.push(`Attachments: ${attachments.map((a) => a.seen).join("; ")}`);
    if (r.prefsError) {
      // The runtime could not be materialized: the answer to session/requestRuntimePreferences was rejected.
      turn.failure = { type: "configuration_error", message: r.prefsError, turnPhase: "prepare" };
      r.prefsError = undefined;
    } else await beforeModelRequest(turn);
    if (!turn.failure) {
      const scenario = scenarios[turn.scenario];
      if (!scenario) {
        turn.failure = {
          type: "unknown_error",
          code: "sim_unknown_scenario",
          message: `unknown simulator scenario "${turn.scenario}" (known: ${Object.keys(scenarios).join(", ")})`,
          turnPhase: "model_request",
        };
      } else {
        await extraRows(turn);
        await scenario(turn);
        await turn.endStep();
        // A text-only completion is a boundary too: each pending guide gets a model step of its own.
        while (!turn.failure && turn.guides.length > 0 && (await turn.drainGuide())) await turn.endStep();
      }
    }
  } catch (e) {
    if (!(e instanceof Stopped)) {
      log(`scenario ${turn.scenario} threw: ${(e as Error).stack ?? e}`);
      turn.failure = { type: "unknown_error", message: `simulator scenario failed: ${(e as Error).message}`, turnPhase: "model_streaming" };
    }
  }
  const cancelled = turn.stopped && !turn.failure;
  if (cancelled) turn.resultType = "cancelled";
  // Guides and queued inputs never taken in (v4-queue.ts, core turn.ts / steering.ts).
  const leftInputs = settleLeftInputs(sim, s, turn, cancelled);
  if (turn.log) {
    turn.log.state = turn.failure ? "failed" : cancelled ? "completedInterrupted" : "completedSuccess";
    turn.log.endedAt = Date.now();
  }
  if (cancelled || turn.failure) turn.interruptTools();
  if (turn.step) {
    const st = turn.step;
    turn.step = undefined;
    st.info.finish = cancelled ? "cancelled" : "error";
    st.info.time.completed = Date.now();
    if (turn.failure) st.info.error = { name: turn.failure.type, message: turn.failure.message };
  }
  if (turn.userMessage) turn.userMessage.info.time.completed = Date.now();
  const opts = { turnId: turn.id };
  const u = turn.usage;
  const usage = u.modelRequestCount > 0 ? { ...u } : undefined;
  const duration = Date.now() - turn.startedAt;
  if (turn.failure) {
    const f: TurnFailure = turn.failure;
    const error: Record<string, unknown> = { type: f.type };
    if (f.attribution) error.attribution = f.attribution;
    if (f.code !== undefined) error.code = f.code;
    error.message = f.message;
    if (f.detail) error.detail = f.detail;
    if (f.retryable !== undefined) error.retryable = f.retryable;
    error.stack = `Error: ${f.message}\n    at runTurn (zcode.cjs:1:1)`;
    const payload: Record<string, unknown> = { error, turnPhase: f.turnPhase };
    if (turn.o.inputId) payload.inputId = turn.o.inputId;
    sim.emit(s, "turn.failed", payload, { ...opts, live: turn.live("turn.failed") });
  } else {
    s.turnCount = turnNumber;
    const payload: Record<string, unknown> = cancelled
      ? {
          response: "",
          tokenCount: 0,
          ...(usage ? { usage } : {}),
          toolCallCount: 0,
          historyRoundCount: turn.historyRoundCount,
          duration,
          resultType: "cancelled",
        }
      : {
          response: turn.response,
          tokenCount: u.totalTokens,
          ...(usage ? { usage } : {}),
          toolCallCount: turn.toolCallCount,
          historyRoundCount: turn.historyRoundCount,
          duration,
          resultType: turn.resultType,
          cacheStats: {
            totalMessages: s.messages.length,
            cachedMessages: Math.max(0, s.messages.length - 2),
            lastCacheHit: u.cacheReadTokens > 0,
            cacheReadTokens: u.cacheReadTokens,
          },
        };
    if (turn.o.inputId) payload.inputId = turn.o.inputId;
    sim.emit(s, "turn.completed", payload, { ...opts, live: turn.live("turn.completed") });
    if (!cancelled && turn.userMessage) {
      s.checkpoints.push({
        checkpointId: newId("checkpoint"),
        turnId: turn.id,
        messagesBefore,
        messagesAfter: s.messages.length,
        todosBefore,
        todosAfter: structuredClone(s.todos),
        targetMessageId: turn.userMessage.info.messageId,
        createdAt: Date.now(),
      });
    }
  }
  s.totalTokens += u.totalTokens;
  if (s.goal?.status === "active") s.goal.tokensUsed += u.totalTokens;
  // The busy flag clears after the turn's events are on the wire (ZCODE_SIM_BUSY_TAIL_MS later if set),
  // just before the state.updated that reports it: a send racing the end event may get -32010. Meanwhile
  // session/read already says idle (jimpablo/ZCode@aac4755 …/zcode-protocol/server-operations.ts
  // runPromptTurnInBackground: `activeAbortController` is cleared in `finally`, after `await
  // admission.completion`; the status read comes from the runtime projection, idle at the turn's end).
  turn.coreEnded = true;
  await new Promise<void>((res) => setImmediate(res));
  if (sim.cfg.busyTailMs > 0) await Bun.sleep(sim.cfg.busyTailMs);
  if (r.turn === turn) r.turn = undefined;
  // v4-only: the projection's control leaves `running` with the turn (v4-topic.ts).
  sim.v4Hook?.(s);
  r.revision++;
  sim.store.touch(s);
  const [done, failed, stopped] = turn.o.endReasons;
  if (sim.rt(s.id) === r) sim.stateUpdated(s, turn.failure ? failed : cancelled ? stopped : done, turn.settingsPatch());
  // A stopped or failed turn's inputs are held (autoDrain off); otherwise the queue drains.
  afterTurnQueue(sim, s, r, leftInputs);
}
