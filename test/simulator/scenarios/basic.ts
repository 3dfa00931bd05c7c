// Streaming text and reasoning, end states and usage.
import type { Turn } from "../turn.ts";

export async function defaultReply(t: Turn, suffix = ""): Promise<void> {
  await t.sayChunked(`The user said: ${t.text}. I'll echo it back.`, "reasoning", 2);
  await t.sayChunked(`Echo: ${t.text}${suffix}`, "text", 3);
}

export async function text(t: Turn): Promise<void> {
  for (const d of ["Let me think ", "about héllo ", "wörld… ", "done."]) {
    await t.reasoning(d);
    await t.pace();
  }
  for (const d of ["Here is ", "some text: ", "héllo wörld ✓ 日本", " — multi-byte ", "UTF-8 🚀 included."]) {
    await t.say(d);
    await t.pace();
  }
}

function ending(resultType: string) {
  return async (t: Turn): Promise<void> => {
    await t.sayChunked(`Stopping early (${resultType}).`, "text", 2);
    t.resultType = resultType;
  };
}

export async function usage(t: Turn): Promise<void> {
  t.usageOverride = { inputTokens: 12345, outputTokens: 678 };
  await t.say("Reporting usage. ");
  await t.emit("session.updated", { usage: { inputTokens: 12345, outputTokens: 678 }, contextWindow: 200000 });
  await t.pace();
  await t.say("Done.");
}

export async function failTransient(t: Turn): Promise<void> {
  const fails = t.num("fails", 1);
  const sent = t.s.promptCounts[t.raw] ?? 1;
  if (sent <= fails) {
    await t.pace();
    t.failure = { code: 1302, message: "rate limited", cause: { code: "rate_limit" } };
    return;
  }
  await defaultReply(t);
}

export async function failFatal(t: Turn): Promise<void> {
  await t.reasoning("Thinking… ");
  await t.pace();
  t.failure = { code: 1500, message: "model exploded" };
}

export const basicScenarios = {
  default: (t: Turn) => defaultReply(t),
  text,
  usage,
  "max-tokens": ending("max_tokens"),
  refusal: ending("refusal"),
  "max-turns": ending("max_turn_requests"),
  "fail-transient": failTransient,
  "fail-fatal": failFatal,
};
