import * as v from "valibot";
import type { ZCodeConnection } from "../connection.ts";
import { LOCAL_ERR, ZCodeError } from "../errors.ts";
import type { ListResult } from "../result-schemas.ts";
import { loose, maybe, num, str, tolerantArray } from "../schemas.ts";
import { CLIENT_MODE, CONNECTION_ID } from "./only-ids.ts";

// session/list on a v4-only child: the `sessions-index/<workspaceId>` topic
// (sessions-index.ts), through the same `v4/conversation/subscribe` RPC as a
// conversation ("sessions-index 与 conversation 共用同一 subscribe RPC",
// transport.ts). Its ACK comes first, then the snapshot as a
// `v4/conversation/frame` notification (wire frame: `complete`, or
// `fragment`s of the logical frame's bytes, base64); the snapshot is read
// and the topic unsubscribed at once. One workspace per list: v4 has no
// list across workspaces.

const TIMEOUT_MS = 30_000;

/** sessions-index.ts sessionSummarySchema, read tolerantly. */
const SummarySchema = loose({
  sessionId: str,
  workspaceId: maybe(str),
  parentSessionId: maybe(str),
  title: maybe(str),
  phase: maybe(str),
  lastActivityAt: maybe(num),
  createdAt: maybe(num),
});
const SnapshotFrameSchema = loose({
  topic: str,
  subscriptionId: str,
  payload: loose({ kind: v.literal("snapshot"), snapshot: loose({ sessions: tolerantArray(SummarySchema) }) }),
});
/** The physical wire frame (wire.ts): whole, or one fragment of the logical frame's bytes. */
const WireSchema = loose({
  kind: str,
  topic: str,
  subscriptionId: maybe(str),
  logicalFrameId: maybe(v.union([str, num])),
  fragmentIndex: maybe(num),
  fragmentCount: maybe(num),
  dataBase64: maybe(str),
});
const AckSchema = loose({ ack: loose({ subscriptionId: str }) });

/**
 * Reads one sessions-index snapshot out of frame notifications: a
 * `complete` frame's bytes, or a logical frame's fragments once all came.
 * Undefined while the snapshot is not whole.
 */
export class IndexFrameReader {
  private readonly parts = new Map<number, string>();
  constructor(readonly topic: string) {}

  push(params: unknown): ListResult | undefined {
    const w = v.safeParse(WireSchema, params);
    if (!w.success || w.output.topic !== this.topic || w.output.dataBase64 === undefined) return undefined;
    let bytes: Buffer;
    if (w.output.kind === "fragment") {
      this.parts.set(w.output.fragmentIndex ?? 0, w.output.dataBase64);
      const count = w.output.fragmentCount ?? 1;
      if (this.parts.size < count) return undefined;
      bytes = Buffer.concat([...Array(count).keys()].map((i) => Buffer.from(this.parts.get(i) ?? "", "base64")));
      this.parts.clear();
    } else {
      bytes = Buffer.from(w.output.dataBase64, "base64");
    }
    let frame: unknown;
    try {
      frame = JSON.parse(bytes.toString("utf8"));
    } catch {
      return undefined;
    }
    const f = v.safeParse(SnapshotFrameSchema, frame);
    if (!f.success) return undefined;
    return {
      sessions: f.output.payload.snapshot.sessions
        // A subagent's session is not the user's to open (legacy lists its parent's only).
        .filter((s) => s.parentSessionId === undefined)
        .sort((a, b) => (b.lastActivityAt ?? 0) - (a.lastActivityAt ?? 0))
        .map((s) => ({
          sessionId: s.sessionId,
          title: s.title ?? null,
          workspace: { workspacePath: s.workspaceId ?? "", workspaceKey: s.workspaceId ?? "" },
          ...(s.phase ? { status: s.phase } : {}),
          ...(s.createdAt !== undefined ? { createdAt: s.createdAt } : {}),
          ...(s.lastActivityAt !== undefined ? { updatedAt: s.lastActivityAt } : {}),
        })),
    };
  }
}

/** The sessions of one workspace, newest first, at most `limit`. */
export async function listSessions(conn: ZCodeConnection, workspaceId: string, limit: number): Promise<ListResult> {
  const topic = `sessions-index/${workspaceId}`;
  const reader = new IndexFrameReader(topic);
  let done!: (r: ListResult) => void;
  const got = new Promise<ListResult>((resolve) => (done = resolve));
  const stop = conn.onNotification("v4/conversation/frame", (params) => {
    const r = reader.push(params);
    if (r) done(r);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let subscriptionId: string | undefined;
  try {
    const ack = await conn.request(
      "v4/conversation/subscribe",
      { topic, connectionId: CONNECTION_ID, clientMode: CLIENT_MODE },
      { timeoutMs: TIMEOUT_MS, schema: AckSchema },
    );
    subscriptionId = ack.ack.subscriptionId;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new ZCodeError(`ZCode sent no snapshot of ${topic}`, { code: LOCAL_ERR.timeout, method: "v4/conversation/subscribe" })),
        TIMEOUT_MS,
      );
    });
    const r = await Promise.race([got, late]);
    return { sessions: r.sessions.slice(0, limit) };
  } finally {
    clearTimeout(timer);
    stop();
    if (subscriptionId) {
      conn.request("v4/conversation/unsubscribe", { topic, subscriptionId, connectionId: CONNECTION_ID }).catch(() => {});
    }
  }
}
