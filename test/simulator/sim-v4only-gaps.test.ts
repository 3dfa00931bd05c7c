// ZCODE_SIM_PROTOCOL=v4-only: what the conversation snapshot tells beyond rows
// and phase, as ZCode's projection keeps it (jimpablo/ZCode @aac4755,
// apps/zcode-cli/packages/bootstrap/src/zcode-protocol-v4/product-projection.ts):
// the model's thought levels (onModelSelected / SessionConfigSeed), context use
// (onModelComplete), and the parent's subagent rows (onSubagentSpawned /
// onSubagentMessage / onSubagentStopped; rows.ts subagentRowSchema).
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ensureSimBuilt, type SimClient } from "./sim-client.ts";
import { command, createSession, subscribe, v4Sim } from "./sim-v4only-support.ts";
import { SUBAGENT_DESCRIPTION, SUBAGENT_SUMMARY } from "./scenarios/subagent.ts";

beforeAll(ensureSimBuilt, 120_000);

const open: SimClient[] = [];
function sim(): SimClient {
  const c = v4Sim();
  open.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe("v4-only: the snapshot's config, usage and subagent rows", () => {
  test("config carries the model's thought levels; usage the last request's context use and the running totals", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`);
    const snap = reader.logical[0]!.payload.snapshot;
    // GLM-5.3 (catalog.ts): low, high, max; createInitialConversationSnapshot: no context window yet.
    expect(snap.config).toMatchObject({ model: "GLM-5.3", thought: "max", thoughtLevels: ["low", "high", "max"] });
    expect(snap.usage.contextWindow).toBeNull();
    await command(c, id, "sendText", { text: "#scenario:default hello there" });
    await reader.until((r) => r.state.control?.phase === "completedSuccess", 15_000);
    const usage = reader.state.usage;
    expect(usage.contextWindow).toMatchObject({ maxTokens: 200000, autoCompactThresholdTokens: null });
    expect(usage.contextWindow.usedTokens).toBeGreaterThan(0);
    expect(usage.cumulative.inputTokens).toBeGreaterThan(0);
    expect(usage.cumulative.outputTokens).toBeGreaterThan(0);
  }, 30_000);

  test("a subagent is a row after its Agent call: ZCode's agentId, the description, the message appended, success at its end", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`);
    await command(c, id, "sendText", { text: "#scenario:subagent" });
    await reader.until((r) => r.state.control?.phase === "completedSuccess", 20_000);
    const rows = reader.sortedRows();
    const call = rows.find((r) => r.kind === "toolCall" && r.toolName === "Agent")!;
    const sub = rows.find((r) => r.kind === "subagent")!;
    expect(sub).toMatchObject({
      parentToolCallId: call.toolCallId,
      subagentType: "general-purpose",
      status: "success",
      summaryText: `${SUBAGENT_DESCRIPTION}${SUBAGENT_SUMMARY}`,
      childSessionId: `sess_subagent_${sub.entityId}`,
      turnId: call.turnId,
    });
    expect(sub.entityId).toMatch(/^agent_/);
    expect(sub.rowId).toBeGreaterThan(call.rowId);
    // It was running before it ended (a row told while the child worked).
    expect(
      reader
        .deltas()
        .some((d) => (d.op === "row.appended" || d.op === "row.upserted") && d.row.kind === "subagent" && d.row.status === "running"),
    ).toBe(true);
  }, 30_000);

  test("sendGoalCommand's text is the objective, verbs included (goal-compact.ts: no clear); an empty one is refused", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`);
    expect((await command(c, id, "sendGoalCommand", { text: "   " })).status).toBe("failed");
    expect(await command(c, id, "sendGoalCommand", { text: "clear" })).toMatchObject({ status: "accepted" });
    await reader.until((r) => r.state.goal?.objective === "clear" && r.state.control?.phase === "completedSuccess", 20_000);
    expect(reader.state.goal).toMatchObject({ objective: "clear", status: "active" });
  }, 30_000);
});
