// /steer (CLI 0.15.x only): instructions for the running turn.
import { describe, expect, test } from "bun:test";
import { CLIENT_ID } from "../../../src/zcode/v4/channel.ts";
import { CAPS_015, CAPS_016, CAPS_V4, FakeCaps, runCommand, zerr } from "../support/commands-fakes.ts";

const during = { turnRunning: true, caps: CAPS_015(), version: "0.15.3" };

describe("/steer", () => {
  test("during a turn: session/steer and a short confirmation", async () => {
    const r = await runCommand("/steer use TypeScript", { steer: { accepted: true } }, during);
    expect(r.calls).toEqual([{ method: "session/steer", params: { sessionId: "sess_1", content: "use TypeScript" } }]);
    expect(r.said).toEqual(["Steering the running turn with:\n\n> use TypeScript"]);
  });

  test("multi-line instructions are quoted line by line", async () => {
    const r = await runCommand("/steer use TypeScript\nand add tests", { steer: { accepted: true } }, during);
    expect(r.said).toEqual(["Steering the running turn with:\n\n> use TypeScript\n> and add tests"]);
  });

  test("no turn running: nothing sent, suggests a message", async () => {
    const r = await runCommand("/steer use TypeScript", {}, { ...during, turnRunning: false });
    expect(r.calls).toEqual([]);
    expect(r.said[0]).toContain("No turn is running");
    expect(r.said[0]).toContain("ordinary message");
    expect(r.said[0]).toContain("> use TypeScript");
  });

  test("ZCode 1309 (turn ended meanwhile): same explanation", async () => {
    const r = await runCommand("/steer x", { steer: zerr(1309, "no turn running", "session/steer") }, during);
    expect(r.said[0]).toContain("No turn is running");
  });

  test("no text: usage", async () => {
    const r = await runCommand("/steer", {}, during);
    expect(r.calls).toEqual([]);
    expect(r.said[0]).toEndWith("Usage: `/steer <instructions>`");
  });

  test("a CLI that answers -32601: 'not supported' naming its version; capability marked off", async () => {
    const caps = new FakeCaps("0.16.2");
    const r = await runCommand(
      "/steer x",
      { steer: zerr(-32601, "Method not found: session/steer", "session/steer") },
      { turnRunning: true, caps, version: "0.16.2" },
    );
    expect(r.said).toEqual(["`/steer` is not supported by ZCode CLI 0.16.2"]);
    expect(caps.supports("session/steer")).toBe(false);
  });

  test("0.16.x: not supported, nothing sent", async () => {
    const r = await runCommand("/steer x", {}, { turnRunning: true, caps: CAPS_016(), version: "0.16.9" });
    expect(r.calls).toEqual([]);
    expect(r.said).toEqual(["`/steer` is not supported by ZCode CLI 0.16.9"]);
  });
});

describe("/steer on a CLI with v4", () => {
  const v4 = () => ({ turnRunning: true, caps: CAPS_V4(), version: "0.16.9" });
  const ack = (delivery: string) => (p: any) => ({
    commandId: p.commandId,
    status: "accepted",
    revisionAtDecision: 3,
    result: { type: "inputAccepted", delivery, inputId: p.commandId },
  });

  test("sendText with requestedDelivery guide, a uuid v7 commandId and the process's clientId; answered at once", async () => {
    const r = await runCommand("/steer use TypeScript", { "v4/command": ack("queue") }, v4());
    expect(r.calls).toHaveLength(1);
    const env = r.calls[0]!.params as any;
    expect(r.calls[0]!.method).toBe("v4/command");
    expect(env).toMatchObject({ sessionId: "sess_1", type: "sendText", payload: { text: "use TypeScript", requestedDelivery: "guide" } });
    expect(env.commandId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(env.clientId).toBe(CLIENT_ID);
    expect(env.baseRevision).toBeUndefined();
    expect(r.said).toEqual(["Steering the running turn with:\n\n> use TypeScript"]);
  });

  test("the turn had just ended (delivery startNow): says ZCode runs it as a new turn", async () => {
    const r = await runCommand("/steer x", { "v4/command": ack("startNow") }, v4());
    expect(r.said[0]).toStartWith("The turn had just ended");
  });

  test("a refusal is ZCode's reason in words, matched by reasonCode", async () => {
    const r = await runCommand(
      "/steer x",
      {
        "v4/command": (p: any) => ({
          commandId: p.commandId,
          status: "rejected",
          reasonCode: "proto.sessionNotFound",
          message: "whatever zod says",
          revisionAtDecision: 0,
        }),
      },
      v4(),
    );
    expect(r.said).toEqual([
      "ZCode did not take this steer: ZCode does not have this session open any more; try again (the bridge opens it first).\n\n> x",
    ]);
  });
});
