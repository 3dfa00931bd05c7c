// Area: quota. What /quota says: its menu entry, the card's words (window
// labels, "used", resets, durations) and each failure. Numbers keep en-US
// grouping and reset dates keep MM-DD HH:MM in every language (card.ts).

type Unit = "minute" | "hour" | "day" | "week";

export const quota = {
  description: "Show the GLM Coding Plan's usage (5-hour, weekly and MCP windows) and when each resets",
  noArguments: "`/quota` takes no arguments.",
  title: "GLM Coding Plan",
  labels: { five_hour: "5-hour", weekly: "Weekly", mcp: "MCP", tokens: "Tokens" },
  /** A token window of another length: "24-hour", "30-day". */
  windowOf: (n: number, unit: Unit) => `${n}-${unit}`,
  used: (percent: string) => `${percent}% used`,
  limitReached: "limit reached",
  amount: (used: string, limit: string) => `${used} of ${limit}`,
  /** `when`: the local reset time; `inText`: how long until then (`duration` below), undefined once past. */
  resets: (when: string, inText: string | undefined) => (inText ? `resets ${when} (in ${inText})` : `resets ${when}`),
  /** How long until a reset, short enough for a narrow panel: "4d 3h", "2h 14m", "45m", "<1m". */
  duration: {
    days: (d: number, h: number) => (h > 0 ? `${d}d ${h}h` : `${d}d`),
    hours: (h: number, m: number) => `${h}h ${m}m`,
    minutes: (m: number) => `${m}m`,
    underAMinute: "<1m",
  },
  notSignedIn:
    "Not signed in: the ZCode app has no GLM Coding Plan sign-in (no enabled Z.ai or BigModel provider with an API key in `~/.zcode/v2/config.json`), `zcode login` stored no plan API key, and ZCODE_API_KEY is not set for a plan model. Sign in with `zcode-acp-server login` (choose an API key) or in the ZCode app (Settings → Models), then run `/quota` again.",
  badOverride:
    "`ZCODE_ACP_QUOTA_URL` is set but is not an http:// or https:// URL, so `/quota` asked nothing. Fix or unset it in the agent's settings.",
  /** `provider`: the provider's name in the ZCode app. */
  authError: (provider: string) =>
    `Not signed in, or the sign-in expired: the GLM Coding Plan refused the key the ZCode app stored for ${provider}. Sign in again in the ZCode app (Settings → Models), then run \`/quota\` again.`,
  rateLimited: "The quota service is rate-limiting requests right now. Wait a minute, then run `/quota` again.",
  /** `why`: one of `reasons` below. */
  unavailable: (why: string) => `Quota information is unavailable right now: ${why}. Try \`/quota\` again later.`,
  reasons: {
    timeout: (seconds: string) => `the quota service did not answer within ${seconds} s`,
    network: "the quota service could not be reached",
    http: (status: number) => `the quota service answered HTTP ${status}`,
    refused: (code: number | undefined) =>
      code === undefined ? "the quota service declined the request" : `the quota service declined the request (code ${code})`,
    unreadable: "the quota service's answer could not be read",
    /** `kib`: the limit in KiB. */
    tooLarge: (kib: string) => `the quota service's answer was larger than ${kib} KB, far more than a quota answer, so it was not read`,
  },
  /** Told after a turn (src/session/quota-push.ts): `resets` is `resets` above, or "" when the service gave no time. */
  push: {
    crossed: (label: string, percent: string, resets: string) =>
      `GLM Coding Plan: ${percent}% of the ${label} window is used${resets ? `; it ${resets}` : ""}.`,
    /** A turn ZCode failed because the plan is spent; `windows` joins `spentWindow` parts. */
    spent: (windows: string) => `The GLM Coding Plan's allowance is used up: ${windows}.`,
    spentWindow: (label: string, resets: string) => `the ${label} window${resets ? ` ${resets}` : " is full"}`,
    spentUnknown: "The GLM Coding Plan's allowance is used up; `/quota` shows when each window resets.",
  },
};
