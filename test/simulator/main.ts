/**
 * # ZCode simulator (`dist/zcode-sim`)
 *
 * A real process that plays the ZCode CLI's app-server (`zcode app-server
 * --stdio`) over stdio, as ZCode's own source defines it (the strict zod
 * schemas of packages/shared/src/zcode-protocol and the CLI's
 * server-operations.ts; see /work/shared/spec/ZCODE-REAL-WIRE.md), awkward
 * parts included. Tests, the demo and the benchmarks run it as the bridge's
 * child: `ZCODE_BIN=$PWD/dist/zcode-sim`; the bridge passes its environment on,
 * so every `ZCODE_SIM_*` variable can be set on the bridge.
 *
 * Run: `bun scripts/build.ts --sim-only && dist/zcode-sim app-server --stdio`
 * (or `bun test/simulator/main.ts app-server --stdio`); `zcode-sim --version`
 * prints the personality's version. Anything else: usage, exit 2. It exits
 * when stdin closes, like the real CLI.
 *
 * ## Wire
 * One JSON object per line, no `jsonrpc` key. Bad JSON → `{"error":{"code":
 * -32700,"message":"Parse error"},"id":"parse-error"}`; a frame that is not one
 * of the four strict shapes (e.g. it carries `jsonrpc`) → `{"error":{"code":
 * -32600,"data":{"issues":[…]},"message":"Invalid ZCode Protocol message"},"id":
 * "invalid-message"}` and is dropped. Notifications (no `id`) are IGNORED —
 * `session/stop` too. Requests run STRICTLY SERIALLY (the next handler starts
 * when the previous one settled); `session/stop` bypasses the queue; answers
 * to the simulator's own requests bypass it. Params are parsed with ZCode's
 * strict schemas: unknown keys / wrong types → -32602 `Invalid params — <path>:
 * <msg>`. Errors: plain failures -32603 (data {name, stack, code?}); -32004
 * `Session is not active: <id>` (any session method on a session not created,
 * resumed or forked in this process) / `Session not found: <id>` (resume);
 * -32010 busy; -32009 revision mismatch; -32601 `Method not found: <m>`.
 * Requests to the bridge use string ids `server-1`, `server-2`, … (one counter).
 * Notifications to the bridge: `session/event` (only once the session has a
 * delivery kind) and `state.updated` (always).
 *
 * ## Methods (0.16.9)
 * - session/create → snapshot (full model list); THEN session/requestRuntimePreferences
 *   {sessionId, scope:"runtime-materialization"}. Its answer is validated strictly
 *   ({nativeSearchEnhancementsEnabled REQUIRED, …}); -32601 = defaults; any other
 *   error, an invalid answer or 15 s of silence is logged and fails the session's
 *   next session/send with -32603 carrying the reason (turns wait for the answer).
 * - session/resume: unknown → -32004 `Session not found`; active → its snapshot,
 *   params ignored; else a new materialization (seq restarts at 1, a
 *   session.resumed event is stored), snapshot, then requestRuntimePreferences.
 * - session/list {workspace?, sessionIds?, includeArchived?, limit?} → {sessions: info[]}.
 * - session/read {sessionId, deliveryKind?, messageLimit?, afterSeq?, contentProfile?}
 *   → snapshot (current model only; last messageLimit messages, else all).
 *   A deliveryKind turns live pushes on.
 * - session/messages {sessionId, afterMessageId?, limit?} → {messages}.
 * - session/events {sessionId, afterSeq?, limit?} → {events}.
 * - session/subscribe {sessionId, deliveryKind (REQUIRED), afterSeq?, includeSnapshot?}
 *   → {eventSeq, events (afterSeq omitted: []), sessionId, snapshot?}; subscribing
 *   again replaces the one stream.
 * - session/send {sessionId, content, attachments?, inputId?, queryId?, modelSelection?,
 *   expectedRevision?, …} → state.updated prompt_started {status:"running"} THEN
 *   {sessionId, accepted:true, stateRevision}; the turn runs in the background.
 *   Busy → -32010 "A prompt is already running for this session".
 * - session/stop (a REQUEST) → {}; the turn ends turn.completed resultType "cancelled".
 * - session/close → {closed:true} and the conversation is DELETED (gone from
 *   session/list, resume → -32004 Session not found).
 * - session/fork {sessionId, target?} → {forkedSessionId, parentSessionId,
 *   targetMessageId, targetCheckpointId, response, snapshot}; the fork is active.
 * - session/compact → {response:"", snapshot, compact:{state:"accepted"|"already_running"}};
 *   the compaction runs as a turn (compact_summary message, context drops).
 * - session/goal {action, objective?} → {response, snapshot, startedTurn}.
 * - session/setModel / setThoughtLevel / setMode → snapshot (current model only) +
 *   state.updated model_changed / thought_level_changed / mode_changed, and a
 *   session.updated event. setModel: a level-bearing model without
 *   options.reasoningLevel → -32603 `Reasoning level is required for p/m`; a level it
 *   lacks → `Reasoning effort "l" is not supported by p/m`; unknown or disabled →
 *   `Provider Registry 中不存在 Model: p/m`. setThoughtLevel without a level → -32602
 *   `thoughtLevel is required`.
 * - workspace/readPresentation, runtime/capabilities.
 * Personalities (ZCODE_SIM_VERSION): 0.14.7 no subscribe/extensions/workspace;
 * 0.14.8 no workspace/*; 0.15.x adds session/steer and session/rewind (their
 * 0.15 behaviour); 0.16.x (default 0.16.9) has neither (-32601).
 *
 * ## Events
 * Envelope {deliveryKind?, eventId, payload, seq, sessionId, timestamp,
 * traceId, turnId?, type}; seq per session, contiguous from 1 over every event
 * the CLI sends (session.titleUpdated, session.updated, checkpoint.created,
 * streamRecovery.updated, tool_input_*, permission.* included), restarting at 1
 * when the session is materialized again. A turn: [session.titleUpdated on the
 * first input] [session.updated SessionStart hook] turn.started, model.streaming
 * reasoning_delta/text_delta (and tool_input_start/delta/end, tool_call),
 * session.updated usage per model request, tool.updated scheduled (input
 * omitted) / started / progress / result | error, batch, checkpoint.created,
 * streamRecovery.updated, … then turn.completed | turn.failed, then
 * state.updated prompt_completed | prompt_failed.
 *
 * ## Interactions (answers read as ZCode's interaction broker reads them)
 * - interaction/requestPermission {input, reason, requestId:"perm_…", riskLevel,
 *   sessionId, options:[allow_once, allow_project (kind allow_always, with
 *   permissionUpdates), deny], toolCallId, toolName, turnId}, re-announced under a
 *   new id until a copy is answered. The answer must be a strict permission
 *   response {decision, reason?, modifiedInput?, permissionUpdates?}; anything else
 *   (or an error) fails the tool. The permissionUpdates of an allow are stored with
 *   the conversation: a later matching request is allowed without asking.
 * - ExitPlanMode: interaction/requestUserInput with schema {interaction:
 *   "plan_approval"}; approved only when content.answers["Review this
 *   implementation plan."] ?? content.answer_0 ?? content.answer trims to "approve".
 * - AskUserQuestion: interaction/requestUserInput; answers by question text (string
 *   or array of labels) or answer_<i>; the tool result says what arrived.
 * - interaction/requestProviderRuntimeHeaders before the model request of an
 *   account provider (providerId "account:…"): {headersApplied:true, requestAuth:
 *   {apiKey…}} lets the turn run (the echo says `auth: apiKey`); headersApplied
 *   false, an error or an invalid answer fails the turn.
 *
 * ## Environment (flag)
 * - ZCODE_SIM_VERSION (--sim-version): personality (default 0.16.9).
 * - ZCODE_SIM_STATE_DIR: conversations as JSON files (default $TMPDIR/zcode-sim-<uid>).
 * - ZCODE_SIM_RECORD: append every received line as `{t, line}` JSON lines.
 * - ZCODE_SIM_RESEND_MS: re-announce base of unanswered interactions (1000): copies
 *   after 1, 2, 4, 8, then every 10 bases.
 * - ZCODE_SIM_DELAY_MS: pause between streamed events (5).
 * - ZCODE_SIM_STOP_IGNORE_MS: how long `ignore-stop` ignores session/stop (3000).
 * - ZCODE_SIM_SCENARIO: scenario of prompts without a tag (`default`).
 * - ZCODE_SIM_BOOT_MS: delay before answering anything, --version included (0).
 * - ZCODE_SIM_HANDLER_DELAY_MS: time every queued request handler takes (0).
 * - ZCODE_SIM_BATCH_DELTAS: 0 sends every text/reasoning/tool-input delta as its own
 *   event (default: batched as the CLI does, delta-batch.ts)
 * - ZCODE_SIM_CONTEXT_FILL: a test switch (no CLI behaviour): each model request
 *   reports at least this fraction of the context window in use (0.95: near full).
 * - ZCODE_SIM_V4_PROBE=<fault>[*n], ZCODE_SIM_V4_ACK=<type>:<fault>[*n],…: faults of
 *   the v4 probe and of v4 command ACKs (late, garbled, refused; v4-faults.ts).
 * - ZCODE_SIM_PROTOCOL=both|v4-only: `both` (default) is 0.16.9 with legacy and v4;
 *   `v4-only` is a CLI whose legacy protocol file is deleted (v4-only.ts): every
 *   non-v4 method answers -32601, sessions are made with v4 createSession (drafts),
 *   events reach clients only as v4/conversation/frame topic frames
 *   (v4/conversation/subscribe conversation/<id> or sessions-index/<workspaceId>),
 *   permissions and questions are snapshot.pendingInteractions answered with
 *   resolveInteraction, files come through v4/attachment/begin|chunk|commit, and an
 *   account provider's credentials ride on sendText.modelExecution.requestAuth.
 * - ZCODE_SIM_V4_MAX_FRAME_BYTES: the physical frame budget of topic frames (default
 *   and ceiling 1048576); lower it to see frames fragmented (v4-wire.ts).
 * - ZCODE_SIM_ACK_WITH_FIRST_TEXT=1: the ACK of a v4 command that starts a turn
 *   (sendText, editUserQuery, retryTurn) is written in one write
 *   together with everything up to the turn's first text delta. No CLI behaviour
 *   of its own: ZCode writes frame by frame, but a pipe keeps no write
 *   boundaries, so a reader that reads late gets the answer and the first
 *   events in one read; this makes that case happen every time (wire.ts Out.cork).
 * - ZCODE_SIM_TODOS_LAG_MS: how long after a TodoWrite result session/read shows
 *   the new todos (default 50).
 * - ZCODE_SIM_BUSY_TAIL_MS: how long a session stays busy after turn.completed/failed
 *   (0: until the end event is written). A send in that window gets -32010, as on a
 *   real CLI that clears its busy flag after the turn's events; state.updated
 *   prompt_completed / prompt_failed marks the end of the window. session/read
 *   says idle throughout it (the runtime's projection has ended the turn).
 * - ZCODE_SIM_REQUIRE_PROVIDER_CONFIG=1: the desktop 3.12+ bundle: app-server exits 1
 *   printing `无法定位 CLI ZCode Built-in Provider Config` unless
 *   ZCODE_BUILTIN_PROVIDER_CONFIG_FILE names an existing file (--version still works).
 * - ZCODE_SIM_DEFAULT_MODEL=provider/model[@level]: the model new sessions start on
 *   (default builtin:zai-coding-plan/GLM-5.3@max).
 * - ZCODE_SIM_RESUME_RESETS_MODEL=1: a cold resume puts the default model back.
 * - ZCODE_SIM_WITHDRAWN_MODELS=provider/model,…: left out of every model list (a
 *   removed provider); a session may still be on one (ZCODE_SIM_DEFAULT_MODEL), and
 *   setModel to one is refused like an unknown model.
 * - ZCODE_SIM_DISABLED_MODELS=provider/model,…: listed with disabledReason
 *   "Switched off in the ZCode app"; setModel to one is refused.
 * - ZCODE_SIM_SET_MODEL_FAILS=provider/model,…: listed as usual, but setModel to one
 *   fails -32603 `Provider <p> is unavailable: connection refused` (a provider outage).
 * - Read like the real CLI: ZCODE_BUILTIN_PROVIDER_CONFIG_FILE,
 *   ZCODE_PERSONAL_PROVIDER_CONFIG_FILE (reported by the `env` scenario), and
 *   ZCODE_BASE_URL (if set, every model request fails: turn.failed configuration_error).
 * - ZCODE_SIM_REPLAY: a bridge trace (JSON lines `{t, dir, msg}`) whose
 *   `zcode->bridge` frames are replayed instead of live behaviour (requests
 *   matched by method in order, response ids rewritten; a traced request the
 *   bridge skips is dropped with its answer as soon as it sends a later one, or
 *   after 250 ms when it is a repeat of a method the bridge already sent).
 * - ZCODE_SIM_REPLAY_WAIT_MS: how long replay waits for an expected bridge frame (10000).
 * - ZCODE_SIM_REPLAY_MAX_GAP_MS: replay keeps the traced time between frames,
 *   capped at this (50; 0 = as fast as possible).
 * - ZCODE_SIM_REPLAY_WORKSPACE: replaces the trace's workspace path in replayed frames.
 * - ZCODE_SIM_FUZZ=<seed>: interleave junk (bad JSON and bytes, broken frames,
 *   unknown methods/requests, stray and duplicate responses, re-sent events,
 *   odd state.updated) and real events of unknown types or odd-but-valid
 *   payloads (which consume seqs); every turn still completes.
 *
 * ## Scenarios
 * A prompt tag `#scenario:NAME key=value…` picks what the turn does (the tag is
 * removed from the echo and the title; an unknown NAME fails the turn, naming
 * the known ones):
 * - default: reasoning, then `Echo: <prompt>` plus a line per note
 *   (`Attachments: image shot.png image/png 1234 bytes; …`, `auth: apiKey`).
 *   text: multi-byte text; usage: fixed usage (12345 in / 678 out);
 *   markers: every model.streaming kind (start/finish/…_start/…_end/error too);
 *   env: reports the launch environment, mcpServers, runtime preferences, model;
 *   history (n=20): n earlier exchanges are added to the transcript;
 *   forget-model: the session's next cold resume falls back to the default model.
 * - Outcomes: max-turns, max-budget, max-tool-calls, during-execution →
 *   turn.completed resultType error_*; max-tokens / refusal → success whose
 *   usage event has that stopReason (no such result type exists);
 *   fail-transient (fails=N per prompt text; top=1: top-level retryable) →
 *   turn.failed attribution.retryable:true; fail-fatal → retryable:false;
 *   fail-quota: the plan's 5-hour allowance spent (provider code 1308).
 * - Tools: bash, bash-fail (exit 1), read, edit, write, grep, glob, webfetch,
 *   websearch, task / agent (Agent), todo (session todos ~50 ms later),
 *   tool-error (an Edit that fails), tools (all of them, a failing Edit and a
 *   failing Bash included; Read and Grep omit toolName on tool_call), batch (two
 *   tools in one parallel group).
 * - Interactions: permission (Bash `rm -rf build` asks unless yolo or an
 *   "always" rule covers it), plan (ExitPlanMode approval; approved → mode
 *   build), question, question-multi (AskUserQuestion).
 * - Faults: slow (n=), ignore-stop (n=, ignore=ms), seq-gap (some events stored
 *   but not pushed), stall (the rest of the turn only via subscribe afterSeq),
 *   garbage, unknown-request, crash (exit 3 mid-turn), huge-line (bytes=),
 *   flood (n=, size=, ts=1, rate=), flood-tools (n=, tail=), evict (first send
 *   → -32004 Session is not active until session/resume), hang-request (that
 *   send's answer is never written — the queue moves on; next=1: the following
 *   one's). Any scenario takes noanswer=1: its turn runs, but the send that
 *   started it is never answered.
 *
 * Modules: wire.ts (framing, stdout), server.ts (frames, queue, dispatch),
 * schema.ts + zcode-schemas.ts (ZCode's strict schemas), methods.ts, snapshot.ts,
 * catalog.ts (models), store.ts (persistence), sim.ts (sessions, events, seq),
 * runner.ts + turn.ts (turns, tools, approvals), attachments.ts, scenarios/,
 * interactions.ts (requests to the bridge), personality.ts, replay.ts, fuzz.ts.
 * Tests: test/simulator/sim-*.test.ts.
 */
import { loadConfig, parseArgs, providerConfigProblem, type SimConfig, UsageError } from "./config.ts";
import { log } from "./wire.ts";

const USAGE = "usage: zcode-sim app-server --stdio [--sim-version X.Y.Z]\n       zcode-sim --version\n";

async function serve(cfg: SimConfig): Promise<void> {
  // Loaded here, not at the top: every bridge the e2e suite starts runs `--version` first, which needs none of it.
  const [{ setCatalogKnobs }, { personality }, { Server }, { Sim }, { Store }, { Out, readLines, recorder }] = await Promise.all([
    import("./catalog.ts"),
    import("./personality.ts"),
    import("./server.ts"),
    import("./sim.ts"),
    import("./store.ts"),
    import("./wire.ts"),
  ]);
  setCatalogKnobs(cfg.catalog);
  const out = new Out();
  const store = new Store(cfg.stateDir, cfg.defaultModel);
  const sim = new Sim(cfg, personality(cfg.version), store, out);
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
  const server = new Server(sim);
  let onLine = (line: string) => server.handleLine(line);
  if (cfg.protocol === "v4-only") (await import("./v4-only.ts")).installV4Only(sim);
  if (cfg.fuzzSeed !== undefined) (await import("./fuzz.ts")).installFuzz(sim, cfg.fuzzSeed);
  if (cfg.replay)
    onLine = (await import("./replay.ts")).startReplay(sim, cfg.replay, cfg.replayWaitMs, cfg.replayMaxGapMs, cfg.replayWorkspace);
  const l = cfg.launch;
  log(
    `zcode-sim ${cfg.version} app-server: builtin provider config ${l.builtinProviderConfigFile ?? "unset"}, personal provider config ${l.personalProviderConfigFile ?? "unset"}${l.baseUrl ? `, ZCODE_BASE_URL=${l.baseUrl} (model requests will fail)` : ""}`,
  );
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
    // A slow-booting Node CLI: nothing is answered before this (input waits in the pipe).
    if (cfg.bootMs > 0) await Bun.sleep(cfg.bootMs);
    if (words.length === 1 && words[0] === "--version") {
      // The real --version works without the provider config (and cannot tell desktop builds apart).
      process.stdout.write(`${cfg.version}\n`);
      return;
    }
    if (words.length === 1 && (words[0] === "--help" || words[0] === "-h")) {
      process.stdout.write(USAGE);
      return;
    }
    if (words.length === 2 && words[0] === "app-server" && words[1] === "--stdio") {
      const problem = providerConfigProblem(cfg);
      if (problem) {
        process.stderr.write(`${problem}\n`);
        process.exit(1);
      }
      return await serve(cfg);
    }
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
