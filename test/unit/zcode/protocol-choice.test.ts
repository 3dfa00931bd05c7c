// Which protocol ZCodeApi uses for a child (v4/only-choice.ts), against fake
// children: a 0.15-like one (no v4), a 0.16-like one (legacy and v4), and a
// v4-only one (every legacy method answered -32601), in auto, legacy and v4.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { ZCodeProtocolSetting } from "../../../src/config.ts";
import { ZCodeApi } from "../../../src/zcode/api.ts";
import { CliCapabilities } from "../../../src/zcode/capabilities.ts";
import type { ZCodeConnection } from "../../../src/zcode/connection.ts";
import { ZCodeError } from "../../../src/zcode/errors.ts";

type Kind = "0.15" | "0.16" | "v4-only";

const ACK = (commandId: string) => ({ commandId, status: "accepted", revisionAtDecision: 1 });

/** A child of that kind: records every request, answers as that CLI would. */
function child(kind: Kind) {
  const sent: { method: string; params: any }[] = [];
  const caps = new CliCapabilities(kind === "0.15" ? "0.15.3" : "0.16.9");
  const conn = {
    capabilities: caps,
    start: async () => ({}),
    async request(method: string, params: any, opts: { schema?: v.GenericSchema } = {}) {
      sent.push({ method, params: JSON.parse(JSON.stringify(params ?? null)) });
      const notFound = () => {
        caps.markUnsupported(method);
        return new ZCodeError(`Method not found: ${method}`, { code: -32601, method });
      };
      const v4 = method.startsWith("v4/");
      if (v4 && kind === "0.15") throw notFound();
      if (!v4 && kind === "v4-only") throw notFound();
      let answer: unknown = {};
      if (method === "v4/commands/query") answer = { results: [{ result: "unknown" }] };
      else if (method === "v4/command") answer = ACK(params.commandId);
      else if (method === "v4/conversation/rowsRange") answer = { rows: [], atRevision: 3, atLogEpoch: "e1", hasMore: false, atSeq: 0 };
      return opts.schema ? v.parse(opts.schema, answer) : answer;
    },
  };
  return { conn: conn as unknown as ZCodeConnection, sent, caps };
}

const methods = (sent: { method: string; params: any }[]) =>
  sent.filter((s) => s.method !== "v4/commands/query").map((s) => (s.method === "v4/command" ? `v4/command ${s.params.type}` : s.method));

async function sendWith(kind: Kind, protocol: ZCodeProtocolSetting) {
  const c = child(kind);
  const api = new ZCodeApi(c.conn, { protocol });
  await api.send({ sessionId: "s1", content: "hi" });
  return { ...c, api };
}

describe("auto", () => {
  test("a 0.15-like CLI (no v4) keeps legacy", async () => {
    const { sent, api } = await sendWith("0.15", "auto");
    expect(methods(sent)).toEqual(["session/send"]);
    expect(await api.protocol()).toBe("legacy");
  });

  test("a 0.16-like CLI (legacy and v4) keeps legacy, exactly as before", async () => {
    const { sent, api, caps } = await sendWith("0.16", "auto");
    expect(methods(sent)).toEqual(["session/send"]);
    expect(caps.legacyGone).toBe(false);
    expect(await api.protocol()).toBe("legacy");
  });

  test("a v4-only CLI: the -32601 switches the child to v4, the send is retried once in v4, later ones go to v4 at once", async () => {
    const { sent, api, caps } = await sendWith("v4-only", "auto");
    expect(methods(sent)).toEqual(["session/send", "v4/command sendText"]);
    expect(caps.legacyGone).toBe(true);
    expect(await api.protocol()).toBe("v4");
    await api.stop("s1");
    expect(methods(sent).slice(2)).toEqual(["v4/command stop"]);
  });

  test("a -32601 of a method 0.16 dropped alone (session/steer) is not a legacy that is gone", async () => {
    const c = child("0.16");
    const api = new ZCodeApi(c.conn);
    const err = new ZCodeError("Method not found: session/steer", { code: -32601, method: "session/steer" });
    expect(await api.choice.switchAfter(err)).toBe(false);
    expect(c.caps.legacyGone).toBe(false);
  });

  test("-32601 on a CLI without v4 is thrown as it is", async () => {
    const c = child("0.15");
    (c.conn as unknown as { request: (m: string) => Promise<unknown> }).request = async (method: string) => {
      if (method === "v4/commands/query" || method === "session/send")
        throw new ZCodeError(`Method not found: ${method}`, { code: -32601, method });
      return {};
    };
    await expect(new ZCodeApi(c.conn).send({ sessionId: "s1", content: "x" })).rejects.toMatchObject({
      code: -32601,
      method: "session/send",
    });
  });
});

describe("forced", () => {
  test("legacy never switches, even on a v4-only CLI", async () => {
    const c = child("v4-only");
    await expect(new ZCodeApi(c.conn, { protocol: "legacy" }).send({ sessionId: "s1", content: "x" })).rejects.toMatchObject({
      code: -32601,
    });
    expect(methods(c.sent)).toEqual(["session/send"]);
  });

  test("v4 on a 0.16-like CLI: v4 from the first operation", async () => {
    const { sent } = await sendWith("0.16", "v4");
    expect(methods(sent)).toEqual(["v4/command sendText"]);
  });

  test("v4 on a CLI without v4: a clear error, nothing sent", async () => {
    const c = child("0.15");
    const err = await new ZCodeApi(c.conn, { protocol: "v4" }).send({ sessionId: "s1", content: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(ZCodeError);
    expect(err.message).toContain("does not serve the v4 protocol");
    expect(err.message).toContain("0.15.3");
    expect(methods(c.sent)).toEqual([]);
  });
});

test("a v4-only child's menu: the legacy methods its -32601 marked are served by v4, and listeners hear the switch", async () => {
  const c = child("v4-only");
  let heard = 0;
  c.caps.onChange(() => heard++);
  const api = new ZCodeApi(c.conn);
  await api.compact({ sessionId: "s1" });
  expect(methods(c.sent)).toEqual(["session/compact", "v4/command compact"]);
  expect(c.caps.supports("session/compact")).toBe(true);
  expect(heard).toBeGreaterThan(0);
  // 0.16 without the switch: a -32601 still marks the method off.
  const d = child("0.16");
  d.caps.markUnsupported("session/compact");
  expect(d.caps.supports("session/compact")).toBe(false);
});
