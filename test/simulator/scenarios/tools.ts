// One scenario per tool kind, `tools` (all of them) and `batch`.
import type { Turn } from "../turn.ts";
import type { ToolFixture } from "./fixtures.ts";
import {
  BASH_INPUT,
  BASH_STDERR,
  BASH_STDOUT,
  editFixture,
  globFixture,
  grepFixture,
  readFixture,
  taskFixture,
  todoFixture,
  webFetchFixture,
  writeFixture,
} from "./fixtures.ts";

export async function bash(t: Turn): Promise<void> {
  await t.say("Let me look at the files. ");
  const part = await t.toolCall("Bash", BASH_INPUT);
  await t.pace();
  await t.scheduled(part);
  await t.started(part);
  let out = "";
  let err = "";
  for (let i = 0; i < BASH_STDOUT.length; i++) {
    out += BASH_STDOUT[i];
    err += BASH_STDERR[i];
    await t.pace();
    await t.progress(part, out, err);
  }
  await t.pace();
  await t.result(part, out + err, { stdout: out, stderr: err, exitCode: 0, interrupted: false }, 31);
  await t.pace();
  await t.say("The workspace has a package.json and a src directory.");
}

function oneTool(make: (t: Turn) => ToolFixture, before: string, after: string) {
  return async (t: Turn): Promise<void> => {
    await t.say(before);
    const f = make(t);
    await t.runTool(f.toolName, f.input, f.output, f.result);
    await t.say(after);
  };
}

const ws = (t: Turn) => t.s.workspace.workspacePath;

export async function todo(t: Turn): Promise<void> {
  await t.say("Let me plan this. ");
  const f = todoFixture(structuredClone(t.s.todos));
  await t.runTool(f.toolName, f.input, f.output, f.result);
  t.setTodosLater((f.result as { newTodos: typeof t.s.todos }).newTodos);
  await t.say("I made a plan with three steps.");
}

export async function tools(t: Turn): Promise<void> {
  await bash(t);
  for (const make of [readFixture, editFixture, writeFixture, grepFixture, globFixture]) {
    const f = make(ws(t));
    await t.runTool(f.toolName, f.input, f.output, f.result);
  }
  for (const f of [webFetchFixture(), taskFixture()]) await t.runTool(f.toolName, f.input, f.output, f.result);
  await todo(t);
  await t.say(" All tools ran.");
}

/** Two tools run together; the CLI's batch repeats the finished one without output. */
export async function batch(t: Turn): Promise<void> {
  await t.say("Searching in parallel. ");
  const g = grepFixture(ws(t));
  const l = globFixture(ws(t));
  const a = await t.toolCall(g.toolName, g.input);
  const b = await t.toolCall(l.toolName, l.input);
  await t.pace();
  await t.scheduled(a);
  await t.scheduled(b);
  await t.started(a);
  await t.started(b);
  await t.pace();
  await t.result(a, g.output, g.result);
  await t.pace();
  b.state = { status: "completed", output: l.output, result: l.result };
  await t.emit("tool.updated", {
    kind: "batch",
    items: [
      { toolCallId: a.toolCallId, toolName: a.toolName, kind: "result" },
      { toolCallId: b.toolCallId, toolName: b.toolName, kind: "result", output: l.output, result: l.result },
    ],
  });
  await t.pace();
  await t.say("Both searches finished.");
}

export const toolScenarios = {
  bash,
  read: oneTool((t) => readFixture(ws(t)), "Reading the file. ", "It defines greet()."),
  edit: oneTool((t) => editFixture(ws(t)), "Editing the file. ", "Added an exclamation mark."),
  write: oneTool((t) => writeFixture(ws(t)), "Creating a file. ", "Created farewell.ts."),
  grep: oneTool((t) => grepFixture(ws(t)), "Searching. ", "Found two files."),
  glob: oneTool((t) => globFixture(ws(t)), "Listing files. ", "Three TypeScript files."),
  webfetch: oneTool(() => webFetchFixture(), "Fetching the docs. ", "The API greets people."),
  task: oneTool(() => taskFixture(), "Delegating to a subagent. ", "The subagent found two callers."),
  todo,
  tools,
  batch,
};
