import type { SessionConfigOption, SessionModeState, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { t } from "../../i18n/index.ts";
import type { ModelChoice } from "../../zcode/api.ts";
import { modelValue } from "../../zcode/model-ref.ts";
import type { ModelOption, Settings, ValueLabel } from "../../zcode/schemas.ts";
import { invalidParams } from "../errors.ts";

// A session's mode, model and thought level as the editor sees them (ACP
// modes and config options), built from ZCode's settings and kept in sync.

// ZCode's settings name the current mode only; these are the modes its schema knows.
const KNOWN_MODES = ["plan", "build", "edit", "yolo", "guarded", "auto"] as const;

/** The known modes, named in the language in use. */
function knownModes(): ValueLabel[] {
  const names = t().bridge.options.modes;
  return KNOWN_MODES.map((value) => ({ value, label: names[value] }));
}

export const CONFIG_IDS = { mode: "mode", model: "model", thought: "thought_level", autoCompact: "auto_compact" } as const;

export interface Choice {
  value: string;
  name: string;
  description?: string;
}

/** A model ZCode offers, as the bridge keeps it (its option value parses back to the selection). */
export interface ModelInfo {
  value: string;
  providerId: string;
  modelId: string;
  label: string;
  providerLabel?: string;
  levels: ValueLabel[];
  defaultLevel?: string;
  contextWindow?: number;
  disabledReason?: string;
}

/** The parts of ZCode's settings the ACP surface exposes, normalised. */
export interface SessionOptions {
  mode?: { current: string; choices: Choice[] };
  model?: {
    current: string;
    choices: Choice[];
    /** Every model known for the session (create/resume answers list them all; reads only the current one). */
    models: ModelInfo[];
    /** The current model's context window, for usage figures that come without one. */
    contextWindow?: number;
  };
  thought?: { current: string; choices: Choice[] };
  /**
   * --auto-compact's per-session switch (present only when a threshold is
   * set): a boolean option for a client that takes them, else an on/off select.
   */
  autoCompact?: { on: boolean; asBoolean: boolean; threshold: string };
}

function titleCase(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

function choicesOf(available: readonly ValueLabel[], current: string | undefined): Choice[] {
  const list: Choice[] = [];
  const seen = new Set<string>();
  const add = (value: string, name?: string) => {
    if (seen.has(value)) return;
    seen.add(value);
    list.push({ value, name: name || titleCase(value) });
  };
  for (const a of available) add(a.value, a.label);
  if (current) add(current);
  return list;
}

function modelInfo(m: ModelOption): ModelInfo {
  const { providerId, modelId } = m.ref;
  return {
    value: modelValue(providerId, modelId),
    providerId,
    modelId,
    label: m.label || modelId,
    ...(m.providerLabel ? { providerLabel: m.providerLabel } : {}),
    levels: m.reasoning?.levels ?? [],
    ...(m.reasoning?.defaultLevel ? { defaultLevel: m.reasoning.defaultLevel } : {}),
    ...(typeof m.contextWindow === "number" && m.contextWindow > 0 ? { contextWindow: m.contextWindow } : {}),
    ...(m.disabledReason ? { disabledReason: m.disabledReason } : {}),
  };
}

/**
 * Why a current model that left ZCode's list (provider removed, plan changed)
 * cannot be chosen again: a marker in `disabledReason`, named in the user's
 * language where it is shown (bridge.options.notOffered).
 */
export const NOT_OFFERED = "no longer offered";

/** Menu entries: usable models, named by label, "Provider › label" where two providers share a label. */
function modelChoices(models: readonly ModelInfo[], current: string): Choice[] {
  const usable = models.filter((m) => !m.disabledReason || m.value === current);
  const byLabel = new Map<string, number>();
  for (const m of usable) byLabel.set(m.label, (byLabel.get(m.label) ?? 0) + 1);
  return usable.map((m) => {
    const shared = (byLabel.get(m.label) ?? 0) > 1;
    const base = shared ? `${m.providerLabel ?? m.providerId} › ${m.label}` : m.label;
    // Only the current model can be unusable here: said in its name, which every menu shows.
    const words = t().bridge.options;
    const gone = m.disabledReason === NOT_OFFERED;
    const name = m.disabledReason ? `${base} (${gone ? words.notOffered : words.unavailable})` : base;
    const notes = [
      m.disabledReason ? words.unavailableWhy(gone ? words.notOffered : m.disabledReason) : undefined,
      shared ? undefined : m.providerLabel,
    ];
    const description = notes.filter((n): n is string => !!n).join(" · ");
    return { value: m.value, name, ...(description ? { description } : {}) };
  });
}

/**
 * Options from ZCode's settings. `previous` keeps the model catalogue that a
 * read (which lists only the current model) does not repeat.
 */
export function optionsFromSettings(settings: Settings | undefined, previous?: SessionOptions): SessionOptions {
  const out: SessionOptions = {};
  const mode = settings?.mode?.current;
  if (mode) out.mode = { current: mode, choices: choicesOf(knownModes(), mode) };

  const cur = settings?.model?.current;
  const fresh = (settings?.model?.available ?? []).map(modelInfo);
  const known = new Map((previous?.model?.models ?? []).map((m) => [m.value, m]));
  for (const m of fresh) known.set(m.value, m);
  const models = [...known.values()];
  if (cur) {
    const value = modelValue(cur.providerId, cur.modelId);
    let info = known.get(value);
    if (!info) {
      // The current model left ZCode's list (provider removed, plan changed): still shown, marked.
      // Only a list proves that: with no entry we could read, nothing is known to be gone.
      const gone = models.length > 0;
      info = {
        value,
        providerId: cur.providerId,
        modelId: cur.modelId,
        label: cur.modelId,
        levels: [],
        ...(gone ? { disabledReason: NOT_OFFERED } : {}),
      };
      models.push(info);
    }
    out.model = {
      current: value,
      choices: modelChoices(models, value),
      models,
      ...(info.contextWindow ? { contextWindow: info.contextWindow } : {}),
    };
  } else if (previous?.model) {
    out.model = previous.model;
  }
  if (previous?.autoCompact) out.autoCompact = previous.autoCompact;

  const tl = settings?.thoughtLevel;
  const currentModel = out.model ? known.get(out.model.current) : undefined;
  // The levels follow the model: a model without levels has no thought level to choose.
  const levels = currentModel?.levels.length ? currentModel.levels : (tl?.available ?? []);
  const level = tl?.current ?? cur?.options?.reasoningLevel ?? tl?.defaultLevel ?? currentModel?.defaultLevel;
  if (tl?.enabled !== false && level && levels.length > 0) out.thought = { current: level, choices: choicesOf(levels, level) };
  return out;
}

/** The same options with `key`'s current value changed (a value not listed yet is added). */
export function withCurrent(o: SessionOptions, key: "mode" | "thought", value: string): SessionOptions {
  const opt = o[key];
  const choices = opt ? [...opt.choices] : [];
  if (!choices.some((c) => c.value === value)) choices.push({ value, name: titleCase(value) });
  return { ...o, [key]: { current: value, choices } };
}

export function modeState(o: SessionOptions): SessionModeState | undefined {
  if (!o.mode) return undefined;
  return {
    currentModeId: o.mode.current,
    availableModes: o.mode.choices.map((c) => ({ id: c.value, name: c.name })),
  };
}

export function configOptions(o: SessionOptions): SessionConfigOption[] {
  const out: SessionConfigOption[] = [];
  const select = (id: string, name: string, category: string, v: { current: string; choices: Choice[] }, description?: string) =>
    out.push({
      id,
      name,
      category,
      type: "select",
      currentValue: v.current,
      options: v.choices.map((c) => ({ value: c.value, name: c.name, ...(c.description ? { description: c.description } : {}) })),
      ...(description ? { description } : {}),
    });
  const words = t().bridge.options;
  if (o.mode) select(CONFIG_IDS.mode, words.mode, "mode", o.mode, words.modeDescription);
  if (o.model) select(CONFIG_IDS.model, words.model, "model", o.model, words.modelDescription);
  if (o.thought) select(CONFIG_IDS.thought, words.thought, "thought_level", o.thought, words.thoughtDescription);
  const ac = o.autoCompact;
  if (ac) {
    const base = { id: CONFIG_IDS.autoCompact, name: words.autoCompact, description: words.autoCompactDescription(ac.threshold) };
    if (ac.asBoolean) out.push({ ...base, type: "boolean", currentValue: ac.on } as SessionConfigOption);
    else {
      out.push({
        ...base,
        type: "select",
        currentValue: ac.on ? "on" : "off",
        options: [
          { value: "on", name: words.on },
          { value: "off", name: words.off },
        ],
      });
    }
  }
  return out;
}

/** modes + configOptions, as new/load/resume/fork responses carry them. */
export function sessionSetup(o: SessionOptions): { modes?: SessionModeState; configOptions: SessionConfigOption[] } {
  const modes = modeState(o);
  return { ...(modes ? { modes } : {}), configOptions: configOptions(o) };
}

function optionsKey(o: SessionOptions): string {
  return JSON.stringify(configOptions(o));
}

/** The updates that tell the editor the options changed (Zed ignores the mode update when configOptions exist). */
export function optionUpdates(before: SessionOptions, after: SessionOptions): SessionUpdate[] {
  if (optionsKey(before) === optionsKey(after)) return [];
  const updates: SessionUpdate[] = [{ sessionUpdate: "config_option_update", configOptions: configOptions(after) }];
  if (after.mode && before.mode?.current !== after.mode.current) {
    updates.push({ sessionUpdate: "current_mode_update", currentModeId: after.mode.current });
  }
  return updates;
}

export function validateChoice(o: SessionOptions, key: "mode" | "thought", value: string): void {
  const opt = o[key];
  if (!opt) throw invalidParams(t().errors.noOption(key));
  if (!opt.choices.some((c) => c.value === value)) {
    throw invalidParams(
      t().errors.notAChoice(
        value,
        key,
        opt.choices.map((c) => c.value),
      ),
    );
  }
}

/** The auto-compact switch's new value: a boolean, or the select's "on"/"off". */
export function autoCompactValue(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (value === "on" || value === "off") return value === "on";
  throw invalidParams(t().errors.optionTakesListed(CONFIG_IDS.autoCompact));
}

/** session/set_config_option's option: which setting it changes, its value checked to be a string. */
export function configTarget(configId: string, value: unknown): "mode" | "thought" | "model" | "autoCompact" {
  if (configId === CONFIG_IDS.autoCompact) return "autoCompact";
  if (typeof value !== "string") throw invalidParams(t().errors.optionTakesListed(configId));
  if (configId === CONFIG_IDS.mode) return "mode";
  if (configId === CONFIG_IDS.thought) return "thought";
  if (configId === CONFIG_IDS.model) return "model";
  throw invalidParams(t().errors.unknownOption(configId));
}

/**
 * The selection session/setModel needs for `value`: a level-bearing model
 * must be given a level, the one the user has when the model offers it,
 * else the model's default.
 */
export function modelChoiceFor(o: SessionOptions, value: string): { choice: ModelChoice; info: ModelInfo } {
  const info = o.model?.models.find((m) => m.value === value);
  if (!info || (info.disabledReason && value !== o.model?.current)) {
    throw invalidParams(t().errors.notAModel(value, o.model?.choices.map((c) => c.value) ?? []));
  }
  const choice: ModelChoice = { providerId: info.providerId, modelId: info.modelId };
  const levels = info.levels.map((l) => l.value);
  if (levels.length > 0) {
    const wanted = o.thought?.current;
    const level = wanted && levels.includes(wanted) ? wanted : (info.defaultLevel ?? levels[levels.length - 1]!);
    choice.options = { reasoningLevel: level };
  }
  return { choice, info };
}
