import type { Handoff } from "../acp/handoff.ts";
import { fastAnswerableId, initializeResult, plainInitializeId, type JsonRpcId } from "../acp/initialize.ts";
import { writeSync } from "node:fs";
import type { BridgeConfig } from "../config.ts";
import { t } from "../i18n/index.ts";
import type { ZCodeConnection } from "../zcode/connection.ts";
import { routeConsoleToLog } from "./console-to-log.ts";
import { logStrayRejections } from "./stray-rejections.ts";

// Serve mode. An editor's first message is `initialize`, and it waits for the
// answer before anything else: that answer is a constant, so it is sent
// before the ACP SDK is even loaded. What the user waits for next is a usable
// session, so right after that answer the ZCode child starts in the
// background (src/cli/prewarm.ts; not with --no-prewarm) and the agent loads,
// both while the editor prepares session/new. The agent gets everything read
// so far (the initialize included) and the rest of stdin, and drops its own
// duplicate initialize answer.

/** A first line longer than this is not a plain initialize: hand it over. */
const MAX_FIRST_LINE = 1 << 20;

type Reader = ReadableStreamDefaultReader<Uint8Array>;

export async function serve(config: BridgeConfig): Promise<number> {
  // A person who started it by hand in a terminal gets one line saying what
  // this is (stderr: stdout stays the protocol); an editor's pipe gets none.
  if (process.stdin.isTTY) writeSync(2, `${t().cli.serve.terminalHint}\n`);
  logStrayRejections();
  // Before the SDK loads: its diagnostics use the console.
  routeConsoleToLog();
  // With a trace, the agent must answer (and record) initialize itself; the
  // first line is still read here so that what follows it waits for that answer.
  const answerHere = !config.trace;

  // Until the agent runs, a signal ends us with the exit code 0 the agent
  // uses after its own shutdown, once a child started early is stopped.
  let early: ZCodeConnection | undefined;
  const exitOnSignal = () => void (early?.close() ?? Promise.resolve()).finally(() => process.exit(0));
  const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
  for (const sig of signals) process.on(sig, exitOnSignal);
  const releaseSignals = () => {
    for (const sig of signals) process.off(sig, exitOnSignal);
  };

  const reader = Bun.stdin.stream().getReader() as Reader;
  const buffered: Uint8Array[] = [];
  let bytes = 0;
  let newlineAt = -1;
  let eof = false;
  while (newlineAt === -1 && bytes <= MAX_FIRST_LINE) {
    const r = await readSafe(reader);
    if (r.done) {
      eof = true;
      break;
    }
    const at = r.value.indexOf(10);
    if (at !== -1) newlineAt = bytes + at;
    buffered.push(r.value);
    bytes += r.value.length;
  }

  let answered: JsonRpcId | undefined;
  let initializeId: JsonRpcId | undefined;
  if (newlineAt !== -1) {
    const line = firstLine(buffered, newlineAt);
    initializeId = plainInitializeId(line);
    if (answerHere) answered = fastAnswerableId(line);
    if (answered !== undefined) {
      try {
        await Bun.write(Bun.stdout, `${JSON.stringify({ jsonrpc: "2.0", id: answered, result: initializeResult() })}\n`);
      } catch {
        return 0; // stdout gone (EPIPE): the editor left, nothing to serve
      }
    }
    // Only the initialize, then EOF: the editor is gone already (its answer
    // is the agent's to give with a trace).
    const alone = eof && bytes === newlineAt + 1;
    if (alone && answered !== undefined) return 0;
    // An editor that initializes opens a session next: start ZCode now.
    if (initializeId !== undefined && !alone && config.prewarm) early = await prewarm(config);
  }

  // The agent gets the initialize line first and the rest only once it has
  // processed it (see Handoff.onAgentInitialized).
  const all = concat(buffered);
  const head = initializeId === undefined ? all : all.subarray(0, newlineAt + 1);
  let tail: Uint8Array | undefined = initializeId === undefined ? undefined : all.subarray(newlineAt + 1);
  let agentReady!: () => void;
  const agentInitialized = new Promise<void>((resolve) => (agentReady = resolve));
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.length > 0) controller.enqueue(head);
    },
    async pull(controller) {
      if (tail !== undefined) {
        await agentInitialized;
        const t = tail;
        tail = undefined;
        if (t.length > 0) {
          controller.enqueue(t);
          return;
        }
      }
      if (eof) {
        controller.close();
        return;
      }
      const r = await readSafe(reader);
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel: (reason) => reader.cancel(reason).catch(() => {}),
  });
  const handoff: Handoff =
    answered !== undefined
      ? { input, answeredId: answered, onAgentInitialized: agentReady, onSignalsHandled: releaseSignals }
      : { input, initializeId, onAgentInitialized: agentReady, onSignalsHandled: releaseSignals };
  return runAgent(config, handoff, early);
}

/** Loaded here, after the answer: the child's module is not needed to answer initialize. */
async function prewarm(config: BridgeConfig): Promise<ZCodeConnection> {
  const { prewarmZCode } = await import("./prewarm.ts");
  return prewarmZCode(config);
}

async function runAgent(config: BridgeConfig, handoff: Handoff, conn?: ZCodeConnection): Promise<number> {
  const { runServer } = await import("../acp/server.ts");
  // The agent installs its own handlers (it has a child to stop) and only
  // then releases ours (handoff.onSignalsHandled): a signal is never left to
  // its default action, which would end us with 143 and the child left behind.
  await runServer(config, handoff, conn);
  return 0;
}

async function readSafe(reader: Reader): Promise<Awaited<ReturnType<Reader["read"]>>> {
  try {
    return await reader.read();
  } catch {
    return { done: true, value: undefined };
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : new Uint8Array(Buffer.concat(chunks));
}

function firstLine(chunks: Uint8Array[], newlineAt: number): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(concat(chunks).subarray(0, newlineAt)));
  } catch {
    return undefined;
  }
}
