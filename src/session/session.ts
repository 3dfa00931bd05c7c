import type { AvailableCommand, ContentBlock, PromptResponse, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { matchCommand } from "../commands/registry.ts";
import type { AutoCompact } from "../config.ts";
import { log } from "../log.ts";
import type { ModelChoice, ZCodeApi, ZCodeMcpServer } from "../zcode/api.ts";
import type { ZCodeEvent } from "../zcode/event-schemas.ts";
import type { Env } from "../zcode/host.ts";
import type { Snapshot } from "../zcode/result-schemas.ts";
import type { Settings } from "../zcode/schemas.ts";
import { Activation, type ActivationOwner } from "./activation.ts";
import { StagedAttachments } from "./attachment-staging.ts";
import { compactInBackground, compactionDue } from "./auto-compact.ts";
import { runCommandBesideTurn, runCommandPrompt } from "./command-run.ts";
import { applyEvent, emitUsage, type EventContext } from "../translate/events.ts";
import { EventIntake, type IntakeOwner } from "./intake.ts";
import { modelSwitchError, unavailableCurrent, unavailableNotice } from "../translate/options/model-notice.ts";
import { configTarget, modelChoiceFor, optionsFromSettings, optionUpdates, validateChoice, withCurrent, type SessionOptions } from "../translate/options/options.ts";
import { promptToInput } from "../translate/prompt-content.ts";
import { ToolCallTracker } from "../translate/tools/tracker.ts";
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
  /** Withdraws the session's open permission and question prompts. */
  withdrawInteractions(sessionId: string): void;
  /** The slash menu in `cwd` (depends on the running CLI and the user's skills there). */
  commands(cwd: string): AvailableCommand[];
  /** --auto-compact: the context use after which a turn is followed by a compaction. */
  autoCompact?: AutoCompact;
  /** The editor has gone: nothing new may start. */
  closing(): boolean;
  /** The most a prompt may be as sent to ZCode (config.ts promptWireLimit). */
  maxPromptWireBytes?: number;
  /** A title the editor is told (the ZCode app's history follows it). */
  titleKnown(sessionId: string, title: string): void;
  /** Resumed in a (possibly new) child behind the editor's back. */
  onResumed(s: Session): void;
}

/**
 * Why a turn or a command ends early:
 * - editor: session/cancel, or `$/cancel_request` on the prompt;
 * - close: ACP session/close (the conversation stays in ZCode);
 * - editor-gone: stdin closed; nothing new may start after it;
 * - replaced: the session is forgotten under a running turn.
 */
export type CancelReason = "editor" | "close" | "editor-gone" | "replaced";

/** A slash command holding the session's queue. */
export interface RunningCommand {
  cancel(): void;
}

/**
 * One ACP session = one ZCode session (same id, so list/load/resume work
 * across bridge restarts without an alias store). The session owns its
 * behaviour: prompts (turns or slash commands, one at a time), cancel, close,
 * options, and what the editor is told about it. Its events enter through
 * its intake; whether ZCode has it in memory is its activation's business.
 */
export class Session implements IntakeOwner, ActivationOwner {
  readonly intake: EventIntake;
  readonly activationState: Activation;
  options: SessionOptions = {};
  title: string | undefined;
  tracker: ToolCallTracker;
  /** Message ids of the current agent message and thought (one per contiguous run). */
  messageIds: { text?: string; reasoning?: string } = {};
  /** JSON of the last plan sent, so an unchanged todo list is not re-sent. */
  lastPlanKey: string | undefined;
  /** The context figures of the last usage_update sent. */
  lastUsage: { used: number; size: number } | undefined;
  /** The editor's MCP servers: ZCode takes them again on every resume. */
  mcpServers: ZCodeMcpServer[] | undefined;
  /** The model the user chose here: a resume in a new child may fall back to ZCode's default. */
  modelChoice: ModelChoice | undefined;
  /** The running prompt turn, if any. */
  turn: Turn | undefined;
  /** The slash command holding the queue, if any. */
  command: RunningCommand | undefined;
  /** After a turn whose end we did not see: wait for ZCode to be idle before the next send. */
  needsIdleWait = false;
  /** Drop events that are not the next turn's (leftovers of a cancelled or failed turn). */
  dropStale = false;
  closed = false;
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

  constructor(
    readonly id: string,
    public cwd: string,
    private readonly deps: SessionDeps,
  ) {
    this.tracker = this.newTracker();
    this.intake = new EventIntake(this, deps.api);
    this.activationState = new Activation(this, deps.api);
    this.staged = new StagedAttachments(deps.env);
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

  private newTracker(): ToolCallTracker {
    return new ToolCallTracker({ cwd: this.cwd, terminalOutput: this.deps.terminalOutput() });
  }

  // ---- the editor side -----------------------------------------------------

  emit(u: SessionUpdate): void {
    if (this.closed) return;
    this.deps.sink.push(this.id, u);
    if (u.sessionUpdate === "session_info_update" && u.title) this.deps.titleKnown(this.id, u.title);
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
    else this.applyIdle(e);
  }

  /** An event that is not (or no longer) part of one of our prompt turns. */
  applyIdle(e: ZCodeEvent): void {
    if (this.dropStale) return;
    applyEvent(this.eventContext(), e);
  }

  eventContext(): EventContext {
    return { session: this, emit: (u) => this.emit(u) };
  }

  // ---- settings and reads ------------------------------------------------------

  /** A snapshot from create/resume/fork: options, title and context use, without telling the editor (it asked). */
  adoptSnapshot(r: Snapshot): void {
    this.options = optionsFromSettings(r.settings, this.options);
    if (r.session.title) this.title = r.session.title;
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
    logger.warn(`session ${this.id}: its model ${info.value} is not offered by ZCode now (${info.disabledReason}); the user is told on the next prompt`);
  }

  /** Before the first turn on such a model: one line saying so, apart from the turn's own message. */
  private tellUnavailableModel(): void {
    const info = unavailableCurrent(this.options);
    if (!info || this.unavailableTold.has(info.value)) return;
    this.unavailableTold.add(info.value);
    this.emit({ sessionUpdate: "agent_message_chunk", messageId: crypto.randomUUID(), content: { type: "text", text: unavailableNotice(info) } });
  }

  /** The user's model choice again, when the resumed session came back with another. */
  private async reapplyModel(settings: Settings | undefined): Promise<void> {
    const want = this.modelChoice;
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
    this.tracker = this.newTracker();
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
    const match = matchCommand(input.typed, this.api.capabilities());
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
    if (!threshold || !compactionDue(threshold, this.lastUsage) || this.deps.closing()) return;
    void this.exclusive(() => compactInBackground(this, threshold)).catch((err) => logger.warn(`auto-compact of ${this.id} failed:`, err));
  }

  /**
   * The one place a turn or a slash command is ended early (see CancelReason).
   * Every reason ends what runs, withdraws what ZCode asks the editor, and
   * leaves the session usable; close and replacement also wait (bounded by
   * the cancel grace) for the turn to see ZCode's own end, because the
   * session's events stop being routed after that.
   */
  cancel(reason: CancelReason): Promise<void> {
    const turn = this.turn;
    turn?.cancel();
    this.command?.cancel();
    this.withdrawInteractions();
    if ((reason === "close" || reason === "replaced") && turn) return turn.settled;
    return Promise.resolve();
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
    this.modelChoice = choice;
    if (opts.beforeOpen) {
      // The editor does not know the session yet: the answer that opens it carries the options.
      if (r.settings) this.adoptSettings(r.settings);
      return;
    }
    if (r.settings) this.applySettings(r.settings);
    const used = this.lastUsage?.used ?? 0;
    emitUsage(this.eventContext(), used, info.contextWindow);
  }

  /** session/set_config_option. */
  async setOption(configId: string, value: unknown): Promise<void> {
    const target = configTarget(configId, value);
    if (target === "mode") return this.setMode(value as string);
    if (target === "thought") return this.setThoughtLevel(value as string);
    return this.setModel(value as string);
  }

  /** ZCode took a new value: remember it and tell the editor what changed. */
  private applyChoice(key: "mode" | "thought", current: string): void {
    const before = this.options;
    this.options = withCurrent(before, key, current);
    for (const u of optionUpdates(before, this.options)) this.emit(u);
  }
}
