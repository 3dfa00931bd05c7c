// Many sessions on one bridge with concurrent turns: every turn completes
// with all of its events, in order, per session (the bench runs 100).
import { expect, test } from "bun:test";
import { manySessions } from "../../scripts/bench/throughput.ts";

test("20 sessions, concurrent flood turns: every turn completes with every delta in order", async () => {
  const r = await manySessions(20, 500, 64);
  console.log(`20 sessions: ${r.completed} completed in ${r.seconds.toFixed(2)} s, bridge max RSS ${r.maxRssMB.toFixed(0)} MB`);
  expect(r.failures).toEqual([]);
  expect(r.completed).toBe(20);
  expect(r.allIntact).toBe(true);
}, 60_000);
