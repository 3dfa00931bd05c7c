import { expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { withBridge } from "../support/acp-harness.ts";

// An approved plan-mode plan reaches the editor once. A client with the plan
// capability gets it as a Markdown plan_update (its plan panel, with an id it
// can update or remove); the ExitPlanMode tool call then keeps the verdict
// only. Any other client gets the plan in the tool call's content.

const PLANS = { plan: {} } as acp.ClientCapabilities;

test("an approved plan is shown once: plan_update for a client that takes plans, else the tool call", async () => {
  for (const clientCapabilities of [{}, PLANS]) {
    await withBridge({ clientCapabilities }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:plan")).stopReason).toBe("end_turn");
      const call = h.updatesOfKind(sessionId, "tool_call").find((c) => c.name === "ExitPlanMode")!;
      const updates = h.updatesOfKind(sessionId, "tool_call_update").filter((u) => u.toolCallId === call.toolCallId);
      const plan = ([call, ...updates].find((u) => u.rawInput)?.rawInput as { plan: string }).plan;
      expect(plan.length).toBeGreaterThan(0);
      const finished = updates.findLast((u) => u.content !== undefined && u.content !== null)!;
      expect(updates.at(-1)?.status).toBe("completed");
      const shownInCall = JSON.stringify(finished.content).includes(JSON.stringify(plan).slice(1, -1));
      const markdown = h.updatesOfKind(sessionId, "plan_update").filter((u) => u.plan.type === "markdown");
      if (clientCapabilities === PLANS) {
        expect(markdown.map((u) => (u.plan as { content: string }).content)).toEqual([plan]);
        expect(shownInCall).toBe(false);
        // The verdict stays.
        expect(JSON.stringify(finished.content)).toContain("approved");
      } else {
        expect(markdown).toHaveLength(0);
        expect(shownInCall).toBe(true);
      }
    });
  }
}, 20_000);
