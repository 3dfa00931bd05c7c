// What ZCode asks of the desktop app that the bridge cannot serve: official
// MCP auth headers and browser control get the refusals ZCode's own schemas
// define (checked strictly by the simulator), never -32601.
import { expect, test } from "bun:test";
import { withBridge } from "../support/acp-harness.ts";

test("official MCP auth: official_auth_unavailable; browser list empty; a browser command backend_unavailable", () =>
  withBridge({}, async (h) => {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "#scenario:app-tools")).stopReason).toBe("end_turn");
    const text = h.text(sessionId);
    expect(text).toContain('interaction/requestOfficialMcpAuthHeaders: {"ok":false,"reason":"official_auth_unavailable"}');
    expect(text).toContain('interaction/browserList: {"browsers":[]}');
    expect(text).toContain('interaction/browserExecute: {"ok":false,"error":{"code":"backend_unavailable"');
    expect(text).not.toContain("invalid answer");
    expect(text).not.toContain("error -32601");
  }));
