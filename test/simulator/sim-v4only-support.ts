// Test side of a v4-only simulator: commands, and a topic reader that
// reassembles wire frames on its own (CRC-32 and base64 as wire-assembler.ts
// checks them), checks seq continuity, validates every logical frame against
// the transcribed schema and applies snapshots and deltas to a model.
import { expect } from "bun:test";
import { validate } from "./schema.ts";
import { type Frame, SimClient, tempDir, WAIT_MS } from "./sim-client.ts";
import { crc32Hex } from "./v4-wire.ts";
import { v4ConversationSnapshot, v4ConversationTopicFrame, v4PendingInteraction } from "./zcode-schemas.ts";

export function v4Sim(env: Record<string, string> = {}): SimClient {
  return new SimClient(tempDir(), { env: { ZCODE_SIM_PROTOCOL: "v4-only", ...env }, autoPreferences: false });
}

let n = 0;
export const cid = () => `0196a3e2-7c1d-7000-9000-${String(++n).padStart(12, "0")}`;

export function command(
  c: SimClient,
  sessionId: string | null,
  type: string,
  payload: unknown,
  extra: Record<string, unknown> = {},
): Promise<any> {
  return c.call("v4/command", { commandId: cid(), clientId: "test", sessionId, type, payload, issuedAt: Date.now(), ...extra });
}

export async function createSession(c: SimClient, payload: Record<string, unknown> = {}): Promise<any> {
  const a = await command(c, null, "createSession", { workspaceId: "/tmp/ws-v4only", ...payload });
  expect(a).toMatchObject({ status: "accepted", result: { type: "createSession" } });
  return a;
}

/** One topic subscription's view: wire frames reassembled, logical frames in order, a model of rows and state. */
export class TopicReader {
  readonly logical: Frame[] = [];
  readonly wires: Frame[] = [];
  rows = new Map<number, Frame>();
  state: Frame = {};
  seq = -1;
  private partial = new Map<string, Frame[]>();
  private scanned = 0;

  constructor(
    readonly c: SimClient,
    readonly topic: string,
    readonly subscriptionId: string,
  ) {}

  /** Reads the frames received so far. */
  pump(): void {
    for (; this.scanned < this.c.frames.length; this.scanned++) {
      const f = this.c.frames[this.scanned]!;
      if (f.method !== "v4/conversation/frame" || f.params.subscriptionId !== this.subscriptionId) continue;
      const w = f.params;
      this.wires.push(w);
      expect(w.wireVersion).toBe(3);
      if (w.kind === "complete") this.accept(w.frame, w);
      else {
        const list = this.partial.get(w.logicalFrameId) ?? [];
        list.push(w);
        this.partial.set(w.logicalFrameId, list);
        if (list.length === w.fragmentCount) {
          this.partial.delete(w.logicalFrameId);
          const bytes = Buffer.concat(
            list.sort((a, b) => a.fragmentIndex - b.fragmentIndex).map((x) => Buffer.from(x.dataBase64, "base64")),
          );
          expect(bytes.byteLength).toBe(w.logicalBytes);
          expect(crc32Hex(bytes)).toBe(w.checksum.value);
          this.accept(JSON.parse(bytes.toString("utf8")), w);
        }
      }
    }
  }

  private accept(frame: Frame, wire: Frame): void {
    const v = validate(v4ConversationTopicFrame, frame);
    if (this.topic.startsWith("conversation/") && !v.ok) throw new Error(`invalid frame: ${JSON.stringify(v.issues)}`);
    expect(frame.topic).toBe(wire.topic);
    expect(frame.subscriptionId).toBe(wire.subscriptionId);
    this.logical.push({ ...frame, deliveryKind: wire.deliveryKind, ordinal: wire.logicalFrameOrdinal });
    if (frame.payload.kind === "snapshot") {
      expect(frame.fromSeq).toBe(0);
      const snap = frame.payload.snapshot;
      if (this.topic.startsWith("conversation/")) {
        const sv = validate(v4ConversationSnapshot, snap);
        if (!sv.ok) throw new Error(`invalid snapshot: ${JSON.stringify(sv.issues)}`);
      }
      this.state = { ...snap };
      if (snap.rows) this.rows = new Map(snap.rows.window.map((r: Frame) => [r.rowId, r]));
    } else {
      // (fromSeq, toSeq]: continuity from the last frame applied.
      expect(frame.fromSeq).toBe(this.seq);
      // ZCode's own clients drop a frame with toSeq <= their seq as late or repeated (the desktop's conversation
      // store, its "rule 2a"); its publisher fills a buffer only by ingesting an event, which moves the seq
      // (conversation-topic-publisher.ts reserveFlush): deltas never ride on (N, N], an aligned recovery's range.
      if (frame.payload.deltas.length > 0 && frame.toSeq <= frame.fromSeq)
        throw new Error(`deltas on a frame (${frame.fromSeq}, ${frame.toSeq}] that moves no seq: a client drops them`);
      for (const d of frame.payload.deltas) this.apply(d);
    }
    this.seq = frame.toSeq;
  }

  private apply(d: Frame): void {
    switch (d.op) {
      case "row.appended":
      case "row.upserted":
        this.rows.set(d.row.rowId, d.row);
        break;
      case "row.removed":
        for (const id of [...this.rows.keys()]) if (id >= d.fromRowId) this.rows.delete(id);
        break;
      case "row.delta": {
        const row = this.rows.get(d.rowId)!;
        expect(row.state).toBe("streaming");
        this.rows.set(d.rowId, { ...row, [d.path]: row[d.path] + d.append });
        break;
      }
      case "state.updated":
        for (const pi of d.patch.pendingInteractions ?? []) {
          const pv = validate(v4PendingInteraction, pi);
          if (!pv.ok) throw new Error(`invalid pendingInteraction: ${JSON.stringify(pv.issues)}`);
        }
        Object.assign(this.state, d.patch);
        break;
      case "session.upserted":
        this.state.sessions = [...(this.state.sessions ?? []).filter((s: Frame) => s.sessionId !== d.session.sessionId), d.session];
        break;
      case "session.removed":
        this.state.sessions = (this.state.sessions ?? []).filter((s: Frame) => s.sessionId !== d.sessionId);
        break;
    }
  }

  deltas(): Frame[] {
    this.pump();
    return this.logical.flatMap((f) => (f.payload.kind === "deltas" ? f.payload.deltas : []));
  }

  /** Waits until the model satisfies `pred` (re-checked on every frame); a frame the reader refuses fails the wait. */
  async until(pred: (r: TopicReader) => boolean, timeoutMs = WAIT_MS): Promise<void> {
    let failure: unknown;
    const check = () => {
      try {
        this.pump();
      } catch (e) {
        failure ??= e;
        return true;
      }
      return pred(this);
    };
    if (!check())
      await this.c.waitFor(check, timeoutMs, this.c.frames.length).catch((e) => {
        throw failure ?? e;
      });
    if (failure) throw failure;
  }

  sortedRows(): Frame[] {
    return [...this.rows.values()].sort((a, b) => a.rowId - b.rowId);
  }
}

export async function subscribe(
  c: SimClient,
  topic: string,
  extra: Record<string, unknown> = {},
): Promise<{ ack: Frame; reader: TopicReader }> {
  const { ack } = await c.call("v4/conversation/subscribe", {
    topic,
    connectionId: "conn-1",
    clientMode: "web-remote-replayable",
    ...extra,
  });
  const reader = new TopicReader(c, topic, ack.subscriptionId);
  await reader.until((r) => r.logical.length > 0);
  return { ack, reader };
}

/** Rows without `actions` (computed on read, like rowsRange: both sides compare rows as published). */
export const bare = (rows: Frame[]) => rows.map(({ actions: _a, ...r }) => r);
