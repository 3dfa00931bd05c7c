import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import { redact } from "../redact.ts";
import type { TurnFailed } from "../zcode/event-schemas.ts";
import type { SessionHost } from "./host.ts";

/**
 * The error a prompt fails with when ZCode failed its turn: ZCode's words
 * (already redacted: `message`), and, when the plan's allowance is spent,
 * which window and when it resets (src/session/quota-push.ts).
 */
export async function turnFailedError(s: SessionHost, p: TurnFailed, message: string): Promise<RequestError> {
  const e = p.error as { code?: unknown; attribution?: { providerErrorCode?: unknown } } | undefined;
  const code = String(e?.attribution?.providerErrorCode ?? e?.code ?? "");
  const spent = await (s.quota?.spentWords(s, message, code) ?? Promise.resolve(undefined)).catch(() => undefined);
  return new RequestError(-32603, t().errors.turnFailed(spent ? `${message} ${spent}` : message, p.error?.code), {
    zcodeError: p.error ? redact({ ...p.error, message }) : undefined,
  });
}
