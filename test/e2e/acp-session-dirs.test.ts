// additionalDirectories and the client's systemPrompt: ZCode 0.16.9's
// session/create and session/resume take one workspace and no system
// instructions (src/acp/request-checks.ts cites the schemas), so neither is
// advertised, and a request carrying one is refused before ZCode is asked.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rejection, sharedBridge, withBridge } from "../support/acp-harness.ts";

const extraRoot = () => mkdtempSync(join(tmpdir(), "acp-extra-root-"));
const SYSTEM_PROMPT = { mode: "append", content: [{ type: "text", text: "Answer in haiku." }] };

describe("additionalDirectories and systemPrompt", () => {
  // The refusals: each test opens its own sessions and reads what ZCode got since it started.
  const recorded = sharedBridge({ record: true });

  test("neither is advertised", async () => {
    await withBridge({}, async (h) => {
      const caps = h.initializeResponse?.agentCapabilities?.sessionCapabilities as Record<string, unknown> | undefined;
      expect(caps).toBeDefined();
      expect(caps?.additionalDirectories).toBeUndefined();
      expect(caps?.systemPrompt).toBeUndefined();
    });
  });

  test("session/new with extra roots or a system prompt: -32602 saying why, and ZCode never asked", async () => {
    await recorded.run(async (h) => {
      const dirs = await rejection(
        h.agent.request(acp.methods.agent.session.new, { cwd: h.stateDir, mcpServers: [], additionalDirectories: [extraRoot()] }),
      );
      expect(dirs.code).toBe(-32602);
      expect(dirs.message).toContain("one workspace folder per session");
      const prompt = await rejection(
        h.agent.request(acp.methods.agent.session.new, {
          cwd: h.stateDir,
          mcpServers: [],
          systemPrompt: SYSTEM_PROMPT,
        } as acp.NewSessionRequest),
      );
      expect(prompt.code).toBe(-32602);
      expect(prompt.message).toContain("`systemPrompt` cannot be applied");
      expect(h.simMethods()).not.toContain("session/create");
      // An empty list asks for nothing more: the session opens as usual.
      const ok = await h.agent.request(acp.methods.agent.session.new, { cwd: h.stateDir, mcpServers: [], additionalDirectories: [] });
      expect(ok.sessionId).toBeTruthy();
    });
  }, 30_000);

  test("load, resume and fork with extra roots: refused the same way, the conversation untouched", async () => {
    await recorded.run(async (h) => {
      const { sessionId } = await h.newSession();
      const extra = { cwd: h.stateDir, additionalDirectories: [extraRoot()] };
      for (const call of [
        h.agent.request(acp.methods.agent.session.load, { sessionId, mcpServers: [], ...extra }),
        h.agent.request(acp.methods.agent.session.resume, { sessionId, ...extra }),
        h.agent.request(acp.methods.agent.session.fork, { sessionId, ...extra }),
      ]) {
        const e = await rejection(call);
        expect(e.code).toBe(-32602);
        expect(e.message).toContain("additionalDirectories");
      }
      expect(h.simMethods().filter((m) => m === "session/fork" || m === "v4/command")).toEqual([]);
      expect((await h.prompt(sessionId, "still here")).stopReason).toBe("end_turn");
    });
  }, 30_000);
});
