// ZCODE_SIM_REPLAY: plays the `zcode->bridge` side of a bridge trace (JSON
// lines `{t, dir, msg | raw}`) as the simulator's behaviour, so a user's trace
// becomes a regression test.
//
// The trace is turned into a script of steps in trace order: `send` (a frame
// the CLI wrote) and `expect` (a frame the bridge wrote). Sends go out as soon
// as every expectation before them is met. An incoming bridge request is
// matched to the next unmatched expectation of the same method (so requests
// may arrive in a different order than traced), and responses in the trace are
// rewritten to the id the bridge actually used for that request.
import { readFileSync } from "node:fs";
import type { Sim } from "./sim.ts";
import { log } from "./wire.ts";

type Frame = Record<string, unknown>;

interface SendStep {
  kind: "send";
  t: number;
  /** Already paused for the traced gap before this frame. */
  paced?: boolean;
  frame?: Frame;
  raw?: string;
  /** For a response: the request step whose actual id replaces the traced one. */
  answers?: ExpectStep;
}

interface ExpectStep {
  kind: "expect";
  t: number;
  what: "request" | "notification" | "response";
  method?: string;
  tracedId?: unknown;
  met: boolean;
  skipped: boolean;
  actualId?: unknown;
}

type Step = SendStep | ExpectStep;

export interface ReplayScript {
  steps: Step[];
  /** workspacePath of the first traced session/create. */
  workspacePath?: string;
}

function isObj(x: unknown): x is Frame {
  return !!x && typeof x === "object" && !Array.isArray(x);
}

export function parseTrace(text: string): ReplayScript {
  const steps: Step[] = [];
  /** Latest traced bridge request per id: responses answer it. */
  const lastRequestById = new Map<string, ExpectStep>();
  let workspacePath: string | undefined;
  for (const [n, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    let e: Frame;
    try {
      e = JSON.parse(line);
    } catch {
      throw new Error(`replay trace line ${n + 1} is not JSON`);
    }
    const t = typeof e.t === "number" ? e.t : 0;
    if (e.dir === "zcode->bridge") {
      if (!isObj(e.msg)) {
        steps.push({ kind: "send", t, raw: typeof e.raw === "string" ? e.raw : JSON.stringify(e.msg) });
        continue;
      }
      const f = e.msg;
      const step: SendStep = { kind: "send", t, frame: f };
      if (f.id !== undefined && f.method === undefined) step.answers = lastRequestById.get(JSON.stringify(f.id));
      steps.push(step);
    } else if (e.dir === "bridge->zcode" && isObj(e.msg)) {
      const f = e.msg;
      const hasId = f.id !== undefined && f.id !== null;
      if (typeof f.method === "string") {
        if (
          f.method === "session/create" &&
          workspacePath === undefined &&
          isObj(f.params) &&
          isObj(f.params.workspace) &&
          typeof f.params.workspace.workspacePath === "string"
        ) {
          workspacePath = f.params.workspace.workspacePath;
        }
        const step: ExpectStep = {
          kind: "expect",
          t,
          what: hasId ? "request" : "notification",
          method: f.method,
          tracedId: f.id,
          met: false,
          skipped: false,
        };
        if (hasId) lastRequestById.set(JSON.stringify(f.id), step);
        steps.push(step);
      } else if (hasId) {
        steps.push({ kind: "expect", t, what: "response", tracedId: f.id, met: false, skipped: false });
      }
    }
  }
  return workspacePath === undefined ? { steps } : { steps, workspacePath };
}

const jsonInner = (x: string) => JSON.stringify(x).slice(1, -1);

/** How long replay waits for a traced request the bridge has already sent once before. */
const REPEAT_GRACE_MS = 250;

export function startReplay(sim: Sim, path: string, waitMs = 10_000, maxGapMs = 50, workspace?: string): (line: string) => void {
  const { steps, workspacePath } = parseTrace(readFileSync(path, "utf8"));
  log(`replaying ${steps.filter((s) => s.kind === "send").length} frames from ${path}`);
  const from = workspacePath && workspace ? jsonInner(workspacePath) : undefined;
  const to = workspace ? jsonInner(workspace) : "";
  const write = (frame: Frame) => {
    const line = JSON.stringify(frame);
    sim.out.raw(from ? line.replaceAll(from, to) : line);
  };
  let cursor = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const advance = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (cursor < steps.length) {
      const step = steps[cursor]!;
      if (step.kind === "expect") {
        if (!step.met && !step.skipped && step.what === "request" && steps.some((x, i) => i > cursor && x.kind === "expect" && x.met)) {
          // The bridge has moved past this request without sending it: skip it (and its answer) now.
          step.skipped = true;
          log(`replay: skipped a traced ${step.method} request the bridge did not send`);
          continue;
        }
        if (!step.met && !step.skipped) {
          // A bridge that no longer sends this frame must not wedge the replay forever. A request
          // the bridge already sent once (a re-subscribe, a re-read) is given up on quickly: a bridge
          // that does not repeat it is waiting for the frames traced after it.
          const repeat =
            step.what === "request" && steps.some((x, i) => i < cursor && x.kind === "expect" && x.met && x.method === step.method);
          const wait = repeat ? Math.min(waitMs, REPEAT_GRACE_MS) : waitMs;
          timer = setTimeout(() => {
            step.skipped = true;
            log(`replay: gave up waiting for ${step.what} ${step.method ?? JSON.stringify(step.tracedId)} after ${wait}ms`);
            advance();
          }, wait);
          return;
        }
      } else if (!step.paced && cursor > 0) {
        // Keep the traced spacing (capped): frames that came apart stay apart.
        step.paced = true;
        const gap = Math.min(maxGapMs, step.t - steps[cursor - 1]!.t);
        if (gap >= 1) {
          timer = setTimeout(advance, gap);
          return;
        }
        continue;
      } else if (step.raw !== undefined) sim.out.raw(step.raw);
      else if (step.frame) {
        if (step.answers) {
          if (step.answers.met) write({ ...step.frame, id: step.answers.actualId });
          else log(`replay: dropped the answer to a ${step.answers.method} request the bridge never sent`);
        } else write(step.frame);
      }
      cursor++;
    }
    log("replay finished");
  };

  const match = (pred: (s: ExpectStep) => boolean): ExpectStep | undefined => {
    for (const s of steps) if (s.kind === "expect" && !s.met && !s.skipped && pred(s)) return s;
    return undefined;
  };

  setImmediate(advance);
  return (line: string) => {
    let f: unknown;
    try {
      f = JSON.parse(line);
    } catch {
      log(`replay: not JSON, ignored: ${line.slice(0, 200)}`);
      return;
    }
    if (!isObj(f)) return;
    const hasId = f.id !== undefined && f.id !== null;
    if (typeof f.method === "string") {
      const step = match((s) => s.what === (hasId ? "request" : "notification") && s.method === f.method);
      if (!step) {
        if (hasId) sim.out.frame({ id: f.id, error: { code: -32603, message: `replay: the trace has no further ${f.method} request` } });
        log(`replay: unexpected ${f.method} from the bridge`);
        return;
      }
      step.met = true;
      step.actualId = f.id;
    } else if (hasId) {
      const step = match((s) => s.what === "response" && JSON.stringify(s.tracedId) === JSON.stringify(f.id));
      if (!step) return;
      step.met = true;
    }
    advance();
  };
}
