import {
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
  type SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import type { Settings } from "../zcode/schemas.ts";

// Modes and thought levels ZCode is known to offer, used when a settings
// object names the current value but not the alternatives.
const KNOWN_MODES = ["plan", "build", "edit", "yolo", "auto"];
const KNOWN_LEVELS = ["low", "medium", "high", "max"];

export const CONFIG_IDS = { mode: "mode", model: "model", thought: "thought_level" } as const;

type Choice = { value: string; name: string };

function titleCase(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

function choices(
  current: string | undefined,
  available: ReadonlyArray<{ value?: unknown; label?: unknown }> | undefined,
  known: readonly string[],
): Choice[] {
  const list: Choice[] = [];
  const seen = new Set<string>();
  const add = (value: string, name?: string) => {
    if (seen.has(value)) return;
    seen.add(value);
    list.push({ value, name: name || titleCase(value) });
  };
  if (available && available.length) {
    for (const a of available) if (typeof a.value === "string") add(a.value, typeof a.label === "string" ? a.label : undefined);
  } else {
    for (const k of known) add(k);
  }
  if (current) add(current);
  return list;
}

/** The parts of ZCode's settings the ACP surface exposes, normalised. */
export interface SessionOptions {
  mode?: { current: string; choices: Choice[] };
  model?: { current: string; choices: Choice[] };
  thought?: { current: string; choices: Choice[] };
}

export function optionsFromSettings(settings: Settings | undefined): SessionOptions {
  const s = (settings ?? {}) as Record<string, any>;
  const out: SessionOptions = {};
  const mode = s.mode?.current;
  if (typeof mode === "string") out.mode = { current: mode, choices: choices(mode, s.mode?.available, KNOWN_MODES) };
  const model = s.model?.current;
  const modelId = typeof model === "string" ? model : model?.modelId;
  if (typeof modelId === "string") {
    // ZCode's protocol has no method to switch models (the app chooses), so
    // the editor is shown the current model as the only choice rather than a
    // menu whose every other entry would fail.
    const label = Array.isArray(s.model?.available)
      ? s.model.available.find((m: any) => m?.modelId === modelId)?.label
      : undefined;
    out.model = { current: modelId, choices: choices(modelId, [{ value: modelId, label }], []) };
  }
  const level = s.thoughtLevel?.current;
  if (typeof level === "string") {
    out.thought = { current: level, choices: choices(level, s.thoughtLevel?.available, KNOWN_LEVELS) };
  }
  return out;
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
      options: v.choices.map((c) => ({ value: c.value, name: c.name })),
      ...(description ? { description } : {}),
    });
  if (o.mode) select(CONFIG_IDS.mode, "Mode", "mode", o.mode, "How much ZCode may do without asking");
  if (o.model) select(CONFIG_IDS.model, "Model", "model", o.model, "Chosen in the ZCode app");
  if (o.thought) select(CONFIG_IDS.thought, "Thought level", "thought_level", o.thought, "How much the model reasons");
  return out;
}

/** modes + configOptions, as new/load/resume/fork responses carry them. */
export function sessionSetup(o: SessionOptions): { modes?: SessionModeState; configOptions: SessionConfigOption[] } {
  const modes = modeState(o);
  return { ...(modes ? { modes } : {}), configOptions: configOptions(o) };
}

/** The updates that tell the editor the options changed (Zed ignores the mode update when configOptions exist). */
export function optionUpdates(before: SessionOptions, after: SessionOptions): SessionUpdate[] {
  const changed =
    before.mode?.current !== after.mode?.current ||
    before.thought?.current !== after.thought?.current ||
    before.model?.current !== after.model?.current;
  if (!changed) return [];
  const updates: SessionUpdate[] = [{ sessionUpdate: "config_option_update", configOptions: configOptions(after) }];
  if (after.mode && before.mode?.current !== after.mode.current) {
    updates.push({ sessionUpdate: "current_mode_update", currentModeId: after.mode.current });
  }
  return updates;
}

export function validateChoice(o: SessionOptions, key: keyof SessionOptions, value: string): void {
  const opt = o[key];
  if (!opt) throw RequestError.invalidParams(undefined, `this session has no ${key} option`);
  if (!opt.choices.some((c) => c.value === value)) {
    throw RequestError.invalidParams(
      undefined,
      `"${value}" is not a valid ${key}; choose one of: ${opt.choices.map((c) => c.value).join(", ")}`,
    );
  }
}
