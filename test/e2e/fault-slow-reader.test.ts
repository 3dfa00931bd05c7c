// A slow editor: it stops reading the bridge's stdout for a while during a
// flood. Consecutive deltas are merged (far fewer messages than events), the
// text arrives complete and in order, and the bridge's memory stays bounded
// because a large backlog stops it reading ZCode (pipe backpressure) instead
// of buffering the whole stream. (agent-slow-editor covers the merge rules
// with small floods; this one is about memory under a large one.)
import { expect, test } from "bun:test";
import { slowReader } from "../../scripts/bench/throughput.ts";

test("100 MB of deltas to an editor that pauses 3 s: merged, intact, bridge RSS bounded", async () => {
  const r = await slowReader(25_000, 4096, 3000);
  console.log(`slow reader: ${r.messages} messages for ${r.events} deltas, bridge max RSS ${r.maxRssMB.toFixed(0)} MB`);
  expect(r.stopReason).toBe("end_turn");
  expect(r.textIntact).toBe(true);
  expect(r.messages).toBeLessThan(r.events / 4);
  // Unbounded buffering holds the whole 100 MB stream (as UTF-16 and while
  // serialising): about 1 GB. Bounded stays near the idle size.
  expect(r.maxRssMB).toBeLessThan(250);
}, 120_000);
