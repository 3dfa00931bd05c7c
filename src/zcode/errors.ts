import { redactLine } from "../redact.ts";

// Errors from the ZCode side, as typed values: the bridge maps them to ACP
// errors by class and code, never by parsing messages.
//
// Text that comes from the child (its stderr, its error messages) is redacted
// where these errors are built: their messages go to the editor as JSON-RPC
// errors and notices, and into --trace files, none of which pass through the
// log's redaction.

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

export class ZCodeError extends Error {
  override name = "ZCodeError";
  readonly code: number;
  readonly data?: unknown;
  /** The ZCode method the error belongs to ("" when not tied to one). */
  readonly method: string;

  constructor(message: string, opts: { code: number; method?: string; data?: unknown }) {
    super(message);
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
    const how =
      info.signal !== null
        ? `was killed by ${info.signal}`
        : `exited with code ${info.code ?? "unknown"}`;
    const stderrTail = info.stderrTail.map(redactLine);
    const tail = stderrTail.length
      ? `; its last stderr lines:\n${stderrTail.map((l) => `  ${l}`).join("\n")}`
      : " (it wrote nothing to stderr)";
    super(`The ZCode CLI ${how}${method ? ` while ${method} was pending` : ""}${tail}`, {
      code: LOCAL_ERR.exited,
      method,
    });
    this.exitCode = info.code;
    this.signal = info.signal;
    this.stderrTail = stderrTail;
  }
}

export class ZCodeTimeoutError extends ZCodeError {
  override name = "ZCodeTimeoutError";
  readonly timeoutMs: number;

  constructor(method: string, timeoutMs: number) {
    super(`The ZCode CLI did not answer ${method} within ${(timeoutMs / 1000).toFixed(1)} s`, {
      code: LOCAL_ERR.timeout,
      method,
    });
    this.timeoutMs = timeoutMs;
  }
}

export const HOW_TO_POINT_AT_ZCODE =
  "Install the ZCode app or CLI, or set ZCODE_BIN (or --zcode-bin) to the `zcode` binary or its zcode.cjs entry. " +
  "Run `zcode-acp-server doctor` to see what was found.";

/** A not-found message: what is missing, where it was looked for, how to point at ZCode. */
function notFoundMessage(message: string, searched: string[]): string {
  const where = searched.length ? `\nSearched:\n${searched.map((s) => `  - ${s}`).join("\n")}` : "";
  return `${message}${where}\n${HOW_TO_POINT_AT_ZCODE}`;
}

export class ZCodeNotFoundError extends ZCodeError {
  override name = "ZCodeNotFoundError";
  /** Every place that was looked at, in order. */
  readonly searched: string[];

  constructor(message: string, searched: string[] = []) {
    super(notFoundMessage(message, searched), { code: LOCAL_ERR.notFound });
    this.searched = searched;
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
  /** Every Node looked at, in order, as the message lists them. */
  readonly tried: string[];

  constructor(cli: { entry: string; source: CliSource }, reason: "not-found" | "too-old", message: string, tried: string[]) {
    // A missing Node reads like a missing CLI (where it was looked for, how
    // to point at it); a Node that is too old says which ones were found.
    super(reason === "not-found" ? notFoundMessage(message, tried) : message, {
      code: reason === "not-found" ? LOCAL_ERR.notFound : LOCAL_ERR.unsupported,
    });
    this.entry = cli.entry;
    this.source = cli.source;
    this.reason = reason;
    this.tried = tried;
  }
}

export const MIN_ZCODE_VERSION = "0.14.8";
export const RECOMMENDED_ZCODE_VERSION = "0.15";

export class ZCodeUnsupportedError extends ZCodeError {
  override name = "ZCodeUnsupportedError";
  readonly found: string;
  readonly needed: string;

  constructor(found: string, detail?: string, method = "") {
    const msg =
      detail ??
      `ZCode CLI ${found} is too old: zcode-acp-server needs ${MIN_ZCODE_VERSION} or newer ` +
        `(${RECOMMENDED_ZCODE_VERSION}+ recommended). Update the ZCode app (it updates its bundled CLI), ` +
        "or install a newer `zcode` CLI and point ZCODE_BIN at it.";
    super(msg, { code: LOCAL_ERR.unsupported, method });
    this.found = found;
    this.needed = MIN_ZCODE_VERSION;
  }
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
