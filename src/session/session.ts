import type { ContentBlock, PromptResponse, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";
import type { GoalAction, ModelChoice, ZCodeApi, ZCodeMcpServer } from "../zcode/api.ts";
import type { ZCodeEvent } from "../zcode/event-schemas.ts";
import type { Env } from "../zcode/host.ts";
import type { GoalResult, Snapshot } from "../zcode/result-schemas.ts";
import type { Settings } from "../zcode/schemas.ts";
import { Activation, type ActivationOwner } from "./activation.ts";
import { StagedAttachments } from "./attachment-staging.ts";
import { applyEvent, type EventContext } from "../translate/events.ts";
import { noticeUpdate, type ClientFeatures, type NoticeLevel } from "../translate/client-features.ts";
import { EventIntake, type IntakeOwner } from "./intake.ts";
import { Subagents, subagentOwner } from "./subagents.ts";
import type { SessionOptions } from "../translate/options/options.ts";
import { sessionNotFound } from "../translate/errors.ts";
import { TranslationMemory } from "../translate/memory.ts";
import { ToolCallTracker } from "../translate/tools/tracker.ts";
import type { QuotaPort, SessionHost } from "./host.ts";
import { GoalPublisher } from "./goal-publisher.ts";
import { startGoalWork } from "./goal-work.ts";
import { SessionSettings } from "./session-settings.ts";
import type { CancelReason, SessionDeps } from "./deps.ts";
import { PromptQueue } from "./prompt-queue.ts";
import { runPrompt } from "./prompt-entry.ts";
import { SessionWork } from "./work.ts";
import type { Timings } from "./timings.ts";

const logger = log.withTag("session");

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
  /** Mode, thought level, model and auto-compact: ZCode's, the user's choice, and the menu. */
  readonly settings: SessionSettings;
  /** The goal as the goal extension publishes it. */
  readonly goal: GoalPublisher;
  /** The editor's MCP servers: ZCode takes them again on every resume. */
  private mcpServers: ZCodeMcpServer[] | undefined;
  /** The turn or command holding the session, and ZCode's leftovers of earlier ones. */
  readonly work: SessionWork;
  private closed = false;
  /** session/close has begun: nothing queued starts, nothing new is sent to ZCode. */
  private closing = false;
  /** session/delete under way (set before any await): as closing, and ZCode must never resume it. */
  deleting = false;
  /** Names of the slash commands last advertised to the editor. */
  private commandsKey: string | undefined;
  /** Prompts (and auto-compactions) one at a time, in order. */
  readonly queue = new PromptQueue();
  /** Files staged for ZCode by this session's prompts (they go with the session). */
  readonly staged: StagedAttachments;
  /** ZCode's subagents as child sessions, for a client that takes them. */
  private readonly subagents: Subagents;

  constructor(
    readonly id: string,
    public cwd: string,
    readonly deps: SessionDeps,
  ) {
    this.memory = new TranslationMemory(
      () => this.newTracker(),
      () => deps.features(),
    );
    this.settings = new SessionSettings(this);
    this.work = new SessionWork(id, deps.api);
    this.goal = new GoalPublisher(
      () => this.features.goal === true,
      (u) => this.emit(u),
    );
    if (deps.autoCompact) {
      this.memory.options = {
        autoCompact: { on: true, asBoolean: deps.features().booleanOptions, threshold: deps.autoCompactWords ?? "" },
      };
    }
    this.intake = new EventIntake(this, deps.api);
    this.activationState = new Activation(this, deps.api);
    this.staged = new StagedAttachments(deps.env);
    this.subagents = new Subagents(subagentOwner(this, deps));
  }

  /** Closed or being closed, or the editor has gone: nothing new may start. */
  get winding(): boolean {
    return this.closing || this.deleting || this.closed || this.deps.closing();
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

  get title(): string | undefined {
    return this.memory.title;
  }

  get tracker(): ToolCallTracker {
    return this.memory.tracker;
  }

  get quota(): QuotaPort | undefined {
    return this.deps.quota;
  }

  get lastUsage(): { used: number; size: number } | undefined {
    return this.memory.lastUsage;
  }

  /** The model the user chose here, if any. */
  get modelChoice(): ModelChoice | undefined {
    return this.settings.modelChoice;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** After a cancel whose end ZCode did not confirm, the next send waits for idle. */
  get idleWaitDue(): boolean {
    return this.work.idleWaitDue;
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

  /** Reads ZCode's goal now and publishes it (after a goal command). */
  async refreshGoal(): Promise<void> {
    const r = await this.withActive(() => this.api.read(this.id));
    this.goal.publish(r.projection?.target ?? null);
    await this.flush();
  }

  /** refreshGoal where a failed read only costs a stale goal panel (logged). */
  async refreshGoalQuietly(): Promise<void> {
    if (this.isClosed) return;
    await this.refreshGoal().catch((err) => logger.debug("reading the goal failed:", err));
  }

  /** `_session/goal` set/resume: answers once ZCode took the goal; the work toward it runs as the session's turn (goal-work.ts). */
  startGoal(goal: { action: GoalAction; objective?: string | undefined }): Promise<GoalResult> {
    return startGoalWork(this, this.queue, goal);
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

  /** What ZCode asks now belongs to a cancelled turn (see SessionWork). */
  get refusesInteractions(): boolean {
    return this.work.refusesInteractions;
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
    // Deleted (or being deleted): a late read's eviction must not bring it back in ZCode.
    if (this.deleting) return Promise.reject(sessionNotFound(this.id));
    return this.api.resume({ sessionId: this.id, workspace: this.cwd, mcpServers: this.mcpServers });
  }

  async resumed(r: Snapshot): Promise<void> {
    await this.settings.resumed(r);
    this.deps.onResumed(this.id);
  }

  materializedAgain(): void {
    this.intake.reset();
  }

  /** An event in seq order: the running turn's, or one that arrives between turns. */
  dispatch(e: ZCodeEvent): void {
    this.work.dispatch(e, (x) => this.applyOutsideTurn(x));
  }

  /** An event that is not (or no longer) part of one of our prompt turns. */
  applyOutsideTurn(e: ZCodeEvent): void {
    if (e.type === "turn.started") this.work.zcodeTurnStarted(e.payload.foregroundExecutionId);
    else if (e.type === "turn.completed" || e.type === "turn.failed") this.work.zcodeTurnEnded();
    if (this.work.leftoversExpected) return;
    applyEvent(this.eventContext(), e);
  }

  eventContext(): EventContext {
    return { session: this.memory, emit: (u) => this.emit(u), subagents: this.subagents, steerHeld: (id) => this.dropHeldSteer(id) };
  }

  /** A steer ZCode holds in its paused queue is removed there: it must never run unasked, nor block the next v4 input. */
  private dropHeldSteer(queueItemId: string): void {
    this.withActive(() => this.api.deleteQueueItem({ sessionId: this.id, queueItemId })).catch((err) =>
      logger.warn(`could not remove a held steer from ZCode's queue (session ${this.id}):`, err),
    );
  }

  /** A turn runs now (the acp surface and tests ask). */
  turnRunning(): boolean {
    return this.work.turnRunning();
  }

  /** A turn or a slash command holds the session. */
  isBusy(): boolean {
    return this.work.isBusy();
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

  /** A snapshot from create/resume/fork: options and title, without telling the editor (it asked). */
  adoptSnapshot(r: Snapshot): void {
    this.settings.adoptSnapshot(r);
  }

  /** New settings from ZCode: remember them and tell the editor what changed. */
  applySettings(settings: Settings): void {
    this.settings.applySettings(settings);
  }

  /** The same session opened again (by load or resume) in `cwd`: paths are shown from there, unless a turn runs. */
  reopen(cwd: string): void {
    if (cwd === this.cwd || this.work.isBusy()) return;
    this.cwd = cwd;
    this.memory.resetTracker();
  }

  // ---- prompts ----------------------------------------------------------------------

  /** session/prompt: a slash command or a turn, one at a time; `$/cancel_request` on `signal` (prompt-entry.ts). */
  prompt(blocks: readonly ContentBlock[], signal: AbortSignal): Promise<PromptResponse> {
    return runPrompt(this, blocks, signal);
  }

  /**
   * The one place a turn or a slash command is ended early (see CancelReason).
   * Every reason ends what runs, withdraws what ZCode asks the editor, and
   * leaves the session usable; close also waits (bounded by
   * the cancel grace) for the turn to see ZCode's own end, because the
   * session's events stop being routed after that.
   */
  cancel(reason: CancelReason): Promise<void> {
    const ended = this.work.cancel(reason === "close");
    this.withdrawInteractions();
    return ended;
  }

  /** The child died: the running turn fails with `err`. */
  childDied(err: unknown): void {
    this.work.childDied(err);
  }

  /** ACP session/close: our side forgets the session; ZCode keeps it live (its own close would end its runtime). */
  async close(): Promise<void> {
    // At once, before any await: a prompt right behind the close must find it closing.
    this.closing = true;
    await this.drain();
    this.closed = true;
    this.subagents.dispose();
    this.staged.discard();
  }

  /** Ends what runs; whatever was queued or started meanwhile answers (cancelled) before this resolves. */
  async drain(): Promise<void> {
    await this.cancel("close");
    await this.queue.run(async () => {});
    await this.flush();
  }

  /** The editor has gone: what was staged for this session has no reader left. */
  discardStaged(): void {
    this.staged.discard();
  }

  // ---- options (the session's settings decide) -----------------------------------------

  setMode(mode: string): Promise<void> {
    return this.settings.setMode(mode);
  }

  setThoughtLevel(level: string): Promise<void> {
    return this.settings.setThoughtLevel(level);
  }

  setModel(value: string, opts: { beforeOpen?: boolean } = {}): Promise<void> {
    return this.settings.setModel(value, opts);
  }

  /** session/set_config_option. */
  setOption(configId: string, value: unknown): Promise<void> {
    return this.settings.setOption(configId, value);
  }
}
