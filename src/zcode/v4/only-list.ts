import * as v from "valibot";
import type { ZCodeConnection } from "../connection.ts";
import { LOCAL_ERR, ZCodeError } from "../errors.ts";
import type { ListResult } from "../result-schemas.ts";
import { loose, maybe, num, str, summarizeIssues, tolerantArray } from "../schemas.ts";
import { CLIENT_MODE, CONNECTION_ID } from "./only-ids.ts";
import { TopicAssembler } from "./wire-frames.ts";

// session/list on a v4-only child: the `sessions-index/<workspaceId>` topic
// (sessions-index.ts), through the same `v4/conversation/subscribe` RPC as a
// conversation ("sessions-index 与 conversation 共用同一 subscribe RPC",
// transport.ts). Its ACK comes first, then the snapshot as a
// `v4/conversation/frame` notification (a wire frame, reassembled by
// v4feed's TopicAssembler); the snapshot is read and the topic unsubscribed
// at once. One workspace per list: v4 has no
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
const AckSchema = loose({ ack: loose({ subscriptionId: str }) });

/** A sessions-index logical frame as the assembler hands it on (transport.ts createTopicFrameSchema). */
const IndexFrameSchema = loose({
  topic: str,
  subscriptionId: str,
  fromSeq: num,
  toSeq: num,
  payload: loose({ kind: str, snapshot: maybe(loose({ sessions: tolerantArray(SummarySchema) })) }),
});
type IndexFrame = v.InferOutput<typeof IndexFrameSchema>;

function readIndexFrame(value: unknown): IndexFrame | string {
  const r = v.safeParse(IndexFrameSchema, value);
  return r.success ? r.output : summarizeIssues(r.issues);
}

/** The legacy list of a sessions-index snapshot: the user's sessions (not subagents'), newest first. */
export function listOf(frame: IndexFrame): ListResult | undefined {
  const snapshot = frame.payload.kind === "snapshot" ? frame.payload.snapshot : undefined;
  if (!snapshot) return undefined;
  return {
    sessions: snapshot.sessions
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

/** Reads the first snapshot of one sessions-index topic out of frame notifications (v4feed's TopicAssembler reassembles). */
export function indexReader(topic: string): (params: unknown) => ListResult | undefined {
  const assembler = new TopicAssembler(readIndexFrame, (t) => t === topic);
  return (params) => {
    const out = assembler.push(params);
    if (!Array.isArray(out)) return undefined;
    for (const f of out) {
      const r = listOf(f);
      if (r) return r;
    }
    return undefined;
  };
}

/** The sessions of one workspace, newest first, at most `limit`. */
export async function listSessions(conn: ZCodeConnection, workspaceId: string, limit: number): Promise<ListResult> {
  const topic = `sessions-index/${workspaceId}`;
  const read = indexReader(topic);
  let done!: (r: ListResult) => void;
  const got = new Promise<ListResult>((resolve) => (done = resolve));
  const stop = conn.onNotification("v4/conversation/frame", (params) => {
    const r = read(params);
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
