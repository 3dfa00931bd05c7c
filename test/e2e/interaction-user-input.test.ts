// Plan approval and AskUserQuestion end to end, with and without the client's
// elicitation.form capability. A client that did not advertise forms must
// never receive elicitation/create.
import { describe, expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { withBridge, type Harness } from "../support/acp-harness.ts";
import { toolViews } from "./interaction-support.ts";

const FORM: acp.ClientCapabilities = { elicitation: { form: {} } };

function noElicitation(h: Harness): void {
  expect(h.received.elicitations).toHaveLength(0);
  expect(h.received.messages.some((m) => m.method === "elicitation/create")).toBe(false);
}

async function modeOf(h: Harness, sessionId: string): Promise<string | undefined> {
  const updates = h.updates(sessionId);
  for (let i = updates.length - 1; i >= 0; i--) {
    const u = updates[i]!;
    if (u.sessionUpdate === "current_mode_update") return u.currentModeId;
    if (u.sessionUpdate === "config_option_update") {
      const m = u.configOptions.find((o) => o.id === "mode");
      if (m && "currentValue" in m) return String(m.currentValue);
    }
  }
  return undefined;
}

describe("plan approval", () => {
  test("with elicitation.form: an approve/reject form showing the plan; approve switches mode", async () => {
    await withBridge(
      { clientCapabilities: FORM, onElicitation: () => ({ action: "accept", content: { decision: "approve" } }) },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "#scenario:plan")).stopReason).toBe("end_turn");
        expect(h.received.permissionRequests).toHaveLength(0);
        expect(h.received.elicitations).toHaveLength(1);
        const e = h.received.elicitations[0]! as any;
        expect(e.mode).toBe("form");
        expect(e.sessionId).toBe(sessionId);
        expect(e.message).toContain("Add an exclamation mark");
        expect(Object.keys(e.requestedSchema.properties)).toEqual(["decision", "feedback"]);
        expect(h.text(sessionId)).toContain("Plan approved");
        const plan = [...toolViews(h, sessionId).values()].find((v) => v.kind === "switch_mode")!;
        expect(plan.title).toBe("Ready to code?");
        expect(plan.status).toBe("completed");
      },
    );
  });

  // The agent core (D1) does not yet notice that ZCode switched the mode
  // itself after an approved plan; enable once it sends the option updates.
  test.todo("an approved plan's mode switch reaches the editor (config_option_update + current_mode_update)", async () => {
    await withBridge(
      { clientCapabilities: FORM, onElicitation: () => ({ action: "accept", content: { decision: "approve" } }) },
      async (h) => {
        const { sessionId } = await h.newSession();
        await h.prompt(sessionId, "#scenario:plan");
        expect(await modeOf(h, sessionId)).toBe("build");
      },
    );
  });

  test("with elicitation.form: reject keeps planning", async () => {
    await withBridge(
      { clientCapabilities: FORM, onElicitation: () => ({ action: "accept", content: { decision: "reject" } }) },
      async (h) => {
        const { sessionId } = await h.newSession();
        await h.prompt(sessionId, "#scenario:plan");
        expect(h.text(sessionId)).toContain("staying in plan mode");
      },
    );
  });

  test("without elicitation.form: a permission request on the switch_mode tool call with the plan; never an elicitation", async () => {
    for (const [choice, expected] of [
      ["approve", "Plan approved"],
      ["reject", "staying in plan mode"],
    ] as const) {
      await withBridge({ onPermission: () => ({ outcome: { outcome: "selected", optionId: choice } }) }, async (h) => {
        const { sessionId } = await h.newSession();
        await h.prompt(sessionId, "#scenario:plan");
        noElicitation(h);
        expect(h.received.permissionRequests).toHaveLength(1);
        const req = h.received.permissionRequests[0]!;
        expect(req.toolCall).toMatchObject({ kind: "switch_mode", title: "Ready to code?" });
        expect(JSON.stringify(req.toolCall.content)).toContain("Add an exclamation mark");
        expect(req.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
        expect(h.text(sessionId)).toContain(expected);
      });
    }
  });
});

describe("AskUserQuestion", () => {
  test("with elicitation.form: one form (enum / array of enum / free text); values go back to ZCode", async () => {
    await withBridge(
      {
        clientCapabilities: FORM,
        onElicitation: (req: any) => {
          const props = req.requestedSchema.properties;
          return {
            action: "accept",
            content: { q_0: [props.q_0.items.anyOf[0].const, props.q_0.items.anyOf[2].const], q_1: props.q_1.oneOf[0].const },
          };
        },
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "#scenario:question-multi")).stopReason).toBe("end_turn");
        expect(h.received.elicitations).toHaveLength(1);
        const props = (h.received.elicitations[0] as any).requestedSchema.properties;
        expect(props.q_0.type).toBe("array");
        expect(props.q_1.type).toBe("string");
        expect(props.other.type).toBe("string");
        expect(h.text(sessionId)).toContain('"Select the files to test"="auth.test.ts, api.test.ts"');
        expect(h.text(sessionId)).toContain('"Which package manager should I use?"="Bun"');
      },
    );
  });

  test("with elicitation.form: decline reaches ZCode as a decline", async () => {
    await withBridge({ clientCapabilities: FORM, onElicitation: () => ({ action: "decline" }) }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:question");
      expect(h.text(sessionId)).toContain("pick sensible defaults");
    });
  });

  test("cancel during an open form: the elicitation is withdrawn ($/cancel_request), ZCode gets a decline, the turn ends cancelled", async () => {
    await withBridge({ clientCapabilities: FORM, onElicitation: () => new Promise(() => {}), record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      const done = h.prompt(sessionId, "#scenario:question");
      await h.waitFor(() => h.received.elicitations.length > 0, "the form");
      // The form is never answered: the cancelled answer cannot have waited for it.
      await h.cancel(sessionId);
      expect((await done).stopReason).toBe("cancelled");
      const formId = h.received.messages.find((m) => m.method === "elicitation/create")!.id;
      await h.waitFor(
        () =>
          h.received.messages.some((m) => m.method === "$/cancel_request" && (m.params as { requestId?: unknown }).requestId === formId),
        "$/cancel_request for the form",
      );
      await h.waitFor(
        () => h.simFrames().some((f) => f.method === undefined && (f.result as { action?: string } | undefined)?.action === "decline"),
        "the decline answer to ZCode",
      );
      expect(h.received.elicitations).toHaveLength(1);
    });
  });

  test("without elicitation.form: one permission request per question with its options; never an elicitation", async () => {
    await withBridge(
      {
        onPermission: (req) => {
          // Pick the last real option (before "Don't answer").
          const real = req.options.filter((o) => o.kind === "allow_once");
          return { outcome: { outcome: "selected", optionId: real[real.length - 1]!.optionId } };
        },
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "#scenario:question-multi")).stopReason).toBe("end_turn");
        noElicitation(h);
        expect(h.received.permissionRequests).toHaveLength(2);
        expect(h.received.permissionRequests[0]!.options.map((o) => o.name)).toEqual([
          "auth.test.ts",
          "user.test.ts",
          "api.test.ts",
          "Don't answer",
        ]);
        expect(h.received.permissionRequests[1]!.options.map((o) => o.name)).toEqual(["Bun", "npm", "Don't answer"]);
        expect(h.text(sessionId)).toContain('"Select the files to test"="api.test.ts"');
        expect(h.text(sessionId)).toContain('"Which package manager should I use?"="npm"');
      },
    );
  });

  test("a client without forms, fs or terminal never gets an elicitation, fs/* or terminal/* call across every interactive scenario", async () => {
    await withBridge({}, async (h) => {
      const { sessionId } = await h.newSession();
      for (const s of ["permission", "plan", "question", "question-multi", "tools"]) {
        expect((await h.prompt(sessionId, `#scenario:${s}`)).stopReason).toBe("end_turn");
      }
      noElicitation(h);
      expect(h.received.permissionRequests.length).toBeGreaterThanOrEqual(5);
      const requests = h.received.messages.filter((m) => typeof m.method === "string" && m.id !== undefined).map((m) => m.method);
      expect(new Set(requests)).toEqual(new Set(["session/request_permission"]));
    });
  });
});
