// Big prompts: what the editor may send, what goes to ZCode, and what ZCode
// echoes of it in its own lines (turn.started carries the prompt's text) must
// agree. A prompt accepted from the editor completes; anything larger is
// refused at once, with the real limit in the message. The documented
// attachment limits (10 MiB per image, 50 MiB per prompt) are file sizes and
// are really sendable, although base64 adds a third on the wire.
import { expect, test } from "bun:test";
import { rejection, withBridge } from "../support/acp-harness.ts";

const MiB = 1024 * 1024;

test("limits lowered (4 MiB from the editor, 2 MiB lines from ZCode): a 3 MiB prompt is refused at once naming the limit; one under it completes", async () => {
  await withBridge(
    { record: true, env: { ZCODE_ACP_MAX_MESSAGE_BYTES: String(4 * MiB), ZCODE_ACP_MAX_LINE_BYTES: String(2 * MiB) } },
    async (h) => {
      const { sessionId } = await h.newSession();
      const err = await rejection(h.prompt(sessionId, "x".repeat(3 * MiB)));
      expect(err.code).toBe(-32602);
      // 2 MiB less an eighth of it for the rest of ZCode's line.
      expect(err.message).toContain("(1,835,008 bytes;");
      expect(h.simFrames().filter((f) => f.method === "session/send")).toEqual([]);
      const fits = "y".repeat(1835008 - 4096);
      const r = await h.prompt(sessionId, fits);
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain(`Echo: ${fits}`);
    },
  );
}, 60_000);

test("default limits: a 40 MiB prompt completes", async () => {
  await withBridge({}, async (h) => {
    const { sessionId } = await h.newSession();
    const big = `#scenario:text ${"z".repeat(40 * MiB)}`;
    const r = await h.prompt(sessionId, big);
    expect(r.stopReason).toBe("end_turn");
  });
}, 120_000);

test("default limits: five images of 10 MiB each (50 MiB of files, 66.7 MiB as base64) are sent and the turn completes", async () => {
  await withBridge({ record: false }, async (h) => {
    const { sessionId } = await h.newSession();
    const image = Buffer.alloc(10 * MiB, 0x42).toString("base64");
    const blocks = [
      { type: "text" as const, text: "five screenshots" },
      ...Array.from({ length: 5 }, (_, i) => ({
        type: "image" as const,
        data: image,
        mimeType: "image/png",
        uri: `file:///home/me/shot-${i}.png`,
      })),
    ];
    const r = await h.prompt(sessionId, blocks);
    expect(r.stopReason).toBe("end_turn");
    expect(h.text(sessionId)).toContain(`image shot-4.png image/png ${10 * MiB} bytes`);
    // One byte more than 50 MiB of files: refused in file sizes.
    const over = [
      ...blocks,
      { type: "resource" as const, resource: { uri: "file:///home/me/x.pdf", mimeType: "application/pdf", blob: "AAAA" } },
    ];
    const err = await rejection(h.prompt(sessionId, over));
    expect(err.code).toBe(-32602);
    expect(err.message).toContain("at most 50 MiB in all (file sizes); these are 50 MiB (52,428,803 bytes)");
  });
}, 120_000);
