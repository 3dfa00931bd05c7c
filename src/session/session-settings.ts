import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { invalidParams } from "../translate/errors.ts";
import { emitUsage, type EventContext } from "../translate/events.ts";
import type { NoticeLevel } from "../translate/client-features.ts";
import type { TranslationMemory } from "../translate/memory.ts";
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
import type { ModelChoice, ZCodeApi } from "../zcode/api.ts";
import type { Snapshot } from "../zcode/result-schemas.ts";
import type { Settings } from "../zcode/schemas.ts";

const logger = log.withTag("session");

/** What the settings of a session need from it. */
export interface SettingsOwner {
  readonly id: string;
  readonly api: ZCodeApi;
  readonly memory: TranslationMemory;
  withActive<T>(fn: () => Promise<T>): Promise<T>;
  emit(u: Parameters<EventContext["emit"]>[0]): void;
  notice(level: NoticeLevel, text: string): void;
  eventContext(): EventContext;
}

/**
 * A session's mode, thought level, model and auto-compact switch: what ZCode
 * says they are (kept in the session's memory, which the editor was shown),
 * what the user chose (a model is chosen again after a resume that lost it),
 * and a current model ZCode no longer offers (logged once, told once).
 * The session owns one; the editor's and the commands' choices come here.
 */
export class SessionSettings {
  /** The model the user chose here: a resume in a new child may fall back to ZCode's default. */
  private chosenModel: ModelChoice | undefined;
  /** Current models found unavailable: logged once, and told once in a turn (per model, so a later one is told too). */
  private readonly unavailableLogged = new Set<string>();
  private readonly unavailableTold = new Set<string>();

  constructor(private readonly s: SettingsOwner) {}

  get options(): SessionOptions {
    return this.s.memory.options;
  }

  private set options(o: SessionOptions) {
    this.s.memory.options = o;
  }

  /** The model the user chose here, if any. */
  get modelChoice(): ModelChoice | undefined {
    return this.chosenModel;
  }

  /** A snapshot from create/resume/fork: options and title, without telling the editor (it asked). */
  adoptSnapshot(r: Snapshot): void {
    this.options = optionsFromSettings(r.settings, this.options);
    if (r.session.title) this.s.memory.learnTitle(r.session.title);
    this.checkModel();
  }

  /** After a resume: ZCode's settings, the user's model again if needed; only the net change is told. */
  async resumed(r: Snapshot): Promise<void> {
    // A model ZCode fell back to and we switch away from again never flickers in the menu.
    const before = this.options;
    if (r.settings) this.adoptSettings(r.settings);
    await this.reapplyModel(r.settings);
    for (const u of optionUpdates(before, this.options)) this.s.emit(u);
  }

  /** New settings from ZCode, remembered without telling the editor. */
  private adoptSettings(settings: Settings): void {
    this.options = optionsFromSettings(settings, this.options);
    this.checkModel();
  }

  /** New settings from ZCode: remember them and tell the editor what changed. */
  applySettings(settings: Settings): void {
    const next = optionsFromSettings(settings, this.options);
    for (const u of optionUpdates(this.options, next)) this.s.emit(u);
    this.options = next;
    this.checkModel();
  }

  /** A current model ZCode no longer offers goes to the log once; the menu marks it already. */
  private checkModel(): void {
    const info = unavailableCurrent(this.options);
    if (!info || this.unavailableLogged.has(info.value)) return;
    this.unavailableLogged.add(info.value);
    logger.warn(
      `session ${this.s.id}: its model ${info.value} is not offered by ZCode now (${info.disabledReason}); the user is told on the next prompt`,
    );
  }

  /** Before the first turn on such a model: one line saying so, apart from the turn's own message. */
  tellUnavailableModel(): void {
    const info = unavailableCurrent(this.options);
    if (!info || this.unavailableTold.has(info.value)) return;
    this.unavailableTold.add(info.value);
    this.s.notice("warning", unavailableNotice(info));
  }

  /** The user's model choice again, when the resumed session came back with another. */
  private async reapplyModel(settings: Settings | undefined): Promise<void> {
    const want = this.chosenModel;
    const cur = settings?.model?.current;
    if (!want || (cur && cur.providerId === want.providerId && cur.modelId === want.modelId)) return;
    try {
      const r = await this.s.api.setModel({ sessionId: this.s.id, model: want });
      if (r.settings) this.adoptSettings(r.settings);
      logger.info(`session ${this.s.id} came back with another model; ${want.providerId}/${want.modelId} chosen again`);
    } catch (err) {
      logger.warn(`could not choose ${want.providerId}/${want.modelId} again for session ${this.s.id}:`, err);
    }
  }

  async setMode(mode: string): Promise<void> {
    validateChoice(this.options, "mode", mode);
    const r = await this.s.withActive(() => this.s.api.setMode({ sessionId: this.s.id, mode }));
    this.applyChoice("mode", r.settings?.mode?.current ?? mode);
  }

  async setThoughtLevel(level: string): Promise<void> {
    validateChoice(this.options, "thought", level);
    const r = await this.s.withActive(() => this.s.api.setThoughtLevel({ sessionId: this.s.id, thoughtLevel: level }));
    this.applyChoice("thought", r.settings?.thoughtLevel?.current ?? level);
  }

  /** session/setModel with the level the model needs; ZCode's settings afterwards are the truth. */
  async setModel(value: string, opts: { beforeOpen?: boolean } = {}): Promise<void> {
    if (value === this.options.model?.current) return;
    const { choice, info } = modelChoiceFor(this.options, value);
    const r = await this.s
      .withActive(() => this.s.api.setModel({ sessionId: this.s.id, model: choice }))
      .catch((err: unknown) => {
        throw modelSwitchError(err, info, this.options);
      });
    this.chosenModel = choice;
    if (opts.beforeOpen) {
      // The editor does not know the session yet: the answer that opens it carries the options.
      if (r.settings) this.adoptSettings(r.settings);
      return;
    }
    if (r.settings) this.applySettings(r.settings);
    const used = this.s.memory.lastUsage?.used ?? 0;
    emitUsage(this.s.eventContext(), used, info.contextWindow);
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
    for (const u of optionUpdates(before, this.options)) this.s.emit(u);
  }

  /** ZCode took a new value: remember it and tell the editor what changed. */
  private applyChoice(key: "mode" | "thought", current: string): void {
    const before = this.options;
    this.options = withCurrent(before, key, current);
    for (const u of optionUpdates(before, this.options)) this.s.emit(u);
  }
}
