import { errors as english } from "../i18n/en/errors.ts";
import { t } from "../i18n/index.ts";
import { BUILTIN_PROVIDER_VAR } from "./provider-vars.ts";
import { redactLine } from "../redact.ts";

// Errors from the ZCode side, as typed values: the bridge maps them to ACP
// errors by class and code, never by parsing messages.
//
// Text that comes from the child (its stderr, its error messages) is redacted
// where these errors are built: their messages go to the editor as JSON-RPC
// errors and notices, and into --trace files, none of which pass through the
// log's redaction.
//
// A message of ours is an entry of the errors table (`Say`): `message` is its
// English, for logs and traces (developer logs stay English), and
// `shownMessage()` reads it in the user's language when it is shown.

export const ZCODE_ERR = {
  /** "A prompt is already running for this session" (also compact, goal and fork while one runs). */
  promptRunning: -32010,
  /** The busy code of the seed protocol document; never seen on a real CLI, still honoured. */
  busy: 1308,
  noTurn: 1309,
  revisionConflict: 1409,
  noCheckpoint: 1410,
  sessionNotFound: -32002,
  notActive: -32004,
  invalidParams: -32602,
  methodNotFound: -32601,
} as const;

/** Codes we use for failures that happen on our side of the wire. */
export const LOCAL_ERR = {
  exited: -32099,
  timeout: -32098,
  notFound: -32097,
  unsupported: -32096,
  internal: -32603,
} as const;

type ErrorTexts = typeof english;

/** A message of the errors table, read from the table of the language wanted. */
export type Say = (e: ErrorTexts) => string;

/** A message: ours (a table entry), or words that stay as they are. */
export type Text = string | Say;

function sayOf(text: Text): Say {
  return typeof text === "string" ? () => text : text;
}

export class ZCodeError extends Error {
  override name = "ZCodeError";
  readonly code: number;
  readonly data?: unknown;
  /** The ZCode method the error belongs to ("" when not tied to one). */
  readonly method: string;
  /** Our own message as a table entry; absent when the message is ZCode's words. */
  readonly say?: Say;

  constructor(message: Text, opts: { code: number; method?: string; data?: unknown }) {
    super(typeof message === "string" ? message : message(english));
    if (typeof message !== "string") this.say = message;
    this.code = opts.code;
    this.method = opts.method ?? "";
    if (opts.data !== undefined) this.data = opts.data;
  }
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  stderrTail: string[];
}

/** The child died; every request in flight fails with this. */
export class ZCodeExitedError extends ZCodeError {
  override name = "ZCodeExitedError";
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stderrTail: string[];

  constructor(info: ExitInfo, method = "") {
    const stderrTail = info.stderrTail.map(redactLine);
    // The desktop app's bundled CLI dies at boot with only this line when it
    // is not told where its built-in provider table is: what to do is said too.
    const noBuiltinConfig = stderrTail.some((l) => /Built-in Provider Config/i.test(l));
    super(
      (e) =>
        e.exited({ code: info.code, signal: info.signal, method, stderrTail }) +
        (noBuiltinConfig ? `\n${e.builtinProviderConfigMissing(BUILTIN_PROVIDER_VAR)}` : ""),
      { code: LOCAL_ERR.exited, method },
    );
    this.exitCode = info.code;
    this.signal = info.signal;
    this.stderrTail = stderrTail;
  }
}

export class ZCodeTimeoutError extends ZCodeError {
  override name = "ZCodeTimeoutError";
  readonly timeoutMs: number;

  constructor(method: string, timeoutMs: number) {
    super((e) => e.timeout(method, (timeoutMs / 1000).toFixed(1)), { code: LOCAL_ERR.timeout, method });
    this.timeoutMs = timeoutMs;
  }
}

export const HOW_TO_POINT_AT_ZCODE = english.howToPointAtZCode;

/** A place looked at: a path as it is, or a description from the table. */
export type Searched = Text;

/** The places as one language's table names them. */
export function renderPlaces(places: readonly Searched[], e: ErrorTexts): string[] {
  return places.map((p) => (typeof p === "string" ? p : p(e)));
}

/** A not-found message: what is missing, where it was looked for, how to point at ZCode. */
function notFoundMessage(what: Text, searched: readonly Searched[]): Say {
  return (e) => e.notFound(sayOf(what)(e), renderPlaces(searched, e));
}

export class ZCodeNotFoundError extends ZCodeError {
  override name = "ZCodeNotFoundError";
  /** Every place that was looked at, in order (in English). */
  readonly searched: string[];

  constructor(what: Text, searched: Searched[] = []) {
    super(notFoundMessage(what, searched), { code: LOCAL_ERR.notFound });
    this.searched = renderPlaces(searched, english);
  }
}

/** How the ZCode CLI was found: ZCODE_BIN / --zcode-bin, on PATH, or inside the desktop app. */
export type CliSource = "env" | "path" | "app-bundle";

/**
 * The ZCode CLI was found, but it is a JavaScript entry and no usable Node.js
 * runs it: none was found, ZCODE_NODE is not one, or every one found is older
 * than the CLI needs. It carries the CLI that was found, so doctor reports the
 * CLI as found and Node as the problem (with the Node fix); the editor gets
 * the message, as for a CLI that was not found, and the code of the cause
 * (not found, or unsupported for a Node that is too old).
 */
export class NodeMissingError extends ZCodeError {
  override name = "NodeMissingError";
  /** The JS entry that needs Node (symlinks resolved). */
  readonly entry: string;
  readonly source: CliSource;
  /** `not-found`: no Node at all (or ZCODE_NODE is not one); `too-old`: the Nodes found are too old or do not run. */
  readonly reason: "not-found" | "too-old";
  /** Every Node looked at, in order, as the message lists them (in English). */
  readonly tried: string[];

  constructor(cli: { entry: string; source: CliSource }, reason: "not-found" | "too-old", what: Text, tried: Searched[]) {
    // A missing Node reads like a missing CLI (where it was looked for, how
    // to point at it); a Node that is too old says which ones were found.
    super(reason === "not-found" ? notFoundMessage(what, tried) : what, {
      code: reason === "not-found" ? LOCAL_ERR.notFound : LOCAL_ERR.unsupported,
    });
    this.entry = cli.entry;
    this.source = cli.source;
    this.reason = reason;
    this.tried = renderPlaces(tried, english);
  }
}

export const MIN_ZCODE_VERSION = "0.14.8";
export const RECOMMENDED_ZCODE_VERSION = "0.15";

export class ZCodeUnsupportedError extends ZCodeError {
  override name = "ZCodeUnsupportedError";
  readonly found: string;
  readonly needed: string;

  constructor(found: string, detail?: Text, method = "") {
    super(detail ?? ((e) => e.tooOld(found, MIN_ZCODE_VERSION, RECOMMENDED_ZCODE_VERSION)), { code: LOCAL_ERR.unsupported, method });
    this.found = found;
    this.needed = MIN_ZCODE_VERSION;
  }
}

/**
 * What the user is told: our own message in the language in use (looked up
 * now, not when the error was made), ZCode's words and other errors as they are.
 */
export function shownMessage(err: unknown): string {
  if (err instanceof ZCodeError && err.say) return err.say(t().errors);
  return err instanceof Error ? err.message : String(err);
}

/**
 * ZCode answers -32004 both for a session it does not have in memory ("Session
 * is not active: <id>", resume it) and for one it does not have at all
 * ("Session not found: <id>"); only the message tells them apart, as ZCode's
 * own desktop client reads it.
 */
export function isSessionMissing(code: number, message: string): boolean {
  return code === ZCODE_ERR.sessionNotFound || (code === ZCODE_ERR.notActive && /\bSession not found\b/i.test(message));
}

/** An error answer from the CLI, typed by its code. */
export function errorFromWire(method: string, err: { code: number; message: string; data?: unknown }): ZCodeError {
  // ZCode's own message may quote a provider's error, key included.
  return new ZCodeError(err.message ? redactLine(err.message) : `ZCode error ${err.code}`, {
    code: err.code,
    method,
    data: err.data,
  });
}
