import type { ZCodeProtocolSetting } from "../../config.ts";
import { log } from "../../log.ts";
import type { CliCapabilities } from "../capabilities.ts";
import type { ZCodeConnection } from "../connection.ts";
import { LOCAL_ERR, ZCODE_ERR, ZCodeError } from "../errors.ts";
import { type ProbeAnswer, V4_TIMEOUTS, V4Channel } from "./channel.ts";
import { LEGACY_SESSION_METHODS } from "./only-methods.ts";

// Which of ZCode's protocols carries a session operation, per child
// (--zcode-protocol / ZCODE_ACP_ZCODE_PROTOCOL):
// - legacy: the session/* methods, as ever (v4 only where the bridge used it
//   already: /steer, /rewind, retry, stop of a v4 turn, delete);
// - v4: every operation on v4; a CLI without it is refused with a clear error;
// - auto: legacy while the child has it, exactly as `legacy`; v4 alone from
//   the moment the child answers a legacy session method "method not found"
//   while it serves v4 (the operation that got it runs again in v4, once).
//
// Why a -32601 and not a startup answer: ZCode's app-server has no handshake
// to read (`initialize` is not one of its methods: zcode-protocol/index.ts
// `zcodeProtocolMethods`), and the whole legacy method table, session/* and
// `runtime/capabilities` with it, lives in the file ZCode deletes whole
// ("旧协议删除边界", index.ts lines 22-33). A v4-only CLI therefore answers
// any of them -32601; the first session request finds out at the cost of
// one round trip, and a CLI that has legacy sees no extra request. doctor
// asks on purpose (probeProtocols, cli/doctor-protocol.ts).

const logger = log.withTag("v4");

export type Protocol = "legacy" | "v4";

export { LEGACY_SESSION_METHODS } from "./only-methods.ts";

/** Does this error say the child's legacy protocol is gone? */
export function legacyGoneError(err: unknown): boolean {
  return err instanceof ZCodeError && err.code === ZCODE_ERR.methodNotFound && LEGACY_SESSION_METHODS.has(err.method);
}

export class ProtocolChoice {
  constructor(
    readonly setting: ZCodeProtocolSetting,
    /** Does the current child serve v4 (the probe, v4/probe.ts)? Starts the child when needed. */
    private readonly hasV4: () => Promise<boolean>,
    private readonly caps: () => CliCapabilities | undefined,
  ) {}

  /** The protocol an operation uses now. Forced v4 on a child without it throws. */
  async current(): Promise<Protocol> {
    if (this.setting === "legacy") return "legacy";
    if (this.setting === "v4") {
      if (await this.hasV4()) return "v4";
      throw new ZCodeError((e) => e.noV4(this.caps()?.version ?? "?"), { code: LOCAL_ERR.unsupported, method: "v4/commands/query" });
    }
    return this.caps()?.legacyGone === true ? "v4" : "legacy";
  }

  /**
   * A legacy operation failed with `err`: should it run again in v4? Only in
   * auto, only for a -32601 of a legacy session method, and only when the
   * child serves v4; the child is v4-only from then on.
   */
  async switchAfter(err: unknown): Promise<boolean> {
    if (this.setting !== "auto" || !legacyGoneError(err)) return false;
    const caps = this.caps();
    if (!caps || !(await this.hasV4())) return false;
    if (!caps.legacyGone) {
      caps.markLegacyGone();
      logger.info(`ZCode ${caps.version} answered ${(err as ZCodeError).method} "method not found": using its v4 protocol alone`);
    }
    return true;
  }
}

/** What a child answered: the v4 probe, and a legacy read that changes nothing (`session/list {limit:1}`). */
export interface ProtocolProbe {
  v4: ProbeAnswer;
  legacy: ProbeAnswer;
}

/**
 * Asks a child both questions at once (doctor): the v4 probe, and
 * `session/list {limit:1}`, a legacy read every supported CLI serves
 * (0.14.8 on) that lives in the legacy method table ZCode deletes whole
 * (index.ts `zcodeProtocolMethods.sessionList`), so -32601 means no legacy.
 */
export async function probeProtocols(conn: ZCodeConnection): Promise<ProtocolProbe> {
  const legacy = conn.request("session/list", { limit: 1 }, { timeoutMs: V4_TIMEOUTS.probe }).then(
    (): ProbeAnswer => "yes",
    (err): ProbeAnswer => (err instanceof ZCodeError && err.code === ZCODE_ERR.methodNotFound ? "no" : "unknown"),
  );
  const [v4, old] = await Promise.all([new V4Channel(conn).probe(), legacy]);
  return { v4, legacy: old };
}

/** Why a child gets the protocol it gets (doctor's words are keyed by it). */
export type ProtocolReason =
  | "forcedLegacy"
  | "forcedLegacyGone"
  | "forcedV4"
  | "forcedV4Missing"
  | "autoLegacyAndV4"
  | "autoLegacyOnly"
  | "autoV4Only"
  | "autoUnknown"
  | "neither";

/** The protocol a child with these answers gets under `setting` (undefined: none works), and why. */
export function decideProtocol(setting: ZCodeProtocolSetting, probe: ProtocolProbe): { protocol?: Protocol; reason: ProtocolReason } {
  if (setting === "legacy") return probe.legacy === "no" ? { reason: "forcedLegacyGone" } : { protocol: "legacy", reason: "forcedLegacy" };
  if (setting === "v4") return probe.v4 === "yes" ? { protocol: "v4", reason: "forcedV4" } : { reason: "forcedV4Missing" };
  if (probe.legacy === "yes") return { protocol: "legacy", reason: probe.v4 === "yes" ? "autoLegacyAndV4" : "autoLegacyOnly" };
  if (probe.legacy === "no") return probe.v4 === "yes" ? { protocol: "v4", reason: "autoV4Only" } : { reason: "neither" };
  return { protocol: "legacy", reason: "autoUnknown" };
}
