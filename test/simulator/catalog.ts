// The model catalogue the simulated CLI offers, and the setModel rules.
// Shapes are ZCode's `zcodeModelOptionSchema`; the entries are invented but
// realistic [GUESSED: real catalogues depend on the account]: two providers,
// one model offered by both under the same label, a model without reasoning
// levels, a disabled one, different context windows.

export interface Level {
  value: string;
  label: string;
}

export interface ModelEntry {
  ref: { providerId: string; modelId: string };
  label: string;
  providerLabel?: string;
  description?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  reasoning?: { levels: Level[]; defaultLevel?: string };
  properties: Record<string, unknown>;
  disabledReason?: string;
}

export interface ModelSel {
  providerId: string;
  modelId: string;
  options?: { reasoningLevel?: string };
}

const L = (value: string): Level => ({ value, label: value[0]!.toUpperCase() + value.slice(1) });
const LMH = [L("low"), L("high"), L("max")];

export const ZAI = "builtin:zai-coding-plan";
export const BIGMODEL = "account:bigmodel-individual-coding-plan";

export const MODELS: ModelEntry[] = [
  {
    ref: { providerId: ZAI, modelId: "GLM-5.3" },
    label: "GLM-5.3",
    providerLabel: "Z.ai Coding Plan",
    contextWindow: 200000,
    maxOutputTokens: 128000,
    reasoning: { levels: LMH, defaultLevel: "max" },
    properties: {},
  },
  {
    ref: { providerId: ZAI, modelId: "GLM-4.7" },
    label: "GLM-4.7",
    providerLabel: "Z.ai Coding Plan",
    description: "Previous generation, faster",
    contextWindow: 128000,
    maxOutputTokens: 64000,
    reasoning: { levels: [L("low"), L("high")], defaultLevel: "high" },
    properties: {},
  },
  {
    ref: { providerId: ZAI, modelId: "GLM-4.5-Air" },
    label: "GLM-4.5-Air",
    providerLabel: "Z.ai Coding Plan",
    contextWindow: 128000,
    maxOutputTokens: 32000,
    properties: {},
  },
  {
    ref: { providerId: BIGMODEL, modelId: "GLM-5.3" },
    label: "GLM-5.3",
    providerLabel: "BigModel Coding Plan",
    contextWindow: 200000,
    maxOutputTokens: 128000,
    reasoning: { levels: LMH, defaultLevel: "max" },
    properties: {},
  },
  {
    ref: { providerId: BIGMODEL, modelId: "GLM-5.3-1M" },
    label: "GLM-5.3 (1M context)",
    providerLabel: "BigModel Coding Plan",
    contextWindow: 1000000,
    maxOutputTokens: 128000,
    reasoning: { levels: LMH, defaultLevel: "high" },
    properties: {},
    disabledReason: "Not included in your current plan",
  },
];

export const DEFAULT_MODEL: ModelSel = { providerId: ZAI, modelId: "GLM-5.3", options: { reasoningLevel: "max" } };

/**
 * Test knobs over the catalogue, set once at start-up (main.ts), each a list
 * of `provider/model`: withdrawn ones are left out of every model list (a
 * provider removed: a session may still be on one); disabled ones carry
 * DISABLED_BY_KNOB as their disabledReason; setModel to a failing one is
 * refused as a provider outage would be.
 */
export interface CatalogKnobs {
  withdrawn: string[];
  disabled: string[];
  setModelFails: string[];
}

let knobs: CatalogKnobs = { withdrawn: [], disabled: [], setModelFails: [] };

export function setCatalogKnobs(k: CatalogKnobs): void {
  knobs = k;
}

export const DISABLED_BY_KNOB = "Switched off in the ZCode app";

const keyOf = (ref: { providerId: string; modelId: string }) => `${ref.providerId}/${ref.modelId}`;

export function findModel(ref: { providerId: string; modelId: string }): ModelEntry | undefined {
  const m = MODELS.find((x) => x.ref.providerId === ref.providerId && x.ref.modelId === ref.modelId);
  if (m && m.disabledReason === undefined && knobs.disabled.includes(keyOf(ref))) return { ...m, disabledReason: DISABLED_BY_KNOB };
  return m;
}

export function isWithdrawn(ref: { providerId: string; modelId: string }): boolean {
  return knobs.withdrawn.includes(keyOf(ref));
}

/** `settings.model.available` of a full snapshot. */
export function offeredModels(): ModelEntry[] {
  return MODELS.filter((m) => !isWithdrawn(m.ref)).map((m) => findModel(m.ref)!);
}

export const isAccountProvider = (providerId: string) => providerId.startsWith("account:");

/** A plain Error that the server turns into -32603 with `data {name, code}`, as app.setModel's errors. */
export class ModelProtocolError extends Error {
  constructor(
    message: string,
    readonly code: "invalid_model_request" | "model_not_found" | "provider_unavailable",
  ) {
    super(message);
    this.name = "ModelProtocolError";
  }
}

/**
 * What app.setModel accepts: a known, enabled model; a level-bearing model
 * needs `options.reasoningLevel` and it must be one of its levels. The texts
 * come from a third-party account of the Node CLI [GUESSED wording].
 */
export function checkModelSelection(sel: ModelSel): { entry: ModelEntry; level?: string } {
  const name = `${sel.providerId}/${sel.modelId}`;
  const entry = findModel(sel);
  if (!entry || entry.disabledReason !== undefined || isWithdrawn(sel))
    throw new ModelProtocolError(`Provider Registry 中不存在 Model: ${name}`, "model_not_found");
  // [GUESSED wording] what a provider that cannot be reached answers.
  if (knobs.setModelFails.includes(name))
    throw new ModelProtocolError(`Provider ${sel.providerId} is unavailable: connection refused`, "provider_unavailable");
  const level = sel.options?.reasoningLevel;
  if (entry.reasoning && entry.reasoning.levels.length > 0) {
    if (level === undefined) throw new ModelProtocolError(`Reasoning level is required for ${name}`, "invalid_model_request");
    if (!entry.reasoning.levels.some((l) => l.value === level))
      throw new ModelProtocolError(`Reasoning effort "${level}" is not supported by ${name}`, "invalid_model_request");
    return { entry, level };
  }
  if (level !== undefined) throw new ModelProtocolError(`Reasoning effort "${level}" is not supported by ${name}`, "invalid_model_request");
  return { entry };
}

/** Parses `provider/model[@level]` (ZCODE_SIM_DEFAULT_MODEL). */
export function parseModelSpec(spec: string): ModelSel {
  const at = spec.lastIndexOf("@");
  const level = at > 0 ? spec.slice(at + 1) : undefined;
  const name = at > 0 ? spec.slice(0, at) : spec;
  const slash = name.lastIndexOf("/");
  if (slash <= 0) throw new Error(`model spec must be provider/model[@level], got ${JSON.stringify(spec)}`);
  const sel: ModelSel = { providerId: name.slice(0, slash), modelId: name.slice(slash + 1) };
  const entry = findModel(sel);
  if (!entry) throw new Error(`unknown model ${name} (known: ${MODELS.map((m) => `${m.ref.providerId}/${m.ref.modelId}`).join(", ")})`);
  const lv = level ?? entry.reasoning?.defaultLevel;
  if (lv) sel.options = { reasoningLevel: lv };
  return sel;
}
