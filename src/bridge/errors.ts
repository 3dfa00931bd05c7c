import { RequestError } from "@agentclientprotocol/sdk/unstable";
import {
  isSessionMissing,
  NodeMissingError,
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

function stillBusy(): RequestError {
  return new RequestError(
    INTERNAL,
    "ZCode is still busy with an earlier prompt in this session and did not become idle in time; try again in a moment",
  );
}

type Mapper = (err: ZCodeError, ctx: { sessionId?: string }) => RequestError;

/** ZCode error code → ACP error. Codes not listed keep ZCode's message. */
const BY_CODE = new Map<number, Mapper>([
  [ZCODE_ERR.invalidParams, (e) => RequestError.invalidParams(undefined, `ZCode rejected the request: ${e.message}`)],
  [
    ZCODE_ERR.methodNotFound,
    (e) => new RequestError(INTERNAL, `${e.method} is not supported by this ZCode CLI version (${e.message})`),
  ],
  [ZCODE_ERR.busy, () => stillBusy()],
  [ZCODE_ERR.promptRunning, () => stillBusy()],
  [ZCODE_ERR.notActive, (e) => new RequestError(INTERNAL, `ZCode session is not active: ${e.message}`)],
]);

/** Any error thrown while serving a request → the RequestError the editor shows. */
export function toRequestError(err: unknown, ctx: { sessionId?: string } = {}): RequestError {
  if (err instanceof RequestError) return err;
  // Setup problems: the message says what is missing and how to fix it.
  if (err instanceof ZCodeNotFoundError || err instanceof ZCodeUnsupportedError || err instanceof NodeMissingError) {
    return new RequestError(INTERNAL, err.message);
  }
  if (err instanceof ZCodeExitedError) {
    return new RequestError(INTERNAL, `The ZCode CLI died: ${err.message}`);
  }
  if (err instanceof ZCodeTimeoutError) return new RequestError(INTERNAL, err.message);
  if (err instanceof ZCodeError) {
    if (isSessionMissing(err.code, err.message)) return RequestError.sessionNotFound(ctx.sessionId ?? "");
    const mapped = BY_CODE.get(err.code);
    if (mapped) return mapped(err, ctx);
    return new RequestError(INTERNAL, `ZCode: ${err.message}`, { zcodeCode: err.code });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new RequestError(INTERNAL, message || "unexpected error in zcode-acp-server");
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
export const isExited = (err: unknown): err is ZCodeExitedError => err instanceof ZCodeExitedError;
