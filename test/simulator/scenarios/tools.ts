// One scenario per tool, `tools` (all of them, including a failing Edit and a
// Bash with a non-zero exit) and `batch` (two tools in one parallel group).
import type { ToolCall, Turn } from "../turn.ts";
import {
  agentSpec,
  bashSpec,
  editSpec,
  FAILING_TESTS,
  failingEditSpec,
  globSpec,
  grepSpec,
  LS,
  readSpec,
  type ToolSpec,
  todoSpec,
  webFetchSpec,
  webSearchSpec,
  writeSpec,
} from "./fixtures.ts";

/** One model request calling `specs`, then their execution. */
export async function useTools(t: Turn, specs: ToolSpec[], opts: { parallel?: boolean } = {}): Promise<ToolCall[]> {
  const calls = await t.callTools(specs.map((s) => ({ toolName: s.toolName, input: s.input, nameOnCall: s.nameOnCall !== false })));
  const byId = new Map(calls.map((c, i) => [c.toolCallId, specs[i]!.exec]));
  await t.runTools(calls, (c) => byId.get(c.toolCallId)!, opts);
  return calls;
}

function oneTool(make: (t: Turn) => ToolSpec, before: string, after: string) {
  return async (t: Turn): Promise<void> => {
    await t.say(before);
    await useTools(t, [make(t)]);
    await t.sayChunked(after, "text", 2);
  };
}

export async function bash(t: Turn): Promise<void> {
  await t.reasoning("I should look at the workspace first. ");
  await t.say("Let me look at the files. ");
  await useTools(t, [bashSpec(t, LS)]);
  await t.sayChunked("The workspace has a package.json and a src directory.", "text", 2);
}

export async function bashFail(t: Turn): Promise<void> {
  await t.say("Running the tests. ");
  await useTools(t, [bashSpec(t, FAILING_TESTS)]);
  await t.sayChunked("One test fails: greet does not add an exclamation mark yet.", "text", 2);
}

export async function tools(t: Turn): Promise<void> {
  await bash(t);
  // Read and Grep leave toolName off their tool_call, as the CLI sometimes does.
  await useTools(t, [readSpec(t.ws, false), grepSpec(t.ws, false), globSpec(t.ws)]);
  await t.say("Editing. ");
  await useTools(t, [failingEditSpec(t.ws)]);
  await useTools(t, [editSpec(t.ws), writeSpec(t.ws)]);
  await useTools(t, [webFetchSpec(), webSearchSpec(t), agentSpec()]);
  await useTools(t, [todoSpec(t)]);
  await useTools(t, [bashSpec(t, FAILING_TESTS)]);
  await t.sayChunked("All tools ran; one edit missed and one test still fails.", "text", 2);
}

/** Two tools in one parallel group: both start, both finish, one batch. */
export async function batch(t: Turn): Promise<void> {
  await t.say("Searching in parallel. ");
  await useTools(t, [grepSpec(t.ws), globSpec(t.ws)], { parallel: true });
  await t.say("Both searches finished.");
}

/**
 * A turn to steer (v4 sendText guide): one tool call, then it waits (at most
 * 10 s) for a guide before the tool runs, so the guide meets the tool-batch
 * boundary; hold=1 then waits for a stop instead of running the tool.
 * noboundary=1 offers no boundary (the guide falls back to the queue);
 * fail=1 fails the turn once the guide is in, before the boundary.
 */
export async function guided(t: Turn): Promise<void> {
  await t.say("Working on it. ");
  const calls = await t.callTools([{ toolName: bashSpec(t, LS).toolName, input: bashSpec(t, LS).input }]);
  for (let i = 0; i < 1000 && t.guides.length === 0; i++) await t.sleep(10);
  if (t.params.hold === "1") for (let i = 0; i < 3000; i++) await t.sleep(10);
  if (t.params.fail === "1") {
    // The provider fails before the tool batch ends: the guide is never taken in (core turn.ts: TurnError).
    t.failure = { type: "model_error", message: "upstream connection reset", turnPhase: "model_streaming", retryable: false };
    return;
  }
  await t.runTools(calls, () => bashSpec(t, LS).exec);
  await t.sayChunked("Done.", "text", 1);
}

export const toolScenarios = {
  guided,
  bash,
  "bash-fail": bashFail,
  read: oneTool((t) => readSpec(t.ws), "Reading the file. ", "It defines greet()."),
  edit: oneTool((t) => editSpec(t.ws), "Editing the file. ", "Added an exclamation mark."),
  write: oneTool((t) => writeSpec(t.ws), "Creating a file. ", "Created farewell.ts."),
  grep: oneTool((t) => grepSpec(t.ws), "Searching. ", "Found two files."),
  glob: oneTool((t) => globSpec(t.ws), "Listing files. ", "Three TypeScript files."),
  webfetch: oneTool(() => webFetchSpec(), "Fetching the docs. ", "The API greets people."),
  websearch: oneTool((t) => webSearchSpec(t), "Searching the web. ", "Keep greetings short."),
  task: oneTool(() => agentSpec(), "Delegating to a subagent. ", "The subagent found two callers."),
  agent: oneTool(() => agentSpec(), "Delegating to a subagent. ", "The subagent found two callers."),
  todo: oneTool((t) => todoSpec(t), "Let me plan this. ", "I made a plan with three steps."),
  "tool-error": oneTool((t) => failingEditSpec(t.ws), "Editing the file. ", "The edit did not apply."),
  tools,
  batch,
};
