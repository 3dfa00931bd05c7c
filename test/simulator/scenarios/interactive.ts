// Scenarios that ask the bridge: tool permission (interaction/requestPermission),
// plan approval and questions (interaction/requestUserInput). The answers are
// read exactly as ZCode's interaction broker reads them (see turn.ts).
import { formatIssues, type Schema, validate } from "../schema.ts";
import { uuid } from "../store.ts";
import type { Turn } from "../turn.ts";
import { browserCommandResult, browserListResult, officialMcpAuthResponse } from "../zcode-schemas.ts";
import { bashSpec, exitPlanSpec, MULTI, questionSpec, SINGLE } from "./fixtures.ts";
import { useTools } from "./tools.ts";

/** Bash `rm -rf build`: asks unless the mode is yolo or an "always" rule covers it. */
export async function permission(t: Turn): Promise<void> {
  await t.say("I'll clean the build directory. ");
  const [call] = await useTools(t, [
    bashSpec(t, {
      command: "rm -rf build",
      description: "Remove the build directory",
      stdout: [""],
      stderr: [""],
      exitCode: 0,
      approval: { kind: "permission", reason: "Bash command requires approval: rm -rf build", riskLevel: "high" },
    }),
  ]);
  if (call!.outcome === "success") await t.say("Removed the build directory.");
  else await t.say("Okay, I won't remove the build directory.");
}

export async function plan(t: Turn): Promise<void> {
  await t.say("Here is my plan. ");
  const spec = exitPlanSpec();
  const run = spec.exec.run;
  spec.exec.run = async (c, input) => {
    // ExitPlanMode switches the session to build before its result (session_mode_changed, source tool).
    const previousMode = t.s.mode;
    t.s.mode = "build";
    await t.emit("session.updated", { mode: "build", previousMode, source: "tool", toolCallId: c.toolCallId });
    t.r.revision++;
    t.sim.store.touch(t.s, { activity: false });
    t.sim.stateUpdated(t.s, "mode_changed", t.settingsPatch());
    return run(c, input);
  };
  const [call] = await useTools(t, [spec]);
  await t.say(call!.outcome === "success" ? "Plan approved; switching to build mode." : "Okay, staying in plan mode.");
}

function question(questions: (typeof SINGLE)[]) {
  return async (t: Turn): Promise<void> => {
    await t.say("I have a question. ");
    const [call] = await useTools(t, [questionSpec(questions)]);
    if (call!.outcome !== "success") {
      await t.say("Okay, I'll pick sensible defaults.");
      return;
    }
    const out = call!.part.state.status === "completed" ? call!.part.state.output : "";
    await t.say(`Noted. ${out}`);
  };
}

/**
 * What the desktop app serves: an official plugin's MCP asks for its auth
 * headers (interaction/requestOfficialMcpAuthHeaders), and browser control
 * lists browsers and runs a command. Each answer is checked with ZCode's
 * strict schema; the reply says what the tools got.
 */
export async function appTools(t: Turn): Promise<void> {
  const { sim, s } = t;
  const workspace = s.workspace;
  const ask = async (method: string, params: Record<string, unknown>, schema: Schema): Promise<string> => {
    const a = await sim.outgoing.request(method, params, { signal: t.signal });
    if ("error" in a) return `${method}: error ${a.error.code} ${a.error.message}`;
    const v = validate(schema, a.result);
    if (!v.ok) return `${method}: invalid answer — ${formatIssues(v.issues)}`;
    return `${method}: ${JSON.stringify(v.value)}`;
  };
  const lines = [
    await ask(
      "interaction/requestOfficialMcpAuthHeaders",
      { requestId: uuid(), workspace, pluginId: "zai-mcp@zcode-official", mcpKey: "web-reader", targetOrigin: "https://open.bigmodel.cn" },
      officialMcpAuthResponse,
    ),
    await ask(
      "interaction/browserList",
      {
        requestId: uuid(),
        workspaceKey: workspace.workspaceKey,
        workspacePath: workspace.workspacePath,
        sessionId: s.id,
        turnId: t.id,
        clientMode: "desktop-continuous",
        sessionContext: "live",
      },
      browserListResult,
    ),
    await ask(
      "interaction/browserExecute",
      { requestId: uuid(), sessionId: s.id, turnId: t.id, command: { method: "getState" } },
      browserCommandResult,
    ),
  ];
  await t.say(lines.join("\n"));
}

export const interactiveScenarios = {
  "app-tools": appTools,
  permission,
  plan,
  question: question([SINGLE]),
  "question-multi": question([MULTI, SINGLE]),
};
