// Scenarios that ask the bridge: tool permission, plan approval, questions.
import type { Answer } from "../interactions.ts";
import type { Turn } from "../turn.ts";

const PERMISSION_OPTIONS = [
  { optionId: "allow", kind: "allow_once", name: "Allow once" },
  { optionId: "allow_always", kind: "allow_always", name: "Always allow" },
  { optionId: "deny", kind: "deny_once", name: "Deny" },
  { optionId: "deny_always", kind: "deny_always", name: "Always deny" },
];

function obj(a: Answer): Record<string, unknown> | undefined {
  if (!("result" in a)) return undefined;
  const r = a.result;
  return r && typeof r === "object" && !Array.isArray(r) ? (r as Record<string, unknown>) : undefined;
}

/** `{decision:"allow"}` (or an allow* optionId) allows; anything else denies, with its reason. */
function decision(a: Answer): { allow: boolean; reason: string } {
  if ("error" in a) return { allow: false, reason: `bridge answered error ${a.error.code}: ${a.error.message}` };
  const r = obj(a) ?? {};
  const d = r.decision ?? r.optionId;
  if (typeof d === "string" && d.startsWith("allow")) return { allow: true, reason: "" };
  return { allow: false, reason: typeof r.reason === "string" && r.reason ? r.reason : "denied by user" };
}

export async function permission(t: Turn): Promise<void> {
  await t.say("I'll clean the build directory. ");
  const input = { command: "rm -rf build", description: "Remove the build directory" };
  const part = await t.toolCall("Bash", input);
  await t.pace();
  await t.scheduled(part);
  // yolo is the one mode where the CLI runs tools without asking.
  let verdict = { allow: true, reason: "" };
  if (t.s.mode !== "yolo") {
    const a = await t.ask("interaction/requestPermission", {
      toolCallId: part.toolCallId,
      toolName: "Bash",
      reason: "run command",
      input,
      options: PERMISSION_OPTIONS,
    });
    verdict = decision(a);
  }
  if (!verdict.allow) {
    await t.toolError(part, `Permission denied: ${verdict.reason}`);
    await t.pace();
    await t.say("Okay, I won't remove the build directory.");
    return;
  }
  await t.started(part);
  await t.pace();
  await t.result(part, "", { stdout: "", stderr: "", exitCode: 0, interrupted: false });
  await t.pace();
  await t.say("Removed the build directory.");
}

const PLAN = "1. Read src/greet.ts\n2. Add an exclamation mark to the greeting\n3. Run the tests";

export async function plan(t: Turn): Promise<void> {
  await t.say("Here is my plan. ");
  const part = await t.toolCall("ExitPlanMode", { plan: PLAN });
  await t.pace();
  await t.scheduled(part);
  await t.started(part);
  const a = await t.ask("interaction/requestUserInput", {
    toolCallId: part.toolCallId,
    schema: { interaction: "plan_approval" },
    input: { plan: PLAN },
  });
  const approved = obj(a)?.action === "accept";
  if (approved) {
    t.s.mode = "build";
    t.sim.store.touch(t.s);
  }
  await t.result(part, approved ? "User has approved your plan. You can now start coding." : "User rejected the plan.", { approved });
  await t.pace();
  await t.say(approved ? "Plan approved; switching to build mode." : "Okay, staying in plan mode.");
}

interface Question {
  question: string;
  header?: string;
  multiSelect: boolean;
  options: { label: string; value: string; description?: string }[];
}

const SINGLE: Question = {
  question: "Which package manager should I use?",
  header: "Package manager",
  multiSelect: false,
  options: [
    { label: "Bun", value: "bun", description: "Fast, all-in-one" },
    { label: "npm", value: "npm", description: "The Node default" },
  ],
};
const MULTI: Question = {
  question: "Select the files to test",
  header: "Tests",
  multiSelect: true,
  options: [
    { label: "auth.test.ts", value: "auth" },
    { label: "user.test.ts", value: "user" },
    { label: "api.test.ts", value: "api" },
  ],
};

function question(questions: Question[], placement: "top" | "input") {
  return async (t: Turn): Promise<void> => {
    await t.say("I have a question. ");
    const part = await t.toolCall("AskUserQuestion", { questions });
    await t.pace();
    await t.scheduled(part);
    await t.started(part);
    const extra = placement === "top" ? { questions } : { input: { questions } };
    const a = await t.ask("interaction/requestUserInput", { toolCallId: part.toolCallId, ...extra });
    const r = obj(a);
    if (r?.action !== "accept") {
      await t.toolError(part, "User declined to answer questions");
      await t.pace();
      await t.say("Okay, I'll pick sensible defaults.");
      return;
    }
    const answers = (r.content && typeof r.content === "object" ? r.content : {}) as Record<string, unknown>;
    // JSON per value so a reader (and a test) can tell an array answer from a string.
    const text = questions.map((q) => `"${q.question}"="${JSON.stringify(answers[q.question] ?? null)}"`).join(", ");
    await t.result(part, `User has answered your questions: ${text}`, { questions, answers });
    await t.pace();
    await t.say(`Thanks: ${text}.`);
  };
}

export const interactiveScenarios = {
  permission,
  plan,
  question: question([SINGLE], "top"),
  "question-multi": question([MULTI, SINGLE], "input"),
};
