import type { PermissionOption as AcpPermissionOption, PermissionOptionKind } from "@agentclientprotocol/sdk/unstable";
import { t } from "../../i18n/index.ts";
import { log } from "../../log.ts";
import type { PermissionAnswer, PermissionOption } from "../../zcode/request-schemas.ts";

// ZCode's permission options as ACP options, and the answer ZCode expects for
// the one the user picked: the option's own `response`, verbatim (an "always"
// option's response carries the permission rules; without them ZCode asks
// again every time).

const logger = log.withTag("interactions");

const ACP_KIND_BY_ZCODE: Record<string, PermissionOptionKind> = {
  allow_once: "allow_once",
  allow_always: "allow_always",
  // "Always allow in this session": not asked again, which is what allow_always promises.
  allow_session: "allow_always",
  deny: "reject_once",
  reject_once: "reject_once",
  reject_always: "reject_always",
  deny_once: "reject_once",
  deny_always: "reject_always",
};

/** The name of an option ZCode sent without one (ZCode's own names are shown as they are). */
function defaultName(kind: PermissionOptionKind): string {
  return t().bridge.permission[kind];
}

/**
 * ZCode option kind → one of ACP's four (an editor refuses any other kind).
 * Unknown kinds are read by prefix (allow… / deny… / reject…, "always" in
 * them making it permanent); the option id stands in when the kind is absent.
 */
export function acpOptionKind(kind: string | undefined, optionId?: string): PermissionOptionKind | undefined {
  const k = (kind ?? optionId ?? "").toLowerCase();
  const exact = ACP_KIND_BY_ZCODE[k];
  if (exact) return exact;
  const always = k.includes("always");
  if (k.startsWith("allow") || k.startsWith("accept") || k.startsWith("approve")) return always ? "allow_always" : "allow_once";
  if (k.startsWith("deny") || k.startsWith("reject")) return always ? "reject_always" : "reject_once";
  if (kind !== undefined && optionId !== undefined) return acpOptionKind(undefined, optionId);
  return undefined;
}

/** The ACP options for a request, each remembering the ZCode option it stands for. */
export interface OfferedOptions {
  options: AcpPermissionOption[];
  /** The answer for a picked option id. */
  answerFor(optionId: string): PermissionAnswer;
}

export function permissionOptions(options: readonly PermissionOption[] | undefined): OfferedOptions {
  const out: AcpPermissionOption[] = [];
  const answers = new Map<string, PermissionAnswer>();
  for (const o of options ?? []) {
    const kind = acpOptionKind(o.kind, o.optionId);
    if (!kind) {
      logger.warn(`dropping permission option ${JSON.stringify(o.optionId)} of unknown kind ${JSON.stringify(o.kind)}`);
      continue;
    }
    out.push({ optionId: o.optionId, name: o.name || defaultName(kind), kind });
    const allow = kind === "allow_once" || kind === "allow_always";
    answers.set(
      o.optionId,
      (o.response as PermissionAnswer | undefined) ??
        (allow ? { decision: "allow" } : { decision: "deny", reason: "Rejected by the user" }),
    );
  }
  if (out.length === 0) {
    out.push({ optionId: "allow", name: defaultName("allow_once"), kind: "allow_once" });
    out.push({ optionId: "reject", name: defaultName("reject_once"), kind: "reject_once" });
    answers.set("allow", { decision: "allow" });
    answers.set("reject", { decision: "deny", reason: "Rejected by the user" });
  }
  return {
    options: out,
    answerFor: (optionId) => answers.get(optionId) ?? { decision: "deny", reason: `unknown option ${JSON.stringify(optionId)}` },
  };
}
