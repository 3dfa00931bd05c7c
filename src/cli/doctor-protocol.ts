import type { BridgeConfig } from "../config.ts";
import { t } from "../i18n/index.ts";
import { ZCodeConnection } from "../zcode/connection.ts";
import { shownMessage } from "../zcode/errors.ts";
import type { ZCodeLaunch } from "../zcode/resolve.ts";
import { decideProtocol, probeProtocols } from "../zcode/v4/only-choice.ts";

// doctor's protocol line: which of ZCode's protocols the sessions would use
// with this CLI and --zcode-protocol, and why. It starts the CLI's
// app-server, asks it the v4 probe and a legacy read that changes nothing
// (v4/only-choice.ts probeProtocols), and stops it again.

export interface ProtocolCheck {
  ok: boolean;
  label: string;
  detail: string;
  fix?: string;
}

export async function protocolCheck(config: BridgeConfig, launch: ZCodeLaunch): Promise<ProtocolCheck> {
  const say = t().cli.doctor;
  const label = say.labels.protocol;
  const conn = new ZCodeConnection(config, { launch });
  try {
    const { protocol, reason } = decideProtocol(config.zcodeProtocol, await probeProtocols(conn));
    const detail = say.protocolReasons[reason];
    return protocol ? { ok: true, label, detail } : { ok: false, label, detail, fix: say.protocolFix };
  } catch (e) {
    return { ok: false, label, detail: say.protocolFailed(shownMessage(e)), fix: say.versionFailedFix };
  } finally {
    await conn.close();
  }
}
