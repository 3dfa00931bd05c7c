// Tool permission end to end: the tool is announced before the request, the
// request shows the command with ACP's option kinds, allow runs the tool, deny
// fails it and the turn goes on, a re-sent request is shown once, cancel
// withdraws an open prompt.
import { describe, expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { withBridge } from "../support/acp-harness.ts";
import { byTitle, contentText, toolViews } from "./interaction-support.ts";
import { zcodeChild } from "./process-support.ts";

const selectKind =
  (kind: acp.PermissionOptionKind) =>
  (req: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
    const o = req.options.find((x) => x.kind === kind)!;
    return { outcome: { outcome: "selected", optionId: o.optionId } };
  };

describe("permission", () => {
  test("allow: tool_call first with the same id, command visible, ZCode's three options as ACP kinds; the tool runs", async () => {
    await withBridge({ onPermission: selectKind("allow_once") }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:permission")).stopReason).toBe("end_turn");
      expect(h.received.permissionRequests).toHaveLength(1);
      const req = h.received.permissionRequests[0]!;
      expect(req.toolCall).toMatchObject({ title: "rm -rf build", kind: "execute", rawInput: { command: "rm -rf build" } });
      expect(req.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
      expect(req.options.map((o) => o.name)).toEqual(["Allow once", "Always allow in this project", "Deny"]);
      // The tool_call reached the editor before the permission request.
      const reqIdx = h.received.messages.findIndex((m) => m.method === "session/request_permission");
      const callIdx = h.received.messages.findIndex(
        (m) =>
          m.method === "session/update" &&
          (m.params as any).update.sessionUpdate === "tool_call" &&
          (m.params as any).update.toolCallId === req.toolCall.toolCallId,
      );
      expect(callIdx).toBeGreaterThanOrEqual(0);
      expect(callIdx).toBeLessThan(reqIdx);
      const v = toolViews(h, sessionId).get(req.toolCall.toolCallId)!;
      expect(v.status).toBe("completed");
      expect(h.text(sessionId)).toContain("Removed the build directory.");
    });
  });

  test("deny: the tool fails with the reason and the turn goes on", async () => {
    await withBridge({ onPermission: selectKind("reject_once") }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:permission")).stopReason).toBe("end_turn");
      const v = byTitle(toolViews(h, sessionId), "rm -rf build");
      expect(v.status).toBe("failed");
      expect(contentText(v)).toBe("Denied");
      expect(h.text(sessionId)).toContain("I won't remove the build directory");
    });
  });

  test("a re-sent request (same requestId) is shown once and every copy gets the answer", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await withBridge(
      {
        env: { ZCODE_SIM_RESEND_MS: "20" },
        record: true,
        onPermission: async (req) => {
          await gate;
          return selectKind("allow_once")(req);
        },
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        const done = h.prompt(sessionId, "#scenario:permission");
        await h.waitFor(() => h.received.permissionRequests.length > 0, "the permission request");
        // Let the simulator re-send a few copies while the user thinks.
        await Bun.sleep(150);
        release();
        expect((await done).stopReason).toBe("end_turn");
        expect(h.received.permissionRequests).toHaveLength(1);
        const answers = h.simFrames().filter((f) => f.method === undefined && f.result && (f.result as any).decision);
        expect(answers.length).toBeGreaterThanOrEqual(2);
        // ZCode's own answer for "Allow once", to every copy.
        for (const a of answers) expect(a.result).toEqual({ decision: "allow", reason: "Approved once" });
      },
    );
  });

  test("the CLI dies during a permission prompt: the prompt fails and the editor's request is withdrawn", async () => {
    await withBridge({ onPermission: () => new Promise(() => {}) }, async (h) => {
      const { sessionId } = await h.newSession();
      const done = h.prompt(sessionId, "#scenario:permission").then(
        () => undefined,
        (e: Error) => e,
      );
      await h.waitFor(() => h.received.permissionRequests.length > 0, "the permission request");
      process.kill(await zcodeChild(h.proc.pid), "SIGKILL");
      expect((await done)?.message).toMatch(/died|exited/);
      const requestId = h.received.messages.find((m) => m.method === "session/request_permission")!.id;
      await h.waitFor(
        () =>
          h.received.messages.some((m) => m.method === "$/cancel_request" && (m.params as { requestId?: unknown }).requestId === requestId),
        "$/cancel_request for the permission request",
      );
    });
  });

  test("cancel during a permission prompt: withdrawn ($/cancel_request), the turn ends cancelled", async () => {
    await withBridge({ onPermission: () => new Promise(() => {}), record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      const done = h.prompt(sessionId, "#scenario:permission");
      await h.waitFor(() => h.received.permissionRequests.length > 0, "the permission request");
      await h.cancel(sessionId);
      expect((await done).stopReason).toBe("cancelled");
      await h.waitFor(() => h.received.messages.some((m) => m.method === "$/cancel_request"), "$/cancel_request");
      await h.waitFor(
        () => h.simFrames().some((f) => f.method === undefined && (f.result as any)?.decision === "deny"),
        "the deny answer to ZCode",
      );
    });
  });
});
