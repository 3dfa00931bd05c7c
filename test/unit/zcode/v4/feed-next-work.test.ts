// V4Feed.nextWork: what a command that starts its work in the background
// (compact, a goal set: goal-compact.ts) waits for before it is answered.
// Only work that was not under way when it was asked counts: a turn started,
// or an active work (snapshot.ts activeWorkSummarySchema {kind, startedAt})
// not among those of then. The frame that lets the last turn's own work go
// (activeWorks emptied a flush window after the turn's end) is a change but
// no work, and answering on it let /compact report the context as it was.
import { describe, expect, test } from "bun:test";
import type { ZCodeConnection } from "../../../../src/zcode/connection.ts";
import type { RawEvent } from "../../../../src/zcode/event-schemas.ts";
import type { V4Channel } from "../../../../src/zcode/v4/channel.ts";
import { type FeedParts, type FeedSink, type LogicalFrame, V4Feed } from "../../../../src/zcode/v4/feed.ts";

const SESSION = "sess_1";
const TOPIC = `conversation/${SESSION}`;

/** A frame of the fake wire: the projected state it leaves, and whether a turn starts in it. */
interface FakeFrame extends LogicalFrame {
  payload: { kind: string; state: unknown; turnStarted?: boolean };
}

/** A feed on a fake connection whose projector takes each frame's state as it is. */
function feedWithFrames() {
  let onFrame!: (params: unknown) => void;
  const conn = {
    onNotification: (_method: string, cb: (params: unknown) => void) => {
      onFrame = cb;
      return () => {};
    },
    onUnwatched: () => () => {},
    onExit: () => () => {},
    deliverEvent: (_e: RawEvent) => {},
    request: async () => ({ ack: { subscriptionId: "sub-1" } }),
  } as unknown as ZCodeConnection;
  const parts: FeedParts = {
    // Each notification is one whole logical frame.
    assembler: () => ({ push: (params) => [params as LogicalFrame] }),
    projector: (_sessionId: string, sink: FeedSink) => {
      let state: unknown;
      return {
        apply(frame: LogicalFrame) {
          const f = frame as FakeFrame;
          state = f.payload.state;
          if (f.payload.turnStarted) sink.event({ type: "turn.started", sessionId: SESSION, seq: 1 } as unknown as RawEvent);
        },
        get state() {
          return state;
        },
      };
    },
    legacyRequestOf: () => undefined,
    resolveAnswerOf: () => ({}),
  };
  const feed = new V4Feed(conn, {} as V4Channel, parts);
  let seq = 0;
  const send = (state: unknown, kind = "deltas", turnStarted = false) => {
    // Every frame moves the projection's revision, as ZCode's do.
    const projected = { ...(state as object), revision: seq + 1 };
    const frame: FakeFrame = {
      topic: TOPIC,
      subscriptionId: "sub-1",
      fromSeq: seq,
      toSeq: ++seq,
      payload: { kind, state: projected, turnStarted },
    };
    onFrame(frame);
  };
  return { feed, send };
}

const state = (phase: string, ...works: Array<{ kind: string; startedAt: number; foregroundExecutionId?: string }>) => ({
  control: { phase, activeWorks: works },
});

/** A followed session whose snapshot is `snapshot`, and a wait for new work asked right after it. */
async function waitingForWork(snapshot: ReturnType<typeof state>) {
  const { feed, send } = feedWithFrames();
  const opened = feed.open(SESSION);
  send(snapshot, "snapshot");
  await opened;
  return { next: feed.nextWork(SESSION), send };
}

/** Whether `p` has settled, after the microtasks queued so far. */
async function settled(p: Promise<boolean>): Promise<boolean | "pending"> {
  return Promise.race([p, new Promise<"pending">((r) => setTimeout(() => r("pending"), 0))]);
}

describe("V4Feed.nextWork", () => {
  test("the last turn's work let go after the command is no sign of the command's work; a compaction's start is", async () => {
    // The turn's end came with its own work still active (its runtime is let go a frame later).
    const { next, send } = await waitingForWork(state("completedSuccess", { kind: "primaryTurn", startedAt: 10 }));
    // Another revision, the session idle: the old wait (any change) ended here, before the compaction showed.
    send(state("completedSuccess"));
    expect(await settled(next.started)).toBe("pending");
    send(state("completedSuccess", { kind: "compact", startedAt: 20 }));
    expect(await next.started).toBe(true);
  });

  test("a work that was active before, its execution id filled in later, is not new", async () => {
    const { next, send } = await waitingForWork(state("running", { kind: "primaryTurn", startedAt: 10 }));
    send(state("running", { kind: "primaryTurn", startedAt: 10, foregroundExecutionId: "exec-1" }));
    expect(await settled(next.started)).toBe("pending");
    next.cancel();
    expect(await next.started).toBe(false);
  });

  test("a turn that starts and ends within one frame counts: the turn's start is seen", async () => {
    const { next, send } = await waitingForWork(state("completedSuccess"));
    send(state("completedSuccess"), "deltas", true);
    expect(await next.started).toBe(true);
  });

  test("a session not followed: false at once", async () => {
    const { feed } = feedWithFrames();
    expect(await feed.nextWork("sess_other").started).toBe(false);
  });
});
