// The pure parts of the v4-only simulator: ZCode's coalesce rules (coalesce.ts)
// and the physical wire encoder (wire-codec.ts).
import { describe, expect, test } from "bun:test";
import { coalesce } from "./v4-topic.ts";
import { crc32Hex, encodeTopicWireFrames, measureEnvelopeBytes } from "./v4-wire.ts";

const row = (rowId: number, text: string, state = "streaming") => ({ rowId, kind: "assistantText", text, state });

describe("coalesce (coalesce.ts rules 1-4)", () => {
  test("adjacent row.delta of one row and path concatenate; adjacent state.updated merge", () => {
    expect(
      coalesce([
        { op: "row.delta", rowId: 1, path: "text", append: "a" },
        { op: "row.delta", rowId: 1, path: "text", append: "b" },
        { op: "state.updated", patch: { control: 1, meta: 1 } },
        { op: "state.updated", patch: { control: 2 } },
      ]),
    ).toEqual([
      { op: "row.delta", rowId: 1, path: "text", append: "ab" },
      { op: "state.updated", patch: { control: 2, meta: 1 } },
    ]);
  });

  test("an upsert swallows earlier deltas of its row, not across its appended row nor a row.removed", () => {
    expect(
      coalesce([
        { op: "row.appended", row: row(1, "") },
        { op: "row.delta", rowId: 1, path: "text", append: "x" },
        { op: "row.delta", rowId: 2, path: "text", append: "y" },
        { op: "row.upserted", row: row(1, "x", "complete") },
      ]),
    ).toEqual([
      { op: "row.appended", row: row(1, "") },
      { op: "row.delta", rowId: 2, path: "text", append: "y" },
      { op: "row.upserted", row: row(1, "x", "complete") },
    ]);
    const barrier = [
      { op: "row.delta", rowId: 1, path: "text", append: "x" },
      { op: "row.removed", fromRowId: 5 },
      { op: "row.upserted", row: row(1, "x", "complete") },
    ];
    expect(coalesce(barrier)).toEqual(barrier);
  });
});

describe("encodeTopicWireFrames (wire-codec.ts)", () => {
  const id = {
    deliveryKind: "online" as const,
    topic: "conversation/s",
    subscriptionId: "sub-e-1",
    logicalFrameId: "sub-e-1-lf-1",
    logicalFrameOrdinal: 1,
  };
  const frame = {
    topic: "conversation/s",
    subscriptionId: "sub-e-1",
    fromSeq: 0,
    toSeq: 3,
    sentAt: 1,
    payload: { kind: "deltas", deltas: [{ op: "row.delta", rowId: 1, path: "text", append: "文🌍".repeat(500) }] },
  };

  test("a frame that fits is one complete wire frame", () => {
    const [w, ...rest] = encodeTopicWireFrames(frame, id);
    expect(rest).toEqual([]);
    expect(w).toEqual({ wireVersion: 3, kind: "complete", ...id, frame });
  });

  test("over the budget: fragments within it, whose bytes reassemble to the frame (crc32 checked)", () => {
    const wires = encodeTopicWireFrames(frame, id, 2048);
    expect(wires.length).toBeGreaterThan(1);
    for (const w of wires) expect(measureEnvelopeBytes(w)).toBeLessThanOrEqual(2048);
    const bytes = Buffer.concat(wires.map((w) => Buffer.from(w.dataBase64 as string, "base64")));
    expect(wires.map((w) => w.fragmentIndex)).toEqual(wires.map((_, i) => i));
    expect(wires[0]!.fragmentCount).toBe(wires.length);
    expect(wires[0]!.logicalBytes).toBe(bytes.byteLength);
    expect((wires[0]!.checksum as { value: string }).value).toBe(crc32Hex(bytes));
    expect(JSON.parse(bytes.toString("utf8"))).toEqual(frame);
  });

  test("crc32 is the standard CRC-32", () => {
    expect(crc32Hex(new TextEncoder().encode("123456789"))).toBe("cbf43926");
  });
});
