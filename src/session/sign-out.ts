import { RequestError } from "@agentclientprotocol/sdk/unstable";
import type { BridgeConfig } from "../config.ts";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { runZCodeAuth } from "../zcode/cli-auth.ts";
import { signInInUse } from "../zcode/sign-in.ts";

// ACP `logout` (and v2's `auth/logout`): ZCode's own `zcode logout` clears
// what `zcode login` stored. The ZCode app's sign-in and ZCODE_API_KEY are
// not ours to clear: when one of them still signs in, the log says so.

const logger = log.withTag("auth");

/** Runs `zcode logout`; throws a RequestError (in the user's language, with ZCode's last lines) when it fails. */
export async function signOut(config: Pick<BridgeConfig, "zcodeBin" | "zcodeNode" | "env">): Promise<void> {
  const r = await runZCodeAuth("logout", { bin: config.zcodeBin, node: config.zcodeNode, env: config.env, stdio: "pipe" });
  if (r.code !== 0) throw new RequestError(-32603, t().errors.logoutFailed(r.code, r.output));
  const left = signInInUse(config.env);
  if (left.kind === "env") logger.info(`signed out of zcode login; ${left.variable} still signs in`);
  else if (left.kind === "app") logger.info(`signed out of zcode login; the ZCode app's sign-in (${left.signIn.file}) still signs in`);
  else logger.info("signed out of zcode login");
}
