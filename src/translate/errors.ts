import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import {
  isSessionMissing,
  NodeMissingError,
  shownMessage,
  ZCODE_ERR,
  ZCodeError,
  ZCodeExitedError,
  ZCodeNotFoundError,
  ZCodeTimeoutError,
  ZCodeUnsupportedError,
} from "../zcode/errors.ts";

// JSON-RPC "internal error": the code editors show with our message. -32000
// is deliberately avoided for setup problems: editors read it as "not logged
// in" and offer a sign-in that cannot help.
const INTERNAL = -32603;

// The SDK's own constructors prefix their message in English ("Invalid
// params: …"); these say the same in the language in use (in English, word
// for word what the SDK says).

/** -32602 with `detail`. */
export function invalidParams(detail: string, data?: unknown): RequestError {
  return new RequestError(-32602, t().errors.invalidParams(detail), data);
}

/** -32603 with `detail`. */
export function internalError(detail: string, data?: unknown): RequestError {
  return new RequestError(INTERNAL, t().errors.internal(detail), data);
}

/** -32002 for a session this connection does not have (or no longer has). */
export function sessionNotFound(sessionId: string): RequestError {
  return new RequestError(-32002, t().errors.sessionNotFound, { sessionId });
}

function stillBusy(): RequestError {
  return new RequestError(INTERNAL, t().errors.stillBusy);
}

type Mapper = (err: ZCodeError, ctx: { sessionId?: string }) => RequestError;

/** ZCode error code → ACP error. Codes not listed keep ZCode's message. */
const BY_CODE = new Map<number, Mapper>([
  [ZCODE_ERR.invalidParams, (e) => invalidParams(t().errors.rejected(shownMessage(e)))],
  [ZCODE_ERR.methodNotFound, (e) => new RequestError(INTERNAL, t().errors.unsupportedMethod(e.method, shownMessage(e)))],
  [ZCODE_ERR.busy, () => stillBusy()],
  [ZCODE_ERR.promptRunning, () => stillBusy()],
  [ZCODE_ERR.notActive, (e) => new RequestError(INTERNAL, t().errors.notActive(shownMessage(e)))],
]);

/** Any error thrown while serving a request → the RequestError the editor shows. */
export function toRequestError(err: unknown, ctx: { sessionId?: string } = {}): RequestError {
  if (err instanceof RequestError) return err;
  // Setup problems: the message says what is missing and how to fix it.
  if (err instanceof ZCodeNotFoundError || err instanceof ZCodeUnsupportedError || err instanceof NodeMissingError) {
    return new RequestError(INTERNAL, shownMessage(err));
  }
  if (err instanceof ZCodeExitedError) {
    return new RequestError(INTERNAL, t().errors.died(shownMessage(err)));
  }
  if (err instanceof ZCodeTimeoutError) return new RequestError(INTERNAL, shownMessage(err));
  if (err instanceof ZCodeError) {
    if (isSessionMissing(err.code, err.message)) return sessionNotFound(ctx.sessionId ?? "");
    const mapped = BY_CODE.get(err.code);
    if (mapped) return mapped(err, ctx);
    return new RequestError(INTERNAL, t().errors.zcode(shownMessage(err)), { zcodeCode: err.code });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new RequestError(INTERNAL, message || t().errors.unexpected);
}

/**
 * An error the bridge expects to meet (ZCode refused, or the editor's request
 * was wrong), as opposed to a bug of ours: the first is logged quietly.
 */
export function isExpectedError(err: unknown): boolean {
  return err instanceof RequestError || err instanceof ZCodeError;
}

export function zcodeCode(err: unknown): number | undefined {
  return err instanceof ZCodeError ? err.code : undefined;
}

/** ZCode is running a prompt in the session: wait for idle and try again. */
export const isBusy = (err: unknown): boolean => {
  const code = zcodeCode(err);
  return code === ZCODE_ERR.promptRunning || code === ZCODE_ERR.busy;
};
/** ZCode evicted the session from memory (it still has it): resume and retry. */
export const isNotActive = (err: unknown): boolean =>
  err instanceof ZCodeError && err.code === ZCODE_ERR.notActive && !isSessionMissing(err.code, err.message);
