// ACP session lifecycle through the compiled bridge against the simulator:
// initialize, new, load (replay before the answer), resume, list, close, fork.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, SIM_BIN, rejection, sharedBridge, withBridge, type Harness } from "../support/acp-harness.ts";
import { simSaved } from "./sim-store-support.ts";

const m = acp.methods.agent;

async function expectError(p: Promise<unknown>, code: number): Promise<acp.RequestError> {
  const e = await rejection(p);
  expect(e.code).toBe(code);
  return e;
}

/** The session's available_commands_update arrives, strictly after the response at `respIdx`. */
async function commandsFollow(h: Harness, sessionId: string, respIdx: number, what: string): Promise<void> {
  await h.waitFor(() => h.updatesOfKind(sessionId, "available_commands_update").length > 0, `commands after ${what}`);
  const cmdIdx = h.received.messages.findIndex((x) => {
    const n = x.params as acp.SessionNotification | undefined;
    return x.method === "session/update" && n?.sessionId === sessionId && n.update.sessionUpdate === "available_commands_update";
  });
  expect(respIdx).toBeGreaterThanOrEqual(0);
  expect(cmdIdx).toBeGreaterThan(respIdx);
}

/** Index of the first response (after `from`) whose result has `key`. */
function resultIndex(h: Harness, key: string, from = 0): number {
  const i = h.received.messages.slice(from).findIndex((x) => x.result !== undefined && key in (x.result as object));
  return i < 0 ? -1 : from + i;
}

// For the tests that need no options and count no sessions but their own, across the describes.
const bridge = sharedBridge({});

describe("initialize", () => {
  test("answers with protocol 1, agent info, capabilities and an agent auth method; no child", async () => {
    await withBridge({ record: true }, async (h) => {
      const r = h.initializeResponse!;
      expect(r.protocolVersion).toBe(1);
      expect(r.agentInfo?.name).toBe("zcode-acp-server");
      expect(r.agentInfo?.title).toBe("ZCode");
      expect(r.agentCapabilities?.loadSession).toBe(true);
      expect(r.agentCapabilities?.promptCapabilities).toEqual({ image: true, audio: false, embeddedContext: true });
      expect(r.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
      const sc = r.agentCapabilities?.sessionCapabilities;
      expect(sc?.list).toEqual({});
      expect(sc?.resume).toEqual({});
      expect(sc?.close).toEqual({});
      expect(sc?.fork).toEqual({});
      expect(r.authMethods?.length).toBeGreaterThan(0);
      expect((r.authMethods![0] as { type?: string }).type ?? "agent").toBe("agent");
      // The first line on stdout is the initialize response.
      expect(h.received.messages[0]).toMatchObject({ id: expect.anything(), result: { protocolVersion: 1 } });
      expect(h.simFrames()).toEqual([]); // no ZCode child for initialize
      await h.agent.request(m.authenticate, { methodId: r.authMethods![0]!.id });
    });
  });

  test("authenticate with a method id initialize did not offer is an error naming the methods", async () => {
    await bridge.run(async (h) => {
      const err = await rejection(h.agent.request(m.authenticate, { methodId: "bogus" }));
      expect(err.code).toBe(-32602);
      expect(err.message).toContain('unknown authentication method "bogus"; this agent offers: zcode-app');
      expect(await h.agent.request(m.authenticate, { methodId: "zcode-app" })).toEqual({});
    });
  });

  // A version above 1 (7, 65535) is answered with ACP v2, the newest the
  // bridge speaks: test/e2e/acp-v2.test.ts and acp-conformance.test.ts (ACP-INIT-003).
  test("answers protocol 1 when asked for 1 or an older version", async () => {
    await withBridge({ skipInitialize: true }, async (h) => {
      const r = await h.initialize({ protocolVersion: 0 });
      expect(r.protocolVersion).toBe(1);
    });
  });

  test("works with an empty environment, an empty HOME and no ZCode", async () => {
    const home = mkdtempSync(join(tmpdir(), "empty-home-"));
    try {
      const proc = Bun.spawn([BRIDGE_BIN], { stdin: "pipe", stdout: "pipe", stderr: "pipe", env: { HOME: home }, cwd: home });
      proc.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
      );
      await proc.stdin.flush();
      const reader = proc.stdout.getReader();
      let buf = "";
      while (!buf.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += new TextDecoder().decode(value);
      }
      const first = JSON.parse(buf.slice(0, buf.indexOf("\n")));
      expect(first.id).toBe(1);
      expect(first.result.protocolVersion).toBe(1);
      // A session needs ZCode: the error says how to fix it.
      proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: home, mcpServers: [] } })}\n`);
      await proc.stdin.flush();
      buf = buf.slice(buf.indexOf("\n") + 1);
      while (!buf.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += new TextDecoder().decode(value);
      }
      const second = JSON.parse(buf.slice(0, buf.indexOf("\n")));
      expect(second.id).toBe(2);
      expect(second.error.message).toContain("ZCODE_BIN");
      expect(second.error.message).toContain("doctor");
      reader.releaseLock();
      proc.stdin.end();
      expect(await proc.exited).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("sessions", () => {
  test("session/new returns modes and config options; commands follow the response", async () => {
    await withBridge({ record: true }, async (h) => {
      const r = await h.newSession();
      expect(r.sessionId).toBeTruthy();
      expect(r.modes?.currentModeId).toBe("build");
      expect(r.modes?.availableModes.map((x) => x.id)).toContain("plan");
      const cats = r.configOptions?.map((o) => o.category);
      expect(cats).toEqual(["mode", "model", "thought_level"]);
      const respIdx = h.received.messages.findIndex((x) => (x.result as { sessionId?: string } | undefined)?.sessionId === r.sessionId);
      await commandsFollow(h, r.sessionId, respIdx, "new");
      const create = h.simFrames().find((f) => f.method === "session/create");
      expect(create?.params.workspace).toEqual({ workspacePath: h.stateDir, workspaceKey: h.stateDir });
      // The client's MCP servers reach ZCode as given.
      const mcpServers = [{ name: "files", command: "/usr/bin/mcp-files", args: ["--root", h.stateDir], env: [] }];
      await h.agent.request(m.session.new, { cwd: h.stateDir, mcpServers });
      expect(
        h
          .simFrames()
          .filter((f) => f.method === "session/create")
          .at(-1)?.params.mcpServers,
      ).toEqual(mcpServers);
    });
  });

  test("the client's MCP servers go to ZCode again on every load and resume, and on a resume in a new child", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "zcode-sim-state-"));
    const mcp = (name: string): acp.McpServer[] => [{ type: "http", name, url: `http://127.0.0.1:9/${name}`, headers: [] }];
    const resumes = (h: Harness) => h.simFrames().filter((f) => f.method === "session/resume");
    try {
      let sessionId = "";
      await withBridge({ stateDir }, async (h) => {
        sessionId = (await h.agent.request(m.session.new, { cwd: stateDir, mcpServers: mcp("first") })).sessionId;
      });
      await withBridge({ stateDir, record: true }, async (h) => {
        await h.agent.request(m.session.load, { sessionId, cwd: stateDir, mcpServers: mcp("loaded") });
        expect(resumes(h).at(-1)?.params.mcpServers).toEqual(mcp("loaded"));
        // The child dies; the next prompt resumes the session in a new one, with the same servers.
        await expectError(h.prompt(sessionId, "#scenario:crash"), -32603);
        expect((await h.prompt(sessionId, "after the crash")).stopReason).toBe("end_turn");
        expect(resumes(h)).toHaveLength(2);
        expect(resumes(h).at(-1)?.params.mcpServers).toEqual(mcp("loaded"));
      });
      await withBridge({ stateDir, record: true }, async (h) => {
        await h.agent.request(m.session.resume, { sessionId, cwd: stateDir, mcpServers: mcp("resumed") });
        expect(resumes(h).at(-1)?.params.mcpServers).toEqual(mcp("resumed"));
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 30_000);

  test("relative cwd is -32602; unknown session is -32002; audio and broken images are -32602", async () => {
    await bridge.run(async (h) => {
      await expectError(h.agent.request(m.session.new, { cwd: "relative/dir", mcpServers: [] }), -32602);
      const { sessionId } = await h.newSession();
      await expectError(h.agent.request(m.session.load, { sessionId, cwd: "rel", mcpServers: [] }), -32602);
      await expectError(h.agent.request(m.session.resume, { sessionId, cwd: "rel" }), -32602);
      await expectError(h.agent.request(m.session.fork, { sessionId, cwd: "rel", mcpServers: [] }), -32602);
      await expectError(h.agent.request(m.session.list, { cwd: "rel" }), -32602);
      const image = await expectError(h.prompt(sessionId, [{ type: "image", data: "not base64!", mimeType: "image/png" }]), -32602);
      expect(image.message).toMatch(/base64/i);
      const bmp = await expectError(h.prompt(sessionId, [{ type: "image", data: "AAAA", mimeType: "image/bmp" }]), -32602);
      expect(bmp.message).toMatch(/PNG, JPEG, WebP or GIF/);
      await expectError(h.prompt(sessionId, [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }]), -32602);
      // The refused prompts did not break the session.
      expect((await h.prompt(sessionId, "still fine")).stopReason).toBe("end_turn");
      await expectError(h.prompt("sess_nope", "hi"), -32002);
      await expectError(h.agent.request(m.session.load, { sessionId: "sess_nope", cwd: h.stateDir, mcpServers: [] }), -32002);
      await expectError(h.agent.request(m.session.resume, { sessionId: "sess_nope", cwd: h.stateDir }), -32002);
      await expectError(h.agent.request(m.session.fork, { sessionId: "sess_nope", cwd: h.stateDir, mcpServers: [] }), -32002);
      await expectError(h.agent.request(m.session.setMode, { sessionId: "sess_nope", modeId: "plan" }), -32002);
    });
  });

  test("a CLI too old (0.14.7): session/new fails naming the version found and the one needed", async () => {
    await withBridge({ simVersion: "0.14.7" }, async (h) => {
      const e = await expectError(h.agent.request(m.session.new, { cwd: h.stateDir, mcpServers: [] }), -32603);
      expect(e.message).toContain("0.14.7");
      expect(e.message).toContain("0.14.8");
    });
  });

  test("the desktop bundle's CLI without its built-in provider table: ZCode's raw line, then the sentence with its fix", async () => {
    await withBridge({ env: { ZCODE_SIM_REQUIRE_PROVIDER_CONFIG: "1" } }, async (h) => {
      const e = await expectError(h.agent.request(m.session.new, { cwd: h.stateDir, mcpServers: [] }), -32603);
      expect(e.message).toContain("无法定位 CLI ZCode Built-in Provider Config");
      expect(e.message).toContain("could not find its built-in provider table (zcode-builtin.json)");
      expect(e.message).toContain("Set ZCODE_BUILTIN_PROVIDER_CONFIG_FILE in the agent's env to that file");
    });
  });

  test("the CLI is replaced by one too old (0.14.7): prompt, load and resume fail naming both versions; a good CLI again works", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zcode-swap-"));
    const bin = join(dir, "zcode");
    // Installed the way installers do it: a new file renamed over the old one.
    // The bridge knows a version per file, so it asks again only when the file changes.
    const install = (version: string) => {
      writeFileSync(`${bin}.new`, `#!/bin/sh\nexec '${SIM_BIN}' --sim-version ${version} "$@"\n`, { mode: 0o755 });
      renameSync(`${bin}.new`, bin);
    };
    install("0.15.3");
    try {
      await withBridge({ env: { ZCODE_BIN: bin } }, async (h) => {
        const { sessionId } = await h.newSession();
        await expectError(h.prompt(sessionId, "#scenario:crash"), -32603);
        install("0.14.7");
        for (const call of [
          h.prompt(sessionId, "hello"),
          h.agent.request(m.session.load, { sessionId, cwd: h.stateDir, mcpServers: [] }),
          h.agent.request(m.session.resume, { sessionId, cwd: h.stateDir }),
        ]) {
          const e = await expectError(call, -32603);
          expect(e.message).toContain("0.14.7");
          expect(e.message).toContain("0.14.8");
        }
        install("0.15.3");
        expect((await h.prompt(sessionId, "hello again")).stopReason).toBe("end_turn");
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("ZCODE_BIN pointing nowhere: a readable error naming ZCODE_BIN and doctor", async () => {
    await withBridge({ env: { ZCODE_BIN: "/nonexistent/zcode" } }, async (h) => {
      const e = await expectError(h.agent.request(m.session.new, { cwd: h.stateDir, mcpServers: [] }), -32603);
      expect(e.message).toContain("ZCODE_BIN");
      expect(e.message).toContain("zcode-acp-server doctor");
    });
  });

  test("default mode comes from ZCODE_ACP_MODE", async () => {
    await withBridge({ env: { ZCODE_ACP_MODE: "plan" }, record: true }, async (h) => {
      const r = await h.newSession();
      expect(r.modes?.currentModeId).toBe("plan");
      expect(h.simFrames().find((f) => f.method === "session/create")?.params.mode).toBe("plan");
    });
  });

  test("a default prompt streams thoughts and text and ends end_turn with usage", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, "hello there");
      expect(r.stopReason).toBe("end_turn");
      expect(r.usage?.totalTokens).toBeGreaterThan(0);
      expect(h.text(sessionId)).toContain("Echo: hello there");
      expect(h.text(sessionId, "agent_thought_chunk").length).toBeGreaterThan(0);
    });
  });

  test("load replays the conversation before answering; resume replays nothing; list and close", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "zcode-sim-state-"));
    try {
      let sessionId = "";
      await withBridge({ stateDir }, async (h) => {
        sessionId = (await h.newSession()).sessionId;
        await h.prompt(sessionId, "first question");
        await h.prompt(sessionId, "#scenario:todo make a plan");
        expect(h.updatesOfKind(sessionId, "plan").at(-1)?.entries.length).toBe(3);
        // ZCode stores the todos shortly after the tool result.
        await h.waitFor(() => simSaved(stateDir, sessionId)?.todos?.length === 3, "ZCode to save the todos");
      });
      // A new bridge process: the ACP id is ZCode's id, so it loads directly.
      await withBridge({ stateDir }, async (h) => {
        const loaded = await h.agent.request(m.session.load, { sessionId, cwd: stateDir, mcpServers: [] });
        expect(loaded.modes?.currentModeId).toBeTruthy();
        const respIdx = resultIndex(h, "configOptions");
        const replayed = h.received.messages.slice(0, respIdx).filter((x) => x.method === "session/update");
        const kinds = replayed.map((x) => (x.params as acp.SessionNotification).update.sessionUpdate);
        expect(kinds).toContain("user_message_chunk");
        expect(kinds).toContain("agent_message_chunk");
        expect(kinds).toContain("tool_call");
        expect(kinds).toContain("plan");
        expect(kinds).toContain("usage_update");
        expect(kinds).toContain("session_info_update");
        expect(JSON.stringify(replayed)).toContain("first question");
        await commandsFollow(h, sessionId, respIdx, "load");

        const list = await h.agent.request(m.session.list, { cwd: stateDir });
        expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
        const item = list.sessions.find((s) => s.sessionId === sessionId)!;
        expect(item.cwd).toBe(stateDir);
        expect(item.title).toBe("first question");
        expect(new Date(item.updatedAt!).toISOString()).toBe(item.updatedAt!);
        const other = await h.agent.request(m.session.list, { cwd: "/nowhere/else" });
        expect(other.sessions).toEqual([]);

        // The loaded session works.
        const r = await h.prompt(sessionId, "after load");
        expect(r.stopReason).toBe("end_turn");

        await h.agent.request(m.session.close, { sessionId });
        await expectError(h.prompt(sessionId, "after close"), -32002);
      });
      await withBridge({ stateDir }, async (h) => {
        const before = h.received.updates.length;
        const sent = h.received.messages.length;
        await h.agent.request(m.session.resume, { sessionId, cwd: stateDir });
        await commandsFollow(h, sessionId, resultIndex(h, "configOptions", sent), "resume");
        const kinds = h.received.updates.slice(before).map((u) => u.update.sessionUpdate);
        expect(kinds.filter((k) => k !== "available_commands_update")).toEqual([]);
        expect((await h.prompt(sessionId, "after resume")).stopReason).toBe("end_turn");
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 30_000);

  test("list is newest first and pages with a cursor", async () => {
    await withBridge({}, async (h) => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { sessionId } = await h.newSession();
        await h.prompt(sessionId, `prompt ${i}`);
        ids.push(sessionId);
      }
      const list = await h.agent.request(m.session.list, { cwd: h.stateDir });
      expect(list.sessions.map((s) => s.sessionId)).toEqual([...ids].reverse());
      expect(list.nextCursor ?? undefined).toBeUndefined();
    });
  });

  test("odd figures in a stored session: listed without a date it cannot have, loaded without a bad usage_update", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "zcode-sim-state-"));
    try {
      let odd = "";
      let fine = "";
      await withBridge({ stateDir }, async (h) => {
        odd = (await h.newSession()).sessionId;
        fine = (await h.newSession()).sessionId;
      });
      const file = join(stateDir, `${odd}.json`);
      // Also a context figure ACP cannot take (usage must be an unsigned integer).
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), updatedAt: 1e20, contextUsed: -3 }));
      await withBridge({ stateDir }, async (h) => {
        const list = await h.agent.request(m.session.list, { cwd: stateDir });
        const byId = new Map(list.sessions.map((s) => [s.sessionId, s]));
        expect(byId.get(odd)?.updatedAt ?? undefined).toBeUndefined();
        expect(new Date(byId.get(fine)!.updatedAt!).toISOString()).toBe(byId.get(fine)!.updatedAt!);
        // Loading it replays without a usage_update it cannot have (every message is schema-checked).
        await h.agent.request(m.session.load, { sessionId: odd, cwd: stateDir, mcpServers: [] });
        expect(h.updatesOfKind(odd, "usage_update")).toEqual([]);
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test("more than a page of sessions: a cursor leads to the rest, nothing twice", async () => {
    await withBridge({}, async (h) => {
      const made = new Set<string>();
      for (let i = 0; i < 55; i++) made.add((await h.newSession()).sessionId);
      const first = await h.agent.request(m.session.list, { cwd: h.stateDir });
      expect(first.sessions.length).toBe(50);
      expect(first.nextCursor).toBeTruthy();
      const second = await h.agent.request(m.session.list, { cwd: h.stateDir, cursor: first.nextCursor! });
      expect(second.sessions.length).toBe(5);
      expect(second.nextCursor ?? undefined).toBeUndefined();
      const all = [...first.sessions, ...second.sessions].map((s) => s.sessionId);
      expect(new Set(all)).toEqual(made);
      expect((await expectError(h.agent.request(m.session.list, { cwd: h.stateDir, cursor: "garbage!" }), -32602)).message).toContain(
        "cursor",
      );
    });
  }, 30_000);

  test("session/fork of a session this bridge has not opened (after a restart): resumed first, then forked", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "zcode-sim-state-"));
    try {
      let sessionId = "";
      await withBridge({ stateDir }, async (h) => {
        sessionId = (await h.newSession()).sessionId;
        await h.prompt(sessionId, "before the restart");
      });
      await withBridge({ stateDir }, async (h) => {
        const fork = await h.agent.request(m.session.fork, { sessionId, cwd: stateDir, mcpServers: [] });
        expect(fork.sessionId).not.toBe(sessionId);
        expect((await h.prompt(fork.sessionId, "in the fork")).stopReason).toBe("end_turn");
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 30_000);

  test("session/fork returns a new session that works", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "before fork");
      const fork = await h.agent.request(m.session.fork, { sessionId, cwd: h.stateDir, mcpServers: [] });
      expect(fork.sessionId).not.toBe(sessionId);
      const respIdx = h.received.messages.findIndex((x) => (x.result as { sessionId?: string } | undefined)?.sessionId === fork.sessionId);
      await commandsFollow(h, fork.sessionId, respIdx, "fork");
      expect((await h.prompt(fork.sessionId, "in the fork")).stopReason).toBe("end_turn");
      expect(h.text(fork.sessionId)).toContain("Echo: in the fork");
    });
  });
});
