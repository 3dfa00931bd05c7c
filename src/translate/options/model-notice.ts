import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { t } from "../../i18n/index.ts";
import { LOCAL_ERR, ZCODE_ERR, ZCodeError, isSessionMissing } from "../../zcode/errors.ts";
import { invalidParams } from "../errors.ts";
import { NOT_OFFERED, type ModelInfo, type SessionOptions } from "./options.ts";

// What a person is told about the session's model beyond the menu itself:
// that the current model is one ZCode no longer lets them use, and why a
// switch ZCode refused did not happen.

/** The current model when ZCode no longer offers it (disabled, or gone from its list). */
export function unavailableCurrent(o: SessionOptions): ModelInfo | undefined {
  const m = o.model;
  if (!m) return undefined;
  const info = m.models.find((x) => x.value === m.current);
  return info?.disabledReason ? info : undefined;
}

/**
 * The line shown before the output of the session's first turn on such a
 * model. Said in the turn, not when the session opens: a notice on open
 * would sit in the editor's history of every session loaded.
 */
export function unavailableNotice(info: ModelInfo): string {
  const why = info.disabledReason && info.disabledReason !== NOT_OFFERED ? info.disabledReason : undefined;
  return t().bridge.model.gone(info.label, info.value, why);
}

/** A refusal by ZCode itself (the error a person can act on), not the wire or the process failing. */
function isRefusal(err: unknown): err is ZCodeError {
  if (!(err instanceof ZCodeError)) return false;
  // Our side's failures (the child died, no answer in time, no CLI) are not ZCode's answer.
  const local =
    err.code === LOCAL_ERR.exited ||
    err.code === LOCAL_ERR.timeout ||
    err.code === LOCAL_ERR.notFound ||
    err.code === LOCAL_ERR.unsupported;
  if (local) return false;
  const busy = err.code === ZCODE_ERR.busy || err.code === ZCODE_ERR.promptRunning;
  return !busy && err.code !== ZCODE_ERR.methodNotFound && err.code !== ZCODE_ERR.notActive && !isSessionMissing(err.code, err.message);
}

/**
 * ZCode refused session/setModel: the editor gets an error naming the model
 * asked for and the one the session keeps. Other failures pass unchanged.
 */
export function modelSwitchError(err: unknown, wanted: ModelInfo, o: SessionOptions): unknown {
  if (!isRefusal(err)) return err;
  const current = o.model?.models.find((m) => m.value === o.model?.current);
  const keeps = current ? `${current.label} (${current.value})` : undefined;
  // ZCode's own reason, its closing full stop left to the sentence around it.
  const text = t().errors.modelRefused(`${wanted.label} (${wanted.value})`, err.message.replace(/[.\s]+$/, ""), keeps);
  return err.code === ZCODE_ERR.invalidParams ? invalidParams(text) : new RequestError(-32603, text);
}
