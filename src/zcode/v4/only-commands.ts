import * as v from "valibot";
import type { GoalAction, HistoryTarget, ModelChoice, WorkspaceArg, ZCodeAttachment, ZCodeMcpServer } from "../api-types.ts";
import { workspaceOf } from "../api-types.ts";
import type { ZCodeConnection } from "../connection.ts";
import { LOCAL_ERR, ZCodeError } from "../errors.ts";
import type { CompactResult, ForkResult, GoalResult, SendResult, SettingsResult } from "../result-schemas.ts";
import { loose, str } from "../schemas.ts";
import { type Targeting, targetOf, V4Channel, V4CommandError } from "./channel.ts";
import { uploadAll } from "./only-attachments.ts";
import { uuidv7 } from "./uuid7.ts";

// Session operations on a child that speaks v4 alone, one v4 command each,
// with the payloads of ZCode's command.ts `commandPayloadSchemas` (strict:
// only the keys it names are ever sent; CAS commands carry baseRevision and
// baseLogEpoch, COMMANDS_REQUIRING_BASE_REVISION). Each answers what the
// legacy method it stands for answered, so ZCodeApi's callers see no
// difference; what v4 has no command for throws a ZCodeError saying so.

/** The session's model config as its conversation snapshot has it (snapshot.ts sessionConfigStateSchema). */
export interface V4Config {
  provider: string;
  model: string;
  thought?: string;
}

/** command.ts commandResultSchema: createSession / forkAssistant answer the session they made. */
const SessionResultSchema = loose({ type: str, sessionId: str });

const PROVIDER_HEADERS = "interaction/requestProviderRuntimeHeaders";
/** request-schemas.ts ProviderHeadersAnswer. */
const HeadersAnswerSchema = loose({
  headersApplied: v.boolean(),
  requestAuth: v.optional(loose({ apiKey: str, accountScope: v.optional(str) })),
  errorMessage: v.optional(str),
});

/** The CollaborationMode values switchCollaborationMode takes (command.ts; `auto` is not switchable). */
const SWITCHABLE_MODES = new Set(["build", "edit", "plan", "yolo", "guarded"]);

function cannot(pick: (e: typeof import("../../i18n/en/errors.ts").errors) => string, method: string): ZCodeError {
  return new ZCodeError((e) => pick(e), { code: LOCAL_ERR.unsupported, method });
}

/** forkAssistant's target (CAS, row-targeting): the newest assistant answer ZCode offers to fork at (rows.ts actions.canFork). */
export const forkTarget: Targeting = {
  pick(rows) {
    for (let i = rows.length - 1; i >= 0; i--) {
      const r = rows[i]!;
      const target = r.kind === "assistantText" && r.actions?.canFork === true ? targetOf(r) : undefined;
      if (target) return { type: "forkAssistant", target };
    }
    return undefined;
  },
  enough: (rows) => rows.some((r) => r.kind === "assistantText" && r.actions?.canFork === true),
};

export class V4OnlyCommands {
  constructor(
    private readonly conn: ZCodeConnection,
    private readonly v4: V4Channel,
    /** The session's current model config, from its conversation feed (feed.ts); undefined before its snapshot. */
    private readonly configOf: (sessionId: string) => V4Config | undefined,
  ) {}

  /**
   * `createSession` (sessionId null): a draft ZCode keeps deferred until its
   * first input (session-mgmt.ts createSession); `workspaceId` is the local
   * workspace path ("本地工作区 = workspacePath"). MCP servers go into the
   * record with it: ZCode takes them at create only ("MCP 是 runtime 启动期配置，
   * 必须随 create 一次性进入 record", command.ts). Answers the new session's id.
   */
  async create(p: { workspace: WorkspaceArg; mode?: string; mcpServers?: ZCodeMcpServer[] }): Promise<string> {
    const mode = p.mode && SWITCHABLE_MODES.has(p.mode) ? p.mode : undefined;
    const payload = {
      workspaceId: workspaceOf(p.workspace).workspacePath,
      ...(mode ? { config: { mode } } : {}),
      ...(p.mcpServers?.length ? { mcpServers: p.mcpServers } : {}),
    };
    const ack = await this.v4.plain(null, "createSession", payload);
    const r = v.safeParse(SessionResultSchema, ack.result);
    if (!r.success)
      throw new ZCodeError("ZCode created a session without saying its id", {
        code: LOCAL_ERR.internal,
        method: "v4/command createSession",
      });
    return r.output.sessionId;
  }

  /**
   * `sendText`, files uploaded first (only-attachments.ts). A queue ZCode
   * holds (after a stop or a failure) makes an idle sendText fail
   * `heldQueueDispositionRequired` (input-admission.ts): the prompt is sent
   * again keeping that queue (`keepQueueAndSend`: the user's queued inputs
   * are never dropped by the bridge).
   */
  async send(p: { sessionId: string; content: string; attachments?: ZCodeAttachment[] }): Promise<SendResult> {
    const auth = await this.executionAuth(p.sessionId);
    const refs = p.attachments?.length ? await uploadAll(this.conn, p.sessionId, p.attachments) : [];
    const payload = { text: p.content, ...(refs.length ? { attachments: refs } : {}), ...auth };
    try {
      await this.v4.plain(p.sessionId, "sendText", payload);
    } catch (err) {
      if (!(err instanceof V4CommandError) || err.reasonCode !== "heldQueueDispositionRequired") throw err;
      await this.v4.plain(p.sessionId, "sendText", { ...payload, heldQueueDisposition: "keepQueueAndSend" });
    }
    return { accepted: true };
  }

  /**
   * A plan's credentials for the turn this input starts. A v4-only CLI has
   * no interaction/requestProviderRuntimeHeaders to ask its host (that
   * reverse request lives in the deleted legacy file, index.ts
   * `zcodeProtocolMethods`): the input carries them, `sendText.modelExecution
   * {selectionScope:"execution", requestAuth}` beside the `modelSelection` it
   * requires (model-execution.ts: "凭据只属于单次执行，不进入 Session 配置";
   * command.ts requireModelSelectionForExecution). The key is the one the
   * legacy answer would give (the handler the session registered for that
   * request, session/provider-headers.ts), asked only for an account
   * provider (`account:<id>`), the kind ZCode asked it for: no other
   * provider is ever sent a key it did not ask for.
   */
  private async executionAuth(sessionId: string): Promise<Record<string, unknown> | undefined> {
    const config = this.configOf(sessionId);
    if (!config?.provider.startsWith("account:")) return undefined;
    const modelSelection = {
      providerId: config.provider,
      modelId: config.model,
      ...(config.thought ? { options: { reasoningLevel: config.thought } } : {}),
    };
    const answer = await this.conn.ask(PROVIDER_HEADERS, {
      requestId: uuidv7(),
      sessionId,
      providerId: config.provider,
      modelSelection,
      reason: "model-request",
    });
    const r = v.safeParse(HeadersAnswerSchema, answer);
    if (!r.success) throw new ZCodeError("No credentials for this model's plan", { code: LOCAL_ERR.internal, method: PROVIDER_HEADERS });
    if (!r.output.headersApplied || !r.output.requestAuth) {
      throw new ZCodeError(r.output.errorMessage ?? "No credentials for this model's plan", {
        code: LOCAL_ERR.internal,
        method: PROVIDER_HEADERS,
      });
    }
    const { apiKey, accountScope } = r.output.requestAuth;
    return {
      modelSelection,
      modelExecution: { selectionScope: "execution", requestAuth: { apiKey, ...(accountScope ? { accountScope } : {}) } },
    };
  }

  /** v4 `stop` of whatever runs (no expected execution: a legacy stop named none either). */
  async stop(sessionId: string): Promise<void> {
    await this.v4.plain(sessionId, "stop", {});
  }

  /** `switchModelConfig` (CAS): provider, model and thought, all three (model-config.ts; "" keeps the model's level). */
  async setModel(p: { sessionId: string; model: ModelChoice }): Promise<SettingsResult> {
    const thought = p.model.options?.reasoningLevel ?? "";
    await this.v4.cas(p.sessionId, "switchModelConfig", { provider: p.model.providerId, model: p.model.modelId, thought });
    return {};
  }

  /** `switchModelConfig` with the session's current model (known from its feed) and the new level. */
  async setThoughtLevel(p: { sessionId: string; thoughtLevel: string }): Promise<SettingsResult> {
    const config = this.configOf(p.sessionId);
    if (!config) throw cannot((e) => e.v4Cannot.modelUnknown, "v4/command switchModelConfig");
    await this.v4.cas(p.sessionId, "switchModelConfig", { provider: config.provider, model: config.model, thought: p.thoughtLevel });
    return {};
  }

  /** `switchCollaborationMode` (CAS); a mode v4 cannot switch to (auto) is refused by ZCode's own words. */
  async setMode(p: { sessionId: string; mode: string }): Promise<SettingsResult> {
    if (!SWITCHABLE_MODES.has(p.mode)) {
      throw new ZCodeError((e) => e.unsupportedMethod(`mode ${p.mode}`, "v4 switchCollaborationMode"), {
        code: LOCAL_ERR.unsupported,
        method: "v4/command switchCollaborationMode",
      });
    }
    await this.v4.cas(p.sessionId, "switchCollaborationMode", { mode: p.mode });
    return {};
  }

  /**
   * `forkAssistant` at the newest answer ZCode offers to fork at (the
   * latest checkpoint of legacy fork); a named checkpoint has no v4 form.
   */
  async fork(p: { sessionId: string; target: HistoryTarget }): Promise<ForkResult> {
    if (p.target.kind !== "latestCheckpoint") throw cannot((e) => e.v4Cannot.forkAtCheckpoint, "v4/command forkAssistant");
    const sent = await this.v4.targeted(p.sessionId, forkTarget);
    if (!sent) throw cannot((e) => e.v4Cannot.forkNothing, "v4/command forkAssistant");
    const r = v.safeParse(SessionResultSchema, sent.ack.result);
    if (!r.success)
      throw new ZCodeError("ZCode forked without saying the new session's id", {
        code: LOCAL_ERR.internal,
        method: "v4/command forkAssistant",
      });
    return { forkedSessionId: r.output.sessionId };
  }

  /** v4 `compact` (payload `{}`: "无 instructions 变体", goal-compact.ts); queued by ZCode when busy. */
  async compact(p: { sessionId: string; instructions?: string }): Promise<CompactResult> {
    if (p.instructions?.trim()) throw cannot((e) => e.v4Cannot.compactInstructions, "v4/command compact");
    const ack = await this.v4.plain(p.sessionId, "compact", {});
    return { compact: { state: ack.status === "accepted" ? "accepted" : ack.status } };
  }

  /**
   * /goal on v4 (goal-compact.ts): set and replace are `sendGoalCommand`
   * (a second set replaces), pause `pauseGoal`, resume `resumeGoal` (both
   * CAS). There is no command to clear or to show a goal (ZCodeApi answers
   * a show from the conversation snapshot's goal, goal-show.ts).
   */
  async goal(p: { sessionId: string; action: GoalAction; objective?: string }): Promise<GoalResult> {
    switch (p.action) {
      case "set":
      case "replace": {
        const objective = p.objective?.trim() ?? "";
        await this.v4.plain(p.sessionId, "sendGoalCommand", { text: objective, displayText: `/goal ${objective}` });
        return { startedTurn: true };
      }
      case "pause":
        await this.v4.cas(p.sessionId, "pauseGoal", {});
        return {};
      case "resume":
        await this.v4.cas(p.sessionId, "resumeGoal", {});
        return {};
      case "clear":
        throw cannot((e) => e.v4Cannot.clearGoal, "v4/command sendGoalCommand");
      case "show":
        throw cannot((e) => e.v4Cannot.showGoal, "v4/command sendGoalCommand");
    }
  }
}
