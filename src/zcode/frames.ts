import * as v from "valibot";
import { redactLine } from "../redact.ts";

// The frame codec of the ZCode wire: JSON-RPC-like frames, one per line, with
// NO `jsonrpc` field (the CLI's validator rejects frames that carry one).
// Classification follows ZCODE-PROTOCOL.md and the field notes:
//   id + method            -> request from the CLI, unless the id is one we are
//                             waiting on and the frame carries result/error
//   id, no method          -> response (result or error)
//   method, no id          -> notification

export type FrameId = number | string;

const IdSchema = v.union([v.number(), v.string()]);
const WireErrorSchema = v.looseObject({
  code: v.number(),
  message: v.optional(v.string(), ""),
  data: v.optional(v.unknown()),
});
export type WireError = v.InferOutput<typeof WireErrorSchema>;

export type Frame =
  | { kind: "request"; id: FrameId; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "response"; id: FrameId; result: unknown }
  | { kind: "error"; id: FrameId; error: WireError };

export type DecodeResult = { ok: true; frame: Frame } | { ok: false; reason: string };

/** Longest excerpt of a bad line that goes into a log message. */
export const LOG_EXCERPT_CHARS = 200;

/**
 * The start of a line for a log message, redacted first: cut JSON is no
 * longer JSON, and the log's own redaction would then miss a secret such as
 * the value of `{"name":"GITHUB_TOKEN","value":…}`.
 */
export function excerpt(line: string, max = LOG_EXCERPT_CHARS): string {
  const clean = redactLine(line);
  return clean.length <= max ? clean : `${clean.slice(0, max)}… (${line.length} chars)`;
}

/**
 * Decodes one line. `isPending(id)` says whether we wait on that id (to tell
 * a response that echoes its method from a request of the CLI).
 * Never throws.
 */
export function decodeFrame(line: string, isPending: (id: FrameId) => boolean): DecodeResult {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  return classifyFrame(raw, isPending);
}

export function classifyFrame(raw: unknown, isPending: (id: FrameId) => boolean): DecodeResult {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { ok: false, reason: "not a JSON object" };
  const o = raw as Record<string, unknown>;
  const hasId = o.id !== undefined && o.id !== null;
  const hasMethod = o.method !== undefined;

  if (hasMethod && typeof o.method !== "string") return { ok: false, reason: "method is not a string" };
  if (hasId && !v.is(IdSchema, o.id)) return { ok: false, reason: "id is neither a number nor a string" };
  const id = o.id as FrameId;
  const isAnswer = "result" in o || "error" in o;

  if (hasId && (!hasMethod || (isAnswer && isPending(id)))) {
    if (o.error !== undefined && o.error !== null) {
      const err = v.safeParse(WireErrorSchema, o.error);
      if (!err.success) return { ok: false, reason: "error without a numeric code" };
      return { ok: true, frame: { kind: "error", id, error: err.output } };
    }
    if (!("result" in o)) return { ok: false, reason: "response without result or error" };
    return { ok: true, frame: { kind: "response", id, result: o.result } };
  }
  if (hasId) return { ok: true, frame: { kind: "request", id, method: o.method as string, params: o.params } };
  if (hasMethod) return { ok: true, frame: { kind: "notification", method: o.method as string, params: o.params } };
  return { ok: false, reason: "neither id nor method" };
}

// Encoders build the JSON by hand so the field order is stable and no
// `jsonrpc` field can sneak in. Params that are undefined are left out.

export function encodeRequest(id: FrameId, method: string, params?: unknown): string {
  return params === undefined
    ? `{"id":${JSON.stringify(id)},"method":${JSON.stringify(method)}}`
    : `{"id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
}

export function encodeNotification(method: string, params?: unknown): string {
  return params === undefined
    ? `{"method":${JSON.stringify(method)}}`
    : `{"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
}

export function encodeResult(id: FrameId, result: unknown): string {
  return `{"id":${JSON.stringify(id)},"result":${JSON.stringify(result ?? null)}}`;
}

export function encodeError(id: FrameId, code: number, message: string, data?: unknown): string {
  const err = data === undefined ? { code, message } : { code, message, data };
  return `{"id":${JSON.stringify(id)},"error":${JSON.stringify(err)}}`;
}
