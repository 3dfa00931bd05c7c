// FrameAssembler against wire frames built as ZCode's wire.ts / wire-binary.ts
// define them (see frames.ts), with the faults of ZCode's wire-assembler.ts
// (packages/shared/src/zcode-protocol-v4/wire-assembler.ts) and the seq
// continuity of transport.ts (`(fromSeq, toSeq]`).
import { describe, expect, test } from "bun:test";
import { FrameAssembler } from "../../../../src/zcode/v4/wire-frames.ts";
import { assistantText, complete, deltasFrame, fragments, snapshot, snapshotFrame } from "./frames.ts";

const snap = snapshotFrame(snapshot([assistantText(1, "t1", "x".repeat(500), "complete")]), 10);

function frames(r: ReturnType<FrameAssembler["push"]>) {
  if (!Array.isArray(r)) throw new Error(`expected frames, got resync ${r.resync}`);
  return r;
}

describe("FrameAssembler", () => {
  test("a complete frame comes out whole, with its delivery kind", () => {
    const a = new FrameAssembler();
    const out = frames(a.push(complete(snap, 1, "initial")));
    expect(out).toHaveLength(1);
    expect(out[0]?.deliveryKind).toBe("initial");
    expect(out[0]?.payload.kind).toBe("snapshot");
  });

  test("fragments out of order and duplicated reassemble into one frame", () => {
    const a = new FrameAssembler();
    const parts = fragments(snap, 1, 4, "initial");
    const order = [parts[2], parts[0], parts[2], parts[3], parts[0], parts[1]];
    const got = order.flatMap((p) => frames(a.push(p)));
    expect(got).toHaveLength(1);
    expect(got[0]?.toSeq).toBe(10);
    expect(a.stats).toEqual({ assemblies: 0, stagedBytes: 0 });
    // A late replay of a settled frame is dropped (wire-assembler.ts ordinal tombstone).
    expect(frames(a.push(parts[1]))).toEqual([]);
  });

  test("a duplicate fragment with other bytes is a conflict: resync", () => {
    const a = new FrameAssembler();
    const parts = fragments(snap, 1, 3);
    frames(a.push(parts[0]));
    const forged = { ...parts[0], dataBase64: Buffer.from("zzzz").toString("base64") };
    expect(a.push(forged)).toEqual({ resync: "proto.frameAssemblyFragmentConflict" });
    expect(a.stats).toEqual({ assemblies: 0, stagedBytes: 0 });
  });

  test("a fragment missing when the next frame starts: resync (superseded)", () => {
    const a = new FrameAssembler();
    const first = fragments(snap, 1, 3);
    frames(a.push(first[0]));
    frames(a.push(first[2]));
    const next = complete(deltasFrame(10, [{ op: "row.removed", fromRowId: 5 }]), 2);
    expect(a.push(next)).toEqual({ resync: "proto.frameAssemblySuperseded" });
  });

  test("a recovery frame replaces an incomplete one quietly", () => {
    const a = new FrameAssembler();
    frames(a.push(fragments(snap, 1, 3)[0]));
    const got = frames(a.push(complete(snap, 2, "recovery")));
    expect(got[0]?.deliveryKind).toBe("recovery");
  });

  test("a checksum that does not match: resync", () => {
    const a = new FrameAssembler();
    const parts = fragments(snap, 1, 2).map((p) => ({ ...p, checksum: { algorithm: "crc32", value: "00000000" } }));
    frames(a.push(parts[0]));
    expect(a.push(parts[1])).toEqual({ resync: "proto.frameAssemblyChecksumMismatch" });
  });

  test("a gap in seq: resync, then deltas are dropped until a snapshot comes", () => {
    const a = new FrameAssembler();
    frames(a.push(complete(snap, 1, "initial")));
    frames(a.push(complete(deltasFrame(10, [{ op: "row.removed", fromRowId: 9 }]), 2)));
    const gap = a.push(complete(deltasFrame(12, [{ op: "row.removed", fromRowId: 9 }]), 3));
    expect(gap).toEqual({ resync: "proto.frameSeqGap (expected fromSeq 11, got 12)" });
    expect(frames(a.push(complete(deltasFrame(13, [{ op: "row.removed", fromRowId: 9 }]), 4)))).toEqual([]);
    const again = frames(a.push(complete(snapshotFrame(snapshot([]), 20), 5, "recovery")));
    expect(again).toHaveLength(1);
    expect(frames(a.push(complete(deltasFrame(20, [{ op: "row.removed", fromRowId: 9 }]), 6)))).toHaveLength(1);
  });

  test("a deltas frame already covered (a replay after resume) is dropped", () => {
    const a = new FrameAssembler();
    frames(a.push(complete(snap, 1, "initial")));
    expect(frames(a.push(complete(deltasFrame(8, [{ op: "row.removed", fromRowId: 9 }], 10), 2)))).toEqual([]);
  });

  test("memory is bounded: past the staged-bytes budget the frame is dropped and a resync asked", () => {
    const total = new TextEncoder().encode(JSON.stringify(snap)).byteLength;
    // Room for two of the four fragments.
    const a = new FrameAssembler({ maxStagedBytes: Math.ceil(total / 4) * 2 + 10 });
    const parts = fragments(snap, 1, 4);
    frames(a.push(parts[0]));
    frames(a.push(parts[1]));
    expect(a.push(parts[2])).toEqual({ resync: "proto.frameAssemblyBudgetExceeded" });
    expect(a.stats).toEqual({ assemblies: 0, stagedBytes: 0 });
  });

  test("too many fragments, or too large: resync before anything is held", () => {
    const a = new FrameAssembler({ maxFragments: 2, maxAssemblyBytes: 100_000 });
    expect(a.push(fragments(snap, 1, 3)[0])).toEqual({ resync: "proto.frameFragmentCountExceeded" });
    const b = new FrameAssembler({ maxAssemblyBytes: 100 });
    expect(b.push(fragments(snap, 1, 2)[0])).toEqual({ resync: "proto.frameAssemblyTooLarge" });
    expect(b.stats.stagedBytes).toBe(0);
  });

  test("a frame whose fragments stop coming times out (ZCode: 30 s)", () => {
    const a = new FrameAssembler();
    frames(a.push(fragments(snap, 1, 2)[0], 1000));
    expect(a.push(complete(deltasFrame(0, []), 2), 1000 + 30_000)).toEqual({ resync: "proto.frameAssemblyTimedOut" });
    expect(a.stats.assemblies).toBe(0);
    // The same from a timer, with nothing arriving.
    const b = new FrameAssembler();
    frames(b.push(fragments(snap, 1, 2)[0], 1000));
    expect(b.check(1000 + 29_999)).toBeUndefined();
    expect(b.check(1000 + 30_000)).toEqual({ resync: "proto.frameAssemblyTimedOut" });
    expect(b.stats).toEqual({ assemblies: 0, stagedBytes: 0 });
  });

  test("other topics on the same notification (sessions-index, transport.ts) are left alone", () => {
    const a = new FrameAssembler();
    const index = { ...complete(snap, 1), topic: "sessions-index/ws-1", frame: { ...snap, topic: "sessions-index/ws-1" } };
    expect(a.push(index)).toEqual([]);
    expect(frames(a.push(complete(snap, 1)))).toHaveLength(1);
  });

  test("bad wire metadata and bad payloads ask for a resync, never throw", () => {
    const a = new FrameAssembler();
    expect("resync" in (a.push({ nonsense: true }) as object)).toBe(true);
    const bad = { ...fragments(snap, 1, 2)[0], fragmentIndex: 5 };
    expect(a.push(bad)).toEqual({ resync: "proto.frameAssemblyMetadataMismatch" });
    const c = new FrameAssembler();
    const r = c.push(complete({ ...snap, payload: { kind: "snapshot", snapshot: { nope: 1 } } }, 1));
    expect((r as { resync: string }).resync).toStartWith("proto.frameInvalidPayload");
  });
});
