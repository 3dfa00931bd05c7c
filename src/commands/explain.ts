import { t } from "../i18n/index.ts";
import { shownMessage, ZCODE_ERR } from "../zcode/errors.ts";
import { LOCAL_V4_ERR } from "../zcode/v4/channel.ts";
import type { CommandContext, SlashCommand } from "./types.ts";
import { notSupportedText, usageLine } from "./text.ts";

/** The JSON-RPC code of a ZCode (or ACP) error, without depending on its class. */
export function errorCode(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const c = (err as { code?: unknown }).code;
  return typeof c === "number" ? c : undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The reply for a ZCode error any command can meet, or undefined when the
 * error is not one a person can act on here (it then reaches the editor as an
 * ACP error).
 */
export function explainFailure(cmd: SlashCommand, ctx: CommandContext, err: unknown): string | undefined {
  switch (errorCode(err)) {
    case ZCODE_ERR.methodNotFound: {
      // The api marks the method off on -32601; repeat it here (idempotent)
      // so the menu drops the command even if the error reached us some other way.
      const method = (err as { method?: unknown }).method;
      const name = typeof method === "string" ? method : cmd.requires;
      const caps = ctx.api.capabilities();
      if (name && caps?.supports(name)) caps.markUnsupported(name);
      return notSupportedText(cmd.name, ctx.cliVersion());
    }
    case ZCODE_ERR.busy:
    case ZCODE_ERR.promptRunning:
      return t().commands.busy(cmd.name);
    case ZCODE_ERR.invalidParams:
      return usageLine(cmd, t().commands.rejected(cmd.name, errorMessage(err)));
    // ZCode's v4 channel answered that it did not do it: its reason, in words.
    case LOCAL_V4_ERR:
      return shownMessage(err);
    default:
      return undefined;
  }
}
