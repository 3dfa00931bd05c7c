import { t } from "../../i18n/index.ts";
import type { ModelInfo, SessionOptions } from "./options.ts";

// Which model a person means by what they typed: `/model <words>` and
// `--model` / ZCODE_ACP_MODEL share this one reading, so a value that works
// in one works in the other. A model can be named by its option value
// (`providerId/modelId`), its model id alone, its label, or its menu name
// ("Provider › label"); case does not matter. An exact match wins over a
// prefix; a prefix must point at one model only.

/** A model the session offers, with the name its menu entry shows. */
export interface OfferedModel {
  info: ModelInfo;
  name: string;
}

export type ModelMatch =
  | { kind: "one"; model: OfferedModel }
  | { kind: "ambiguous"; candidates: OfferedModel[] }
  /** `unavailable`: a model ZCode lists but cannot use now, named exactly by the words. */
  | { kind: "none"; unavailable?: ModelInfo };

/** The models the editor's menu offers (usable ones, and the current one even when it is not). */
export function offeredModels(model: SessionOptions["model"]): OfferedModel[] {
  if (!model) return [];
  const byValue = new Map(model.models.map((m) => [m.value, m]));
  return model.choices.flatMap((c) => {
    const info = byValue.get(c.value);
    return info ? [{ info, name: c.name }] : [];
  });
}

function keysOf(m: OfferedModel): string[] {
  return [m.info.value, m.info.modelId, m.info.label, m.name].map((k) => k.toLowerCase());
}

function exactKeys(info: ModelInfo): string[] {
  return [info.value, info.modelId, info.label].map((k) => k.toLowerCase());
}

/** The model `words` names among those the session offers. */
export function matchModel(model: SessionOptions["model"], words: string): ModelMatch {
  const want = words.trim().toLowerCase();
  if (!want) return { kind: "none" };
  const offered = offeredModels(model);
  const exact = offered.filter((m) => keysOf(m).includes(want));
  if (exact.length === 1) return { kind: "one", model: exact[0]! };
  if (exact.length > 1) return { kind: "ambiguous", candidates: exact };
  const prefixed = offered.filter((m) => keysOf(m).some((k) => k.startsWith(want)));
  if (prefixed.length === 1) return { kind: "one", model: prefixed[0]! };
  if (prefixed.length > 1) return { kind: "ambiguous", candidates: prefixed };
  const unavailable = model?.models.find((m) => m.disabledReason && exactKeys(m).includes(want));
  return unavailable ? { kind: "none", unavailable } : { kind: "none" };
}

/** `name (providerId/modelId)`: how a model is named in replies and errors. */
export function describeModel(m: OfferedModel): string {
  return m.name === m.info.value ? m.info.value : `${m.name} (${m.info.value})`;
}

/**
 * Why `words` picked no single model, in one sentence followed by the
 * models to choose from (the candidates when ambiguous, else every offered one).
 */
export function mismatchText(model: SessionOptions["model"], words: string, match: Exclude<ModelMatch, { kind: "one" }>): string {
  const say = t().bridge.model;
  if (match.kind === "ambiguous") return say.ambiguous(words, match.candidates.map(describeModel).join(", "));
  const offered = offeredModels(model);
  const choices = offered.length ? offered.map(describeModel).join(", ") : say.none;
  const why = match.unavailable ? say.notAvailable(words, match.unavailable.disabledReason) : say.noMatch(words);
  return say.chooseFrom(why, choices);
}
