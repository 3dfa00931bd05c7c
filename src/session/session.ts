import type { AvailableCommand, ContentBlock, PromptResponse, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { matchCommand } from "../commands/registry.ts";
import type { AutoCompact } from "../config.ts";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import type { ModelChoice, ZCodeApi, ZCodeMcpServer } from "../zcode/api.ts";
import type { ZCodeEvent } from "../zcode/event-schemas.ts";
import type { Env } from "../zcode/host.ts";
import type { EventListener } from "../zcode/event-router.ts";
import type { Snapshot } from "../zcode/result-schemas.ts";
import type { Settings } from "../zcode/schemas.ts";
import { Activation, type ActivationOwner } from "./activation.ts";
import { StagedAttachments } from "./attachment-staging.ts";
import { compactInBackground, compactionDue } from "./auto-compact.ts";
import { runCommandBesideTurn, runCommandPrompt } from "./command-run.ts";
import { invalidParams } from "../translate/errors.ts";
import { applyEvent, emitUsage, type EventContext } from "../translate/events.ts";
import { noticeUpdate, type ClientFeatures, type NoticeLevel } from "../translate/client-features.ts";
import { EventIntake, type IntakeOwner } from "./intake.ts";
import { Subagents } from "./subagents.ts";
import { modelSwitchError, unavailableCurrent, unavailableNotice } from "../translate/options/model-notice.ts";
import {
  autoCompactValue,
  configTarget,
  modelChoiceFor,
  optionsFromSettings,
  optionUpdates,
  validateChoice,
  withCurrent,
  type SessionOptions,
} from "../translate/options/options.ts";
import { promptToInput } from "../translate/prompt-content.ts";
import { TranslationMemory } from "../translate/memory.ts";
import { ToolCallTracker } from "../translate/tools/tracker.ts";
import type { RunningCommand, RunningTurn, SessionHost, TurnStop } from "./host.ts";
import { Turn } from "./turn.ts";
import type { Timings } from "./timings.ts";
import type { UpdateSink } from "./update-sink.ts";

const logger = log.withTag("session");

/** What sessions share: the ZCode api, the way to the editor, and a few facts about the connection. */
export interface SessionDeps {
  api: ZCodeApi;
  sink: UpdateSink;
  timings: Timings;
  env: Env;
  /** The client asked for Zed's terminal extension. */
  terminalOutput(): boolean;
  /** What the client opted in to (notices, compaction, plans, …), read on every use. */
  features(): ClientFeatures;
  /** Withdraws the session's open permission and question prompts. */
  withdrawInteractions(sessionId: string): void;
  /** The slash menu in `cwd` (depends on the running CLI and the user's skills there). */
  commands(cwd: string): AvailableCommand[];
  /** --auto-compact: the context use after which a turn is followed by a compaction. */
  autoCompact?: AutoCompact;
  /** The threshold in words, for the auto-compact option's description. */
  autoCompactWords?: string;
  /** The editor has gone: nothing new may start. */
  closing(): boolean;
  /** The most a prompt may be as sent to ZCode (config.ts promptWireLimit). */
  maxPromptWireBytes?: number;
  /** A title the editor is told (the ZCode app's history follows it). */
  titleKnown(sessionId: string, title: string): void;
  /** Resumed in a (possibly new) child behind the editor's back. */
  onResumed(s: Session): void;
  /** ZCode's events of a session id (a subagent's child session); returns the unsubscribe. */
  routeEvents(sessionId: string, cb: EventListener): () => void;
}

/**
 * Why a turn or a command ends early:
 * - editor: session/cancel, or `$/cancel_request` on the prompt;
 * - close: ACP session/close (the conversation stays in ZCode);
 * - editor-gone: stdin closed; nothing new may start after it.
 */
export type CancelReason = "editor" | "close" | "editor-gone";

/**
 * One ACP session = one ZCode session (same id, so list/load/resume work
 * across bridge restarts without an alias store). The session owns its
 * behaviour: prompts (turns or slash commands, one at a time), cancel, close,
 * options, and what the editor is told about it. Its events enter through
 * its intake; whether ZCode has it in memory is its activation's business.
 */
export class Session implements IntakeOwner, ActivationOwner, SessionHost {
  readonly intake: EventIntake;
  readonly activationState: Activation;
  /** What the editor was told, kept to translate the next event against it. */
  readonly memory: TranslationMemory;
  /** JSON of the goal last published in `_meta.goal` (undefined: never published). */
  private lastGoalKey: string | undefined;
  /** The client drove this session's goal through `_session/goal`: it gets the goal's state too. */
  private goalControlled = false;
  /** The editor's MCP servers: ZCode takes them again on every resume. */
  private mcpServers: ZCodeMcpServer[] | undefined;
  /** The model the user chose here: a resume in a new child may fall back to ZCode's default. */
  private chosenModel: ModelChoice | undefined;
  /** The running prompt turn, if any. */
  private turn: RunningTurn | undefined;
  /** The slash command holding the queue, if any. */
  private command: RunningCommand | undefined;
  /** After a turn whose end we did not see: wait for ZCode to be idle before the next send. */
  private needsIdleWait = false;
  /** Drop events that are not the next turn's (leftovers of a cancelled or failed turn). */
  private dropStale = false;
  private closed = false;
  /** session/close has begun: nothing queued starts, nothing new is sent to ZCode. */
  private closing = false;
  /** Current models found unavailable: logged once, and told once in a turn (per model, so a later one is told too). */
  private readonly unavailableLogged = new Set<string>();
  private readonly unavailableTold = new Set<string>();
  /** Names of the slash commands last advertised to the editor. */
  private commandsKey: string | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  /** Files staged for ZCode by this session's prompts (they go with the session). */
  private readonly staged: StagedAttachments;
  /** ZCode's subagents as child sessions, for a client that takes them. */
  private readonly subagents: Subagents;

  constructor(
    readonly id: string,
    public cwd: string,
    private readonly deps: SessionDeps,
  ) {
    this.memory = new TranslationMemory(
      () => this.newTracker(),
      () => deps.features(),
    );
    if (deps.autoCompact) {
      this.options = { autoCompact: { on: true, asBoolean: deps.features().booleanOptions, threshold: deps.autoCompactWords ?? "" } };
    }
    this.intake = new EventIntake(this, deps.api);
    this.activationState = new Activation(this, deps.api);
    this.staged = new StagedAttachments(deps.env);
    const session = this;
    this.subagents = new Subagents({
      id,
      get cwd() {
        return session.cwd;
      },
      api: deps.api,
      get features() {
        return deps.features();
      },
      terminalOutput: () => deps.terminalOutput(),
      emit: (u) => this.emit(u),
      emitOn: (sessionId, u) => {
        if (!this.closed) deps.sink.push(sessionId, u);
      },
      routeEvents: (sessionId, cb) => deps.routeEvents(sessionId, cb),
    });
  }

  /** Closed or being closed, or the editor has gone: nothing new may start. */
  get winding(): boolean {
    return this.closing || this.closed || this.deps.closing();
  }

  get api(): ZCodeApi {
    return this.deps.api;
  }

  get timings(): Timings {
    return this.deps.timings;
  }

  /** The bridge's environment (HOME, settings), never process.env. */
  get env(): Env {
    return this.deps.env;
  }

  get activation(): number {
    return this.activationState.count;
  }

  get options(): SessionOptions {
    return this.memory.options;
  }

  private set options(o: SessionOptions) {
    this.memory.options = o;
  }

  get title(): string | undefined {
    return this.memory.title;
  }

  get tracker(): ToolCallTracker {
    return this.memory.tracker;
  }

  get lastUsage(): { used: number; size: number } | undefined {
    return this.memory.lastUsage;
  }

  /** The model the user chose here, if any. */
  get modelChoice(): ModelChoice | undefined {
    return this.chosenModel;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get leftoversExpected(): boolean {
    return this.dropStale;
  }

  get idleWaitDue(): boolean {
    return this.needsIdleWait;
  }

  private newTracker(): ToolCallTracker {
    return new ToolCallTracker({ cwd: this.cwd, terminalOutput: this.deps.terminalOutput() });
  }

  // ---- the editor side -----------------------------------------------------

  emit(u: SessionUpdate): void {
    if (this.closed) return;
    this.deps.sink.push(this.id, u);
    if (u.sessionUpdate === "session_info_update" && u.title) this.deps.titleKnown(this.id, u.title);
  }

  /** What the client opted in to. */
  get features(): ClientFeatures {
    return this.deps.features();
  }

  /**
   * Something the bridge itself tells the user (a retry, a model gone, an
   * auto-compaction): a `notice` for a client that takes them, else an agent
   * message of its own, after which the model's text starts a new message.
   */
  notice(level: NoticeLevel, text: string): void {
    const u = noticeUpdate(this.features, level, text);
    if (u.sessionUpdate !== "notice") this.memory.messageIds = {};
    this.emit(u);
  }

  /** The client drives this session's goal through `_session/goal`: it gets the goal's state from now on. */
  goalDrivenByClient(): void {
    this.goalControlled = true;
  }

  /**
   * ZCode's goal (projection.target) as the goal extension publishes it, in
   * session_info_update `_meta.goal` (null once cleared), when it changed and
   * the client takes it.
   */
  publishGoal(target: { objective: string; status?: string | undefined } | null | undefined): void {
    if (target === undefined || !(this.features.goal || this.goalControlled)) return;
    const goal = target ? { objective: target.objective, status: target.status ?? "active", controlMethod: "_session/goal" } : null;
    const key = JSON.stringify(goal);
    if (key === this.lastGoalKey || (this.lastGoalKey === undefined && goal === null)) return;
    this.lastGoalKey = key;
    this.emit({ sessionUpdate: "session_info_update", _meta: { goal } });
  }

  /** Reads ZCode's goal now and publishes it (after a goal command). */
  async refreshGoal(): Promise<void> {
    const r = await this.withActive(() => this.api.read(this.id));
    this.publishGoal(r.projection?.target ?? null);
    await this.flush();
  }

  /** Resolves once the editor's backlog is low again (at once when it is). */
  async backlogRelieved(): Promise<void> {
    await this.deps.sink.backpressure();
  }

  /** Resolves once everything emitted so far is on the wire. */
  flush(): Promise<void> {
    return this.deps.sink.flush(this.id);
  }

  failOpenTools(message: string): void {
    for (const u of this.tracker.failOpen(message)) this.emit(u);
  }

  withdrawInteractions(): void {
    this.deps.withdrawInteractions(this.id);
  }

  /**
   * What ZCode asks now belongs to a cancelled turn: the current one was
   * cancelled, or ZCode may still be running one cancelled before it
   * (dropStale) while our next turn waits to start.
   */
  get refusesInteractions(): boolean {
    return this.dropStale || this.turn?.isCancelled === true;
  }

  /** available_commands_update (sent after the response that made the session known). */
  announceCommands(onlyIfChanged = false): void {
    const list = this.deps.commands(this.cwd);
    const key = list.map((c) => c.name).join(" ");
    if (onlyIfChanged && key === this.commandsKey) return;
    this.commandsKey = key;
    this.emit({ sessionUpdate: "available_commands_update", availableCommands: list });
  }

  // ---- ZCode side: activation and events --------------------------------------

  /** Runs a ZCode call on the session, resuming it first when ZCode lost it. */
  withActive<T>(fn: () => Promise<T>): Promise<T> {
    return this.activationState.with(fn);
  }

  resume(): Promise<Snapshot> {
    return this.api.resume({ sessionId: this.id, workspace: this.cwd, mcpServers: this.mcpServers });
  }

  async resumed(r: Snapshot): Promise<void> {
    // Only the net change is told: a model ZCode fell back to and we switch away from again never flickers in the menu.
    const before = this.options;
    if (r.settings) this.adoptSettings(r.settings);
    await this.reapplyModel(r.settings);
    for (const u of optionUpdates(before, this.options)) this.emit(u);
    this.deps.onResumed(this);
  }

  materializedAgain(): void {
    this.intake.reset();
  }

  /** An event in seq order: the running turn's, or one that arrives between turns. */
  dispatch(e: ZCodeEvent): void {
    if (this.turn) this.turn.apply(e);
    else this.applyOutsideTurn(e);
  }

  /** An event that is not (or no longer) part of one of our prompt turns. */
  applyOutsideTurn(e: ZCodeEvent): void {
    if (this.dropStale) return;
    applyEvent(this.eventContext(), e);
  }

  eventContext(): EventContext {
    return { session: this.memory, emit: (u) => this.emit(u), subagents: this.subagents };
  }

  // ---- the turn or command running, and what ZCode may still send of an earlier one ----

  turnBegan(turn: RunningTurn): void {
    this.turn = turn;
  }

  turnEnded(turn: RunningTurn): void {
    if (this.turn === turn) this.turn = undefined;
  }

  turnRunning(): boolean {
    return this.turn?.running === true;
  }

  /** A turn or a slash command holds the session. */
  isBusy(): boolean {
    return this.turn !== undefined || this.command !== undefined;
  }

  commandBegan(command: RunningCommand): void {
    this.command = command;
  }

  commandEnded(command: RunningCommand): void {
    if (this.command === command) this.command = undefined;
  }

  expectLeftovers(opts: { idleWait: boolean; stop?: TurnStop }): void {
    this.dropStale = true;
    if (opts.idleWait) this.needsIdleWait = true;
    this.stopZCode(opts.stop);
  }

  stopZCode(how?: TurnStop): void {
    if (how?.v4) {
      const p = { sessionId: this.id, ...(how.foregroundExecutionId ? { foregroundExecutionId: how.foregroundExecutionId } : {}) };
      this.api.stopV4Turn(p).catch((err) => logger.debug("v4 stop failed:", err));
      return;
    }
    this.api.stop(this.id).catch((err) => logger.debug("session/stop failed:", err));
  }

  leftoversOver(): void {
    this.dropStale = false;
  }

  idleWaitBeforeNextSend(): void {
    this.needsIdleWait = true;
  }

  idleWaited(): void {
    this.needsIdleWait = false;
  }

  /** The editor's MCP servers, given again to ZCode on every resume. */
  useMcpServers(servers: ZCodeMcpServer[]): void {
    this.mcpServers = servers;
  }

  /** The bridge forgot the session: nothing more of it reaches the editor. */
  forgotten(): void {
    this.closed = true;
    this.subagents.dispose();
  }

  // ---- settings and reads ------------------------------------------------------

  /** A snapshot from create/resume/fork: options, title and context use, without telling the editor (it asked). */
  adoptSnapshot(r: Snapshot): void {
    this.options = optionsFromSettings(r.settings, this.options);
    if (r.session.title) this.memory.learnTitle(r.session.title);
    this.checkModel();
  }

  /** New settings from ZCode, remembered without telling the editor. */
  private adoptSettings(settings: Settings): void {
    this.options = optionsFromSettings(settings, this.options);
    this.checkModel();
  }

  /** New settings from ZCode: remember them and tell the editor what changed. */
  applySettings(settings: Settings): void {
    const next = optionsFromSettings(settings, this.options);
    for (const u of optionUpdates(this.options, next)) this.emit(u);
    this.options = next;
    this.checkModel();
  }

  /** A current model ZCode no longer offers goes to the log once; the menu marks it already. */
  private checkModel(): void {
    const info = unavailableCurrent(this.options);
    if (!info || this.unavailableLogged.has(info.value)) return;
    this.unavailableLogged.add(info.value);
    logger.warn(
      `session ${this.id}: its model ${info.value} is not offered by ZCode now (${info.disabledReason}); the user is told on the next prompt`,
    );
  }

  /** Before the first turn on such a model: one line saying so, apart from the turn's own message. */
  private tellUnavailableModel(): void {
    const info = unavailableCurrent(this.options);
    if (!info || this.unavailableTold.has(info.value)) return;
    this.unavailableTold.add(info.value);
    this.notice("warning", unavailableNotice(info));
  }

  /** The user's model choice again, when the resumed session came back with another. */
  private async reapplyModel(settings: Settings | undefined): Promise<void> {
    const want = this.chosenModel;
    const cur = settings?.model?.current;
    if (!want || (cur && cur.providerId === want.providerId && cur.modelId === want.modelId)) return;
    try {
      const r = await this.api.setModel({ sessionId: this.id, model: want });
      if (r.settings) this.adoptSettings(r.settings);
      logger.info(`session ${this.id} came back with another model; ${want.providerId}/${want.modelId} chosen again`);
    } catch (err) {
      logger.warn(`could not choose ${want.providerId}/${want.modelId} again for session ${this.id}:`, err);
    }
  }

  /** The same session opened again (by load or resume) in `cwd`: paths are shown from there, unless a turn runs. */
  reopen(cwd: string): void {
    if (cwd === this.cwd || this.turn || this.command) return;
    this.cwd = cwd;
    this.memory.resetTracker();
  }

  // ---- prompts ----------------------------------------------------------------------

  /**
   * Runs `fn` after every earlier queued prompt of this session finished, so
   * prompts never overlap and none is lost.
   */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** session/prompt: a slash command or a turn, one at a time; `$/cancel_request` on `signal`. */
  async prompt(blocks: readonly ContentBlock[], signal: AbortSignal): Promise<PromptResponse> {
    const batch = this.staged.batch();
    let input: ReturnType<typeof promptToInput>;
    try {
      input = promptToInput(blocks, { cwd: this.cwd, stage: batch.stage, maxWireBytes: this.deps.maxPromptWireBytes });
    } catch (err) {
      this.staged.discard(batch.paths);
      throw err;
    }
    const match = matchCommand(input.typed);
    // A slash command takes its words from the typed text alone: what was staged has no use.
    if (match) this.staged.discard(batch.paths);
    if (match?.command.runsBesideTurn) return runCommandBesideTurn(this, match.command, match.args);
    let started = false;
    const queued = this.exclusive(async (): Promise<PromptResponse> => {
      started = true;
      // Cancelled while it waited, the session is being closed, or the editor left: it never reaches ZCode.
      if (signal.aborted || this.winding) {
        this.staged.discard(batch.paths);
        return { stopReason: "cancelled" };
      }
      if (match) return runCommandPrompt(this, match.command, match.args, signal);
      this.tellUnavailableModel();
      const turn = new Turn(this, input);
      const onAbort = () => void this.cancel("editor");
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const answer = await turn.run();
        if (answer.stopReason === "end_turn") this.compactIfDue();
        return answer;
      } finally {
        signal.removeEventListener("abort", onAbort);
        // ZCode never had the prompt: nothing will read its files.
        if (!turn.reachedZCode) this.staged.discard(batch.paths);
      }
    });
    // A prompt still waiting for the one before it answers a cancel at once.
    const cancelledWhileQueued = new Promise<PromptResponse>((resolve) => {
      const onAbort = () => {
        if (!started) resolve({ stopReason: "cancelled" });
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    return Promise.race([queued, cancelledWhileQueued]);
  }

  /** --auto-compact: queued right behind the turn that filled the context, ahead of any prompt typed later. */
  private compactIfDue(): void {
    const threshold = this.deps.autoCompact;
    if (this.options.autoCompact?.on === false) return;
    if (!threshold || !compactionDue(threshold, this.lastUsage) || this.deps.closing()) return;
    void this.exclusive(() => compactInBackground(this, threshold)).catch((err) => logger.warn(`auto-compact of ${this.id} failed:`, err));
  }

  /**
   * The one place a turn or a slash command is ended early (see CancelReason).
   * Every reason ends what runs, withdraws what ZCode asks the editor, and
   * leaves the session usable; close also waits (bounded by
   * the cancel grace) for the turn to see ZCode's own end, because the
   * session's events stop being routed after that.
   */
  cancel(reason: CancelReason): Promise<void> {
    const turn = this.turn;
    turn?.cancel();
    this.command?.cancel();
    this.withdrawInteractions();
    if (reason === "close" && turn) return turn.settled;
    return Promise.resolve();
  }

  /** The child died: the running turn fails with `err`. */
  childDied(err: unknown): void {
    this.turn?.abort(err);
  }

  /** ACP session/close: our side forgets the session; ZCode keeps the conversation (its own close would delete it). */
  async close(): Promise<void> {
    // At once, before any await: a prompt right behind the close must find it closing.
    this.closing = true;
    await this.cancel("close");
    // Whatever was queued or started meanwhile answers (cancelled) before the close does.
    await this.exclusive(async () => {});
    await this.flush();
    this.closed = true;
    this.subagents.dispose();
    this.staged.discard();
  }

  /** The editor has gone: what was staged for this session has no reader left. */
  discardStaged(): void {
    this.staged.discard();
  }

  // ---- options ----------------------------------------------------------------------

  async setMode(mode: string): Promise<void> {
    validateChoice(this.options, "mode", mode);
    const r = await this.withActive(() => this.api.setMode({ sessionId: this.id, mode }));
    this.applyChoice("mode", r.settings?.mode?.current ?? mode);
  }

  async setThoughtLevel(level: string): Promise<void> {
    validateChoice(this.options, "thought", level);
    const r = await this.withActive(() => this.api.setThoughtLevel({ sessionId: this.id, thoughtLevel: level }));
    this.applyChoice("thought", r.settings?.thoughtLevel?.current ?? level);
  }

  /** session/setModel with the level the model needs; ZCode's settings afterwards are the truth. */
  async setModel(value: string, opts: { beforeOpen?: boolean } = {}): Promise<void> {
    if (value === this.options.model?.current) return;
    const { choice, info } = modelChoiceFor(this.options, value);
    const r = await this.withActive(() => this.api.setModel({ sessionId: this.id, model: choice })).catch((err: unknown) => {
      throw modelSwitchError(err, info, this.options);
    });
    this.chosenModel = choice;
    if (opts.beforeOpen) {
      // The editor does not know the session yet: the answer that opens it carries the options.
      if (r.settings) this.adoptSettings(r.settings);
      return;
    }
    if (r.settings) this.applySettings(r.settings);
    const used = this.memory.lastUsage?.used ?? 0;
    emitUsage(this.eventContext(), used, info.contextWindow);
  }

  /** session/set_config_option. */
  async setOption(configId: string, value: unknown): Promise<void> {
    const target = configTarget(configId, value);
    if (target === "autoCompact") return this.setAutoCompact(autoCompactValue(value));
    if (target === "mode") return this.setMode(value as string);
    if (target === "thought") return this.setThoughtLevel(value as string);
    return this.setModel(value as string);
  }

  /** The auto-compact switch of this session (the bridge's own setting: ZCode is not asked). */
  private setAutoCompact(on: boolean): void {
    const before = this.options;
    if (!before.autoCompact) throw invalidParams(t().errors.unknownOption("auto_compact"));
    this.options = { ...before, autoCompact: { ...before.autoCompact, on } };
    for (const u of optionUpdates(before, this.options)) this.emit(u);
  }

  /** ZCode took a new value: remember it and tell the editor what changed. */
  private applyChoice(key: "mode" | "thought", current: string): void {
    const before = this.options;
    this.options = withCurrent(before, key, current);
    for (const u of optionUpdates(before, this.options)) this.emit(u);
  }
}
