// Misbehaviour the bridge must survive: slow and unstoppable turns, seq gaps,
// stalls, garbage on stdout, unknown requests, crashes, huge lines.
import type { Turn } from "../turn.ts";
import { log } from "../wire.ts";
import { defaultReply } from "./basic.ts";
import { bashContent, bashDetail, bashProgress, readSpec } from "./fixtures.ts";

export async function slow(t: Turn): Promise<void> {
  const n = t.num("n", 200);
  // untilstop=1 (a test switch): streams on until a v4 stop has arrived (not yet run:
  // it waits in the request queue), then ends as a success, so a stop lands after its turn.
  const untilStop = t.num("untilstop", 0) === 1;
  const stops = t.sim.stopsArrived;
  for (let i = 0; i < n || (untilStop && t.sim.stopsArrived === stops && i < 5000); i++) {
    await t.say(`chunk ${i} `);
    await t.pace(4);
  }
}

/** Keeps streaming through a session/stop for ZCODE_SIM_STOP_IGNORE_MS, then ends cancelled. */
export async function ignoreStop(t: Turn): Promise<void> {
  t.ignoreStopMs = t.num("ignore", t.cfg.stopIgnoreMs);
  const n = t.num("n", 200);
  for (let i = 0; i < n || t.stopRequested; i++) {
    await t.say(`chunk ${i} `);
    await t.pace(4);
  }
}

/** Some events (by position in the scenario) are stored but not pushed. */
export async function seqGap(t: Turn): Promise<void> {
  t.unbatched = true;
  const hidden = new Set([2, 3, 6]);
  let i = 0;
  t.live = () => !hidden.has(++i);
  for (const d of ["one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight"]) {
    await t.say(d);
    await t.pace();
  }
}

/** Half the turn goes out live; the rest only via session/subscribe afterSeq. */
export async function stall(t: Turn): Promise<void> {
  const words = ["alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta"];
  for (let i = 0; i < words.length; i++) {
    if (i === words.length / 2) t.r.holdLive = true;
    await t.say(words[i]!);
    await t.pace();
  }
}

/**
 * The model pauses mid-stream for `ms` (default 1500), `pauses` times
 * (default 1) in its text, and with `reasoning=1` also in its thinking first:
 * the deltas before a pause sit in the CLI's live batch (delta-batch.ts),
 * judged by timestamps when the next delta comes, no timer; a re-read in the
 * pause flushes that tail under a seq of its own, and the next delta sends
 * it again merged with the new text under another one. `tool=1` adds a Read
 * whose input stream pauses too (tool_input_delta batches alike).
 */
export async function pause(t: Turn): Promise<void> {
  const ms = t.num("ms", 1500);
  if (t.params.reasoning === "1") {
    for (const d of ["Weighing ", "it up"]) await t.reasoning(d);
    await t.sleep(ms);
    for (const d of [" and ", "settled"]) await t.reasoning(d);
    await t.sleep(ms);
    await t.reasoning(".");
  }
  const groups = [
    ["The answer ", "to the question ", "is forty"],
    ["-two", ", and that is all."],
    [" Well, ", "almost"],
    [" all", "."],
  ];
  const pauses = Math.min(groups.length - 1, t.num("pauses", 1));
  for (let g = 0; g <= pauses; g++) {
    if (g > 0) await t.sleep(ms);
    for (const d of groups[g]!) await t.say(d);
  }
  if (t.params.tool === "1") {
    const spec = readSpec(t.ws);
    const calls = await t.callTools([{ toolName: spec.toolName, input: spec.input, inputPauseMs: ms }]);
    await t.runTools(calls, () => spec.exec);
  }
}

export async function garbage(t: Turn): Promise<void> {
  const out = t.sim.out;
  await t.say("Before the noise. ");
  out.raw("Warning: this is not JSON {{{");
  out.raw(
    JSON.stringify({
      method: "session/event",
      params: { sessionId: t.s.id, seq: "not-a-number", type: "model.streaming", payload: { kind: "text_delta", delta: 42 } },
    }),
  );
  out.raw(JSON.stringify({ id: "server-nobody-asked-999", result: { ok: true } }));
  process.stderr.write("(node:1234) ExperimentalWarning: simulated diagnostic on stderr\n");
  await t.emit("mystery.event", { note: "an event type no bridge knows" });
  await t.pace();
  await defaultReply(t);
}

export async function unknownRequest(t: Turn): Promise<void> {
  await t.say("Asking something odd. ");
  const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 5000));
  const a = await Promise.race([
    t.sim.outgoing.request("zcode/unannouncedThing", { sessionId: t.s.id, detail: "not in the protocol document" }),
    timeout,
  ]);
  const note = a === "timeout" ? "no answer" : "error" in a ? `error ${a.error.code}` : "a result";
  log(`unknown request answered with ${note}`);
  await defaultReply(t, ` (unknown request answered with ${note})`);
}

export async function crash(t: Turn): Promise<void> {
  await t.say("Starting… ");
  await t.pace();
  await t.say("about to crash ");
  process.stderr.write("panic: simulated crash in the middle of a turn\n    at zcode-sim (scenario crash)\n");
  await t.sim.exit(3);
}

export async function hugeLine(t: Turn): Promise<void> {
  const bytes = t.num("bytes", 40 * 1024 * 1024);
  const head = '{"method":"log/noise","params":{"data":"';
  const tail = '"}}';
  t.sim.out.raw(head + "x".repeat(Math.max(0, bytes - head.length - tail.length)) + tail);
  t.sim.out.flush();
  const wait = t.sim.out.ready();
  if (wait) await wait;
  await defaultReply(t);
}

/**
 * `n` deltas of `size` bytes as fast as the reader takes them. `ts=1` starts
 * each delta with `<index>@<µs since the epoch>:` (latency measurement);
 * `rate=` paces to that many deltas per second.
 */
export async function flood(t: Turn): Promise<void> {
  // Every delta an event of its own: the worst case, past what the CLI's batching lets through.
  t.unbatched = true;
  const n = t.num("n", 1000);
  const size = t.num("size", 64);
  const ts = t.params.ts === "1";
  const rate = t.num("rate", 0);
  const base = "lorem ipsum dolor sit amet héllo ✓ ".repeat(Math.ceil(size / 30) + 1);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    if (rate > 0) {
      const ahead = t0 + (i * 1000) / rate - performance.now();
      if (ahead >= 1) await t.sleep(ahead);
    }
    const tag = ts ? `${i}@${Math.round((performance.timeOrigin + performance.now()) * 1000)}:` : `${i}:`;
    await t.say(tag + base.slice(0, Math.max(0, size - tag.length)));
  }
}

/** A Bash with n progress events whose tails slide over `tail` characters. */
export async function floodTools(t: Turn): Promise<void> {
  const n = t.num("n", 1000);
  const tailMax = t.num("tail", 4096);
  const command = "yes build-output | head";
  const calls = await t.callTools([{ toolName: "Bash", input: { command, description: "Produce a lot of output" } }]);
  await t.runTools(calls, () => ({
    run: async (c) => {
      const t0 = Date.now();
      let out = "";
      for (let i = 0; i < n; i++) {
        out += `line ${i} of build output\n`;
        if (out.length > tailMax) out = out.slice(out.length - tailMax);
        await bashProgress(t, c, out, "", Date.now() - t0, tailMax);
      }
      return {
        kind: "result",
        content: bashContent(out, "", 0),
        detail: bashDetail(command, 0, out.length, Date.now() - t0),
        budgetStrategy: "artifact",
      };
    },
  }));
  await t.say("Done.");
}

export const faultScenarios = {
  slow,
  "ignore-stop": ignoreStop,
  "seq-gap": seqGap,
  stall,
  garbage,
  "unknown-request": unknownRequest,
  crash,
  "huge-line": hugeLine,
  flood,
  "flood-tools": floodTools,
  pause,
  // Handled when session/send arrives (methods.ts); what runs afterwards is a default turn.
  evict: (t: Turn) => defaultReply(t),
  "hang-request": (t: Turn) => defaultReply(t),
};
