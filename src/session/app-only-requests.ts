import { log } from "../log.ts";

// What ZCode asks of the desktop app that the bridge cannot do, answered with
// the refusals ZCode's own schemas define, so the tool that asked fails with
// a reason ZCode understands instead of a protocol error:
//
// - interaction/requestOfficialMcpAuthHeaders: the MCP servers of ZCode's
//   official plugins (image search, web reader, …) need the app's MaaS sign-in
//   (a login JWT the app keeps in its credential store, not in a file the
//   bridge reads): `{ok:false, reason:"official_auth_unavailable"}`
//   (shared/official-mcp-auth.ts, zcode-protocol zcodeOfficialMcpAuthHeadersResponseSchema).
// - interaction/browserList / browserExecute: browser control runs in the
//   app's embedded browser: no browser (`{browsers: []}`), and a command gets
//   `{ok:false, error:{code:"backend_unavailable"}}` (browser-use/backend.ts, result.ts).

const logger = log.withTag("app-only");

export function officialMcpAuthAnswer(params: unknown): { ok: false; reason: "official_auth_unavailable" } {
  const p = (params ?? {}) as { pluginId?: unknown; mcpKey?: unknown };
  logger.info(`official MCP ${String(p.pluginId ?? "?")}/${String(p.mcpKey ?? "?")} needs the ZCode app's sign-in; refused as unavailable`);
  return { ok: false, reason: "official_auth_unavailable" };
}

export function browserListAnswer(): { browsers: [] } {
  return { browsers: [] };
}

export function browserExecuteAnswer(): {
  ok: false;
  error: { code: "backend_unavailable"; message: string; sideEffect: "none" };
  elapsedMs: 0;
} {
  return {
    ok: false,
    error: {
      code: "backend_unavailable",
      message: "Browser control needs the ZCode desktop app; zcode-acp-server has no browser.",
      sideEffect: "none",
    },
    elapsedMs: 0,
  };
}
