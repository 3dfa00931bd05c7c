// Modes and config options: set_mode, set_config_option (incl. invalid
// values), and ZCode changing the mode itself (plan approval).
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { rejection, sharedBridge, withBridge } from "../support/acp-harness.ts";

const m = acp.methods.agent;

const code = async (p: Promise<unknown>): Promise<number> => (await rejection(p)).code;

describe("modes and options", () => {
  // For the tests without settings of their own: each starts its own session.
  const bridge = sharedBridge({ record: true });

  test("set_mode calls session/setMode and reports the change", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.agent.request(m.session.setMode, { sessionId, modeId: "plan" });
      const setMode = h.simFrames().find((f) => f.method === "session/setMode");
      expect(setMode?.params).toEqual({ sessionId, mode: "plan" });
      expect(h.updatesOfKind(sessionId, "current_mode_update").at(-1)?.currentModeId).toBe("plan");
      const opts = h.updatesOfKind(sessionId, "config_option_update").at(-1)?.configOptions;
      expect(opts?.find((o) => o.id === "mode")?.currentValue).toBe("plan");
      expect(await code(h.agent.request(m.session.setMode, { sessionId, modeId: "warp-speed" }))).toBe(-32602);
    });
  });

  test("set_config_option: thought level and mode; the complete option set comes back", async () => {
    await bridge.run(async (h) => {
      const { sessionId, configOptions } = await h.newSession();
      const thought = configOptions!.find((o) => o.category === "thought_level")!;
      expect(thought.type).toBe("select");
      const r = await h.agent.request(m.session.setConfigOption, { sessionId, configId: thought.id, value: "max" });
      expect(r.configOptions.map((o) => o.id)).toEqual(configOptions!.map((o) => o.id));
      expect(r.configOptions.find((o) => o.id === thought.id)?.currentValue).toBe("max");
      expect(h.simFrames().find((f) => f.method === "session/setThoughtLevel")?.params).toEqual({
        sessionId,
        thoughtLevel: "max",
      });
      const r2 = await h.agent.request(m.session.setConfigOption, { sessionId, configId: "mode", value: "yolo" });
      expect(r2.configOptions.find((o) => o.id === "mode")?.currentValue).toBe("yolo");
      expect(h.updatesOfKind(sessionId, "current_mode_update").at(-1)?.currentModeId).toBe("yolo");

      expect(await code(h.agent.request(m.session.setConfigOption, { sessionId, configId: thought.id, value: "ultra" }))).toBe(-32602);
      expect(await code(h.agent.request(m.session.setConfigOption, { sessionId, configId: "nope", value: "x" }))).toBe(-32602);
      const model = configOptions!.find((o) => o.category === "model");
      expect(model?.type).toBe("select");
      // A value ZCode does not offer is refused before anything is sent.
      expect(await code(h.agent.request(m.session.setConfigOption, { sessionId, configId: model!.id, value: "some-other-model" }))).toBe(
        -32602,
      );
      expect(h.simFrames().some((f) => f.method === "session/setModel")).toBe(false);
    });
  });

  test("plan approval: ZCode switches the mode itself and the editor is told before the response", async () => {
    await withBridge({ env: { ZCODE_ACP_MODE: "plan" } }, async (h) => {
      const { sessionId, modes } = await h.newSession();
      expect(modes?.currentModeId).toBe("plan");
      const p = h.prompt(sessionId, "#scenario:plan");
      expect((await p).stopReason).toBe("end_turn");
      expect(h.received.permissionRequests.length).toBe(1);
      expect(h.updatesOfKind(sessionId, "current_mode_update").at(-1)?.currentModeId).toBe("build");
      const opts = h.updatesOfKind(sessionId, "config_option_update").at(-1)?.configOptions;
      expect(opts?.find((o) => o.id === "mode")?.currentValue).toBe("build");
      // Both came before the prompt response.
      const resp = h.received.messages.findIndex((x) => (x.result as { stopReason?: string } | undefined)?.stopReason === "end_turn");
      const modeUpd = h.received.messages.findIndex(
        (x) => x.method === "session/update" && (x.params as acp.SessionNotification).update.sessionUpdate === "current_mode_update",
      );
      expect(modeUpd).toBeGreaterThan(-1);
      expect(modeUpd).toBeLessThan(resp);
    });
  });

  test("slash commands run without a model turn; unknown /words are prompts", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, "/mode plan");
      expect(r.stopReason).toBe("end_turn");
      expect(h.updatesOfKind(sessionId, "current_mode_update").at(-1)?.currentModeId).toBe("plan");
      expect(h.simMethods()).not.toContain("session/send");
      await h.prompt(sessionId, "/usr/lib is a path");
      expect(h.text(sessionId)).toContain("Echo: /usr/lib is a path");
    });
  });

  test("/steer runs beside a running turn and answers at once", async () => {
    // Steer exists from 0.15 up to (not including) 0.16.
    await withBridge({ record: true, simVersion: "0.15.3" }, async (h) => {
      const { sessionId } = await h.newSession();
      const turn = h.prompt(sessionId, "#scenario:slow n=60");
      await h.waitFor(() => h.text(sessionId).includes("chunk 0 "), "streaming");
      const steer = await h.prompt(sessionId, "/steer use TypeScript");
      expect(steer.stopReason).toBe("end_turn");
      expect(h.simFrames().find((f) => f.method === "session/steer")?.params.content).toBe("use TypeScript");
      expect((await turn).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("chunk 59");
    });
  });
});
