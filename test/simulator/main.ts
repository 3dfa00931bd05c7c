/**
 * # ZCode simulator (`dist/zcode-sim`)
 *
 * A real process that speaks the ZCode CLI's app-server wire over stdio
 * (line-delimited JSON, no `jsonrpc` field), for tests, the demo and the
 * benchmarks. Point the bridge at it with `ZCODE_BIN=$PWD/dist/zcode-sim`; the
 * bridge passes its environment to the child, so every `ZCODE_SIM_*` variable
 * can be set on the bridge.
 *
 * Run: `bun run build --sim-only && dist/zcode-sim app-server --stdio`
 * (or `bun test/simulator/main.ts app-server --stdio`); `zcode-sim --version`
 * prints the personality's version. Anything else: usage, exit 2.
 * It exits when stdin closes, like the real CLI.
 *
 * Environment (flag):
 * - ZCODE_SIM_VERSION (--sim-version): personality. 0.14.7: session/subscribe
 *   and extension methods → -32601. 0.14.8: no workspace/*, steer, rewind.
 *   0.15.3 (default): everything. 0.16.2: steer and rewind → -32601, `turnId`
 *   on event envelopes. Any x.y.z is accepted and classified by these bounds.
 * - ZCODE_SIM_STATE_DIR: sessions as JSON files (default $TMPDIR/zcode-sim-<uid>).
 * - ZCODE_SIM_RECORD: append every received line as `{t, line}` JSON lines.
 * - ZCODE_SIM_RESEND_MS: re-send interval of unanswered interactions (1000).
 * - ZCODE_SIM_DELAY_MS: delay between streamed events (5).
 * - ZCODE_SIM_STOP_IGNORE_MS: how long `ignore-stop` ignores session/stop (3000).
 * - ZCODE_SIM_SCENARIO: scenario for prompts without a tag (`default`).
 * - ZCODE_SIM_REPLAY: a bridge trace (JSON lines `{t, dir, msg}`) whose
 *   `zcode->bridge` frames are replayed instead of live behaviour: each one is
 *   sent once the bridge frames traced before it have arrived (requests matched
 *   by method in order, response ids rewritten to the ids actually used).
 * - ZCODE_SIM_REPLAY_WAIT_MS: how long replay waits for an expected bridge
 *   frame before skipping it (10000).
 * - ZCODE_SIM_REPLAY_MAX_GAP_MS: replay keeps the traced time between frames,
 *   capped at this (50; 0 = as fast as possible).
 * - ZCODE_SIM_FUZZ=<seed>: interleave random-but-bounded junk frames (bad
 *   JSON, wrong types, unknown events/methods, stray and duplicate responses)
 *   with the normal answers and events; every turn still completes.
 *
 * Scenarios: a prompt tag `#scenario:NAME key=value…` picks what the turn does
 * (the tag is removed from the text the turn echoes and from the title; an
 * unknown NAME fails the turn, naming the known ones):
 * - default: reasoning deltas, then `Echo: <prompt>`; text: reasoning and text
 *   with multi-byte UTF-8; usage: a session.updated with fixed usage mid-turn.
 * - bash, read, edit, write, grep, glob, webfetch, task, todo: one tool with
 *   realistic input, cumulative progress tails (bash), structured result
 *   (ZCODE-SHAPES.md); `scheduled` omits the input; todo updates the session's
 *   todos ~50 ms after the tool result. tools: all of them; batch: two tools
 *   finished by a `batch` whose item for the already finished one has no output.
 * - permission: Bash `rm -rf build` asks interaction/requestPermission (re-sent
 *   every ZCODE_SIM_RESEND_MS, same requestId), except in mode yolo; plan:
 *   ExitPlanMode approval (accept → mode build); question / question-multi:
 *   AskUserQuestion with top-level `questions` / `input.questions`.
 * - fail-transient (fails=N, counted per prompt text), fail-fatal, max-tokens,
 *   refusal, max-turns: the matching turn.failed / resultType.
 * - slow (n=): paced deltas, stops promptly; ignore-stop (n=, ignore=ms):
 *   streams on through a stop for ZCODE_SIM_STOP_IGNORE_MS, then `cancelled`.
 * - seq-gap: some events stored but not pushed; stall: the second half (with
 *   turn.completed) is held until the next session/subscribe (afterSeq).
 * - garbage, unknown-request (text says how the bridge answered), crash (exit
 *   3 mid-turn), huge-line (bytes=, default 40 MiB), flood (n=, size=, ts=1:
 *   deltas start `<index>@<µs epoch>:`, rate=: deltas per second), flood-tools
 *   (n=, tail=: Bash progress with a sliding cumulative tail of that size).
 * - evict: the first send of that exact text answers -32004 and deactivates
 *   the session until session/resume; the resent prompt then runs as default.
 * - hang-request: this session/send is never answered (next=1: the following
 *   one instead).
 * Every turn: turn.started first, turn.completed/turn.failed last, then
 * session.updated with usage; seq increases per session; events are stored
 * (session/subscribe afterSeq returns them) and pushed only to subscribed
 * sessions. Busy sends answer 1308; the first session/create waits for the
 * answer to session/requestRuntimePreferences; frames carrying `jsonrpc` are
 * rejected (-32600 when they have an id).
 *
 * Modules: wire.ts (framing, stdout), server.ts (dispatch), methods.ts (every
 * method), store.ts (persistence), runner.ts + turn.ts (turns), scenarios/
 * (registry in scenarios/index.ts), interactions.ts (requests to the bridge,
 * re-sent), personality.ts, replay.ts, fuzz.ts. Tests: test/unit/sim-*.test.ts.
 */
import { loadConfig, parseArgs, type SimConfig, UsageError } from "./config.ts";
import { personality } from "./personality.ts";
import { handleLine } from "./server.ts";
import { Sim } from "./sim.ts";
import { Store } from "./store.ts";
import { log, Out, readLines, recorder } from "./wire.ts";

const USAGE = "usage: zcode-sim app-server --stdio [--sim-version X.Y.Z]\n       zcode-sim --version\n";

async function serve(cfg: SimConfig): Promise<void> {
  const out = new Out();
  const store = new Store(cfg.stateDir);
  const sim = new Sim(cfg, personality(cfg.version), store, out);
  out.beforeWrite = () => store.flushEvents();
  let exiting = false;
  sim.exit = async (code) => {
    if (exiting) return new Promise<void>(() => {});
    exiting = true;
    store.flush();
    // A reader that stopped reading must not keep the process alive.
    await Promise.race([out.drain(), Bun.sleep(2000)]);
    process.exit(code);
  };
  out.onGone = () => void sim.exit(0);
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void sim.exit(0));
  const record = recorder(cfg.record);
  let onLine = (line: string) => handleLine(sim, line);
  if (cfg.fuzzSeed !== undefined) (await import("./fuzz.ts")).installFuzz(sim, cfg.fuzzSeed);
  if (cfg.replay) onLine = (await import("./replay.ts")).startReplay(sim, cfg.replay, cfg.replayWaitMs, cfg.replayMaxGapMs);
  for await (const line of readLines(Bun.stdin.stream())) {
    record(line);
    onLine(line);
  }
  // The real CLI exits when its stdin closes, even mid-turn.
  await sim.exit(0);
}

async function main(): Promise<void> {
  try {
    const { words, simVersion } = parseArgs(process.argv.slice(2));
    const cfg = loadConfig(process.env, simVersion);
    if (words.length === 1 && words[0] === "--version") {
      process.stdout.write(`${cfg.version}\n`);
      return;
    }
    if (words.length === 1 && (words[0] === "--help" || words[0] === "-h")) {
      process.stdout.write(USAGE);
      return;
    }
    if (words.length === 2 && words[0] === "app-server" && words[1] === "--stdio") return await serve(cfg);
    throw new UsageError(`unexpected arguments: ${words.join(" ") || "(none)"}`);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`zcode-sim: ${e.message}\n${USAGE}`);
      process.exit(2);
    }
    log(`fatal: ${(e as Error).stack ?? e}`);
    process.exit(1);
  }
}

await main();
