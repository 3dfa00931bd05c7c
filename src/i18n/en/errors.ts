// Area: errors. Errors the editor shows: JSON-RPC error messages of the ACP
// requests, and the errors of the ZCode CLI's setup and process that reach
// them. ZCode's own words (`message`, `reason`, stderr lines) are passed in as
// they are, already redacted. In English these read exactly as the SDK's and
// the bridge's messages always did: editors and scripts may match them.

/** Where ZCode comes from (its official site). */
const ZCODE_SITE = "https://zcode.z.ai";

const HOW_TO_POINT_AT_ZCODE =
  `Install the ZCode app or CLI (${ZCODE_SITE}), or set ZCODE_BIN (or --zcode-bin) to the \`zcode\` binary or its zcode.cjs entry. ` +
  "Run `zcode-acp-server doctor` to see what was found.";

const NODE_FIX = "Install Node.js 22 or newer, or set ZCODE_NODE (--zcode-node) to its path.";

export const errors = {
  /** JSON-RPC -32602 (the SDK's wording). */
  invalidParams: (detail: string) => `Invalid params: ${detail}`,
  /** JSON-RPC -32603 (the SDK's wording). */
  internal: (detail: string) => `Internal error: ${detail}`,
  /** An unknown or closed session (the SDK's wording). */
  sessionNotFound: "Resource not found",

  /** ACP session/delete, when ZCode's delete did nothing (a `noop` ACK, or `closed: false`). */
  notDeleted: (id: string) => `ZCode did not delete session ${id} (it answered that there was nothing to do); the session stays open`,
  stillBusy: "ZCode is still busy with an earlier prompt in this session and did not become idle in time; try again in a moment",
  rejected: (message: string) => `ZCode rejected the request: ${message}`,
  unsupportedMethod: (method: string, message: string) => `${method} is not supported by this ZCode CLI version (${message})`,
  notActive: (message: string) => `ZCode session is not active: ${message}`,
  /** --zcode-protocol v4 on a CLI whose v4 probe answered "method not found" (or never answered). */
  noV4: (version: string) =>
    `This ZCode CLI (${version}) does not serve the v4 protocol that --zcode-protocol v4 (ZCODE_ACP_ZCODE_PROTOCOL=v4) asks for; use auto or legacy, or ZCode 0.16 or later`,
  /** Something the legacy protocol did that ZCode's v4 protocol has no command for. */
  v4Cannot: {
    listEverywhere: "This ZCode CLI serves only its v4 protocol, which lists the sessions of one workspace at a time: give a cwd to list",
    clearGoal: "This ZCode CLI serves only its v4 protocol, which has no command to clear a goal: pause it instead (/goal pause)",
    showGoal: "This ZCode CLI serves only its v4 protocol, which has no command to show a goal: it is shown in the session's plan",
    compactInstructions: "This ZCode CLI serves only its v4 protocol, whose compact takes no instructions: run /compact alone",
    forkAtCheckpoint: "This ZCode CLI serves only its v4 protocol, which forks at an answer of the assistant, not at a checkpoint",
    forkNothing: "There is no answer of the assistant to fork at yet",
    noPlanCredentials: "The bridge found no credentials for this model's plan to send with the prompt",
    modelUnknown: "This ZCode CLI serves only its v4 protocol, and the session's current model is not known yet: choose a model first",
    attachmentTooBig: (name: string, max: number) =>
      `${name} is larger than the ${Math.floor(max / 1024 / 1024)} MiB ZCode's v4 protocol takes for an attachment`,
  },
  /** An editor asked to prompt, load, resume, fork, set or delete a subagent's session (ACP: no mutations of a child). */
  subagentReadOnly: (parentId: string | undefined) =>
    `this is a subagent's session, read-only${parentId ? ` (a child of session ${parentId})` : ""}: ZCode runs it for its parent session; prompt the parent instead`,
  died: (message: string) => `The ZCode CLI died: ${message}`,
  /** Any other error of ZCode's, in its words. */
  zcode: (message: string) => `ZCode: ${message}`,
  /** A failed turn; `code` is ZCode's error code, when it gave one. */
  turnFailed: (message: string, code?: string | number) => `ZCode: ${message}${code !== undefined ? ` (code ${code})` : ""}`,
  unexpected: "unexpected error in zcode-acp-server",

  // ---- prompt content ----
  tooManyBlocks: (max: number, count: number) => `A prompt can have at most ${max} content blocks (this one has ${count})`,
  attachmentsTooBig: (mib: string, totalMib: string, totalBytes: string) =>
    `A prompt's attachments can be at most ${mib} MiB in all (file sizes); these are ${totalMib} MiB (${totalBytes} bytes)`,
  imageTooBig: (mib: string, sizeMib: string, sizeBytes: string) =>
    `Images can be at most ${mib} MiB each (file size); this one is ${sizeMib} MiB (${sizeBytes} bytes)`,
  promptTooBig: (sizeMib: string, sizeBytes: string, limitMib: string, limitBytes: string) =>
    `This prompt is ${sizeMib} MiB (${sizeBytes} bytes) as sent to ZCode (its text, with images and PDFs in base64, a third larger than the files), over the limit of ${limitMib} MiB (${limitBytes} bytes; --max-message-bytes and --max-line-bytes set it)`,
  /** `what` is one of anImage / thePdf / theFile. */
  notBase64: (what: string) => `${what} is not valid base64 data`,
  anImage: "An image",
  thePdf: (uri: string) => `The PDF ${uri}`,
  theFile: (uri: string) => `The file ${uri}`,
  /** `got` is the MIME type sent, JSON-quoted. */
  imageType: (got: string) => `Images must be PNG, JPEG, WebP or GIF (got ${got})`,
  emptyResource: (uri: string) => `The resource ${uri} has neither text nor data`,
  binaryNotHere: "Binary files cannot be attached here",
  audio: "ZCode cannot take audio in a prompt; send text, images or files instead",
  /** `type` is the block's type, JSON-quoted. */
  unsupportedContent: (type: string) => `Unsupported prompt content of type ${type}`,
  attachmentDirNotPrivate: (dir: string) => `The attachment directory ${dir} is not private to this user; remove it and try again`,
  attachmentWriteFailed: (name: string, why: string) => `Could not stage the attachment ${name} for ZCode: ${why}`,

  // ---- sessions and their options ----
  /** `authenticate` with a method id initialize did not offer. */
  unknownAuthMethod: (id: string, methods: readonly string[]) =>
    `unknown authentication method "${id}"; this agent offers: ${methods.join(", ")}`,
  /** `_session/goal` with action "set" and no objective. */
  goalNeedsObjective: "a goal to set needs a non-blank `objective`",
  /** `_session/steering` without text. */
  steeringNeedsText: "steering needs a text block in `prompt`",
  /** `_session/steering` that ZCode did not admit (the reply in the conversation says why). */
  steeringNotInjected: "the steer did not reach the running turn; see the reply in the conversation",
  cwdNotAbsolute: (cwd: string) => `cwd must be an absolute path, got "${cwd}"`,
  noAdditionalDirectories:
    "ZCode takes one workspace folder per session (its session/create has no field for more), so `additionalDirectories` cannot be honoured; open each folder in a session of its own.",
  noSystemPrompt:
    "ZCode takes no system instructions from the editor (neither session/create nor session/send has a field for them), so `systemPrompt` cannot be applied; put the instructions in the prompt or in the project's `AGENTS.md`.",
  /** ACP v2 session/resume with a replay cursor other than `start`. */
  v2ReplayCursor: (type: string) => `replayFrom "${type}" is not supported: omit replayFrom, or replay from { "type": "start" }`,
  invalidCursor: "invalid cursor",
  noOption: (key: "mode" | "thought") => `this session has no ${key} option`,
  /** `choices` are option values (ids). */
  notAChoice: (value: string, key: "mode" | "thought", choices: readonly string[]) =>
    `"${value}" is not a valid ${key}; choose one of: ${choices.join(", ")}`,
  notAModel: (value: string, choices: readonly string[]) =>
    `"${value}" is not a model ZCode offers here; choose one of: ${choices.join(", ") || "none"}`,
  optionTakesListed: (configId: string) => `option "${configId}" takes one of its listed values`,
  unknownOption: (configId: string) => `unknown config option "${configId}"`,
  /** ZCode refused session/setModel; `reason` is ZCode's, `keeps` the model the session stays on. */
  modelRefused: (wanted: string, reason: string, keeps?: string) =>
    `ZCode did not switch to ${wanted}: ${reason}.${keeps ? ` The session keeps ${keeps}.` : ""}`,
  /** --model / ZCODE_ACP_MODEL named no model; `why` is a sentence of bridge.model. */
  configuredModel: (why: string) => `The model set by --model / ZCODE_ACP_MODEL: ${why} Change it in the agent's settings.`,

  // ---- credentials ZCode asks the bridge for (it shows them as the turn's error) ----
  providerUnreadable: "zcode-acp-server could not read the provider ZCode asked about.",
  cannotSign: (why: string) =>
    `zcode-acp-server cannot sign this model request: ${why}. ` +
    "Sign in to this plan in the ZCode app (Settings → Models) or with `zcode login` (choose an API key), or set ZCODE_API_KEY, or pick a model of a provider that has an API key; then try again.",
  noSignIn: (providerId: string) =>
    `no sign-in for ${providerId}: none in the ZCode app, none from \`zcode login\`, and ZCODE_API_KEY is not set`,
  /** `zcode login` signed in through the browser: ZCode trades that for a key only in its own terminal modes. */
  cliOAuthOnly: (providerId: string) =>
    `\`zcode login\` signed in to ${providerId} through the browser; ZCode turns that sign-in into a key only inside its own terminal modes, ` +
    "which a bridge cannot do. Run `zcode login` again and choose an API key, or set ZCODE_API_KEY",
  /** The desktop app encrypted the sign-in with the OS keychain (`enc:v2:`). */
  cliKeychain: (providerId: string) =>
    `the sign-in for ${providerId} is encrypted with the ZCode app's OS keychain, which no other program can read`,
  cliUnreadable: (providerId: string) => `the sign-in \`zcode login\` stored for ${providerId} could not be read`,
  logoutFailed: (code: number | null, output: readonly string[]) =>
    `\`zcode logout\` ${code === null ? "was stopped by a signal" : `exited with code ${code}`}` +
    (output.length ? `:\n${output.map((l) => `  ${l}`).join("\n")}` : " and said nothing"),
  /** The provider refused the key of the environment variable. */
  envKeyRefused: (variable: string) => `the provider refused the API key in ${variable}; check it`,
  cliKeyRefused: (providerId: string) =>
    `the provider refused the API key \`zcode login\` stored for ${providerId}; run \`zcode login\` again`,
  providerOff: (providerId: string) => `${providerId} is turned off in the ZCode app`,
  /** The provider refused the stored key (ZCode asked again with its fingerprint). */
  keyRefused: (providerId: string) =>
    `the provider refused the API key the ZCode app stored for ${providerId}; sign in to that plan again in the ZCode app`,
  /** A long task began under another key of the plan (ZCode's expectedAccountScope no longer matches). */
  accountChanged: (providerId: string) => `the ZCode app's sign-in for ${providerId} changed since this task began; start it again`,
  noApiKey: (providerId: string) => `the ZCode app stored no API key for ${providerId}`,

  // ---- the ZCode CLI: finding it, starting it, its process ----
  exited: (e: { code: number | null; signal: string | null; method: string; stderrTail: readonly string[] }) =>
    `The ZCode CLI ${e.signal !== null ? `was killed by ${e.signal}` : `exited with code ${e.code ?? "unknown"}`}` +
    `${e.method ? ` while ${e.method} was pending` : ""}` +
    (e.stderrTail.length ? `; its last stderr lines:\n${e.stderrTail.map((l) => `  ${l}`).join("\n")}` : " (it wrote nothing to stderr)"),
  /** After `exited`, when the desktop app's CLI said it cannot find its built-in provider table; `variable` is the env variable that names it. */
  builtinProviderConfigMissing: (variable: string) =>
    "The ZCode desktop app's bundled CLI could not find its built-in provider table (zcode-builtin.json), which the app normally passes it. " +
    `Set ${variable} in the agent's env to that file (it ships in the app, next to the CLI: provider/zcode-builtin.json or ../config/provider/zcode-builtin.json), ` +
    "update the ZCode app, or point ZCODE_BIN at a standalone `zcode` CLI. `zcode-acp-server doctor` shows what was found.",
  timeout: (method: string, seconds: string) => `The ZCode CLI did not answer ${method} within ${seconds} s`,
  notRunning: (method: string) => `The ZCode CLI is not running (${method})`,
  connectionClosed: "The ZCode connection is closed",
  howToPointAtZCode: HOW_TO_POINT_AT_ZCODE,
  /** What is missing, where it was looked for, how to point at it. */
  notFound: (what: string, searched: readonly string[]) =>
    `${what}${searched.length ? `\nSearched:\n${searched.map((s) => `  - ${s}`).join("\n")}` : ""}\n${HOW_TO_POINT_AT_ZCODE}`,
  cliNotFound: "The ZCode CLI was not found.",
  binMissing: (bin: string) => `ZCODE_BIN points at ${JSON.stringify(bin)}, which does not exist or is not executable.`,
  /** A searched place: `zcode` on PATH. */
  onPath: (path: string | undefined) => `zcode on PATH (${path ?? "PATH is empty"})`,
  cmdShim: (entry: string) =>
    `${entry} is a Windows .cmd shim that cannot be spawned directly, and its target entry could not be read from it.`,
  notExecutable: (entry: string) => `${entry} is not executable (chmod +x it, or point ZCODE_BIN at the real binary).`,
  /** `why` is the system's error. */
  cannotStart: (entry: string, why: string) => `Could not start ${entry}: ${why}`,
  nodeNotWorking: (node: string) => `ZCODE_NODE points at ${JSON.stringify(node)}, which is not a working Node.js.`,
  nodeMissing: (entry: string, major: number) =>
    `${entry} is a JavaScript entry and needs Node.js >= ${major}, but no Node.js was found. ${NODE_FIX}`,
  nodeTooOld: (entry: string, major: number, found: readonly string[]) =>
    `${entry} is a JavaScript entry and needs Node.js >= ${major} (it uses node:sqlite), but only found: ${found.join(", ")}. ${NODE_FIX}`,
  /** A Node looked at: its version, or that it did not run. */
  nodeTried: (path: string, version?: string) => `${path} (${version !== undefined ? `v${version}` : "does not run"})`,
  /** A searched place: Node on PATH. */
  nodeOnPath: "node on PATH",
  tooOld: (found: string, min: string, recommended: string) =>
    `ZCode CLI ${found} is too old: zcode-acp-server needs ${min} or newer (${recommended}+ recommended). ` +
    "Update the ZCode app (it updates its bundled CLI), or install a newer `zcode` CLI and point ZCODE_BIN at it.",
  /** `zcode --version` hung; `command` is the command line. */
  versionTimeout: (command: string, seconds: string) =>
    `\`${command}\` did not finish within ${seconds} s; it was stopped, with every process it started`,
  /** `zcode --version` ended without one; `said` is its redacted stderr. */
  noVersion: (command: string, end: { signal?: string; code?: number | null }, said: string) =>
    `\`${command}\` ${end.signal ? `was killed by ${end.signal}` : `exited with code ${end.code}`} without printing a version${said ? `: ${said}` : ""}`,
  /**
   * ZCode's v4 command channel refused or could not carry out a command:
   * each reasonCode ZCode sends the bridge's commands, in words (reasons.ts).
   */
  v4: {
    sessionNotFound: "ZCode does not have this session open any more; try again (the bridge opens it first).",
    staleRevision: "The conversation changed while the command was prepared, twice in a row; nothing was done. Try again.",
    /** A command sent once, answered stale. */
    staleOnce: "The conversation changed while the command was on its way; nothing was done. Try again.",
    staleTarget: "The message the command was for is no longer there; nothing was done. Try again.",
    invalidPayload: "ZCode did not accept the command the bridge built (a bug in zcode-acp-server); nothing was done.",
    actionUnavailable:
      "ZCode does not offer that on this conversation right now (a turn is running, something is waiting for an answer, or there is nothing to act on); nothing was done.",
    latestOnly: "Only the latest message can be edited or retried; nothing was done.",
    stopTargetChanged: "The turn had already ended; nothing was stopped.",
    notImplemented: "This ZCode CLI does not implement that command yet.",
    executionFailed: "ZCode could not carry out the command.",
    emptyInput: "The text is empty; nothing was sent.",
    payloadTooLarge: "ZCode's answer to the command was too large to send back; look at the conversation before trying again.",
    heldQueueStale: "The messages ZCode holds in its queue changed meanwhile; nothing was done. Try again.",
    heldQueueDispositionRequired:
      "ZCode holds queued messages of a stopped turn and wants to be told first what to do with them (in the ZCode app); nothing was done.",
    restoreWarning: "ZCode cannot run a prompt in this session: its model is not available. Pick another with `/model`; nothing was done.",
    activePrompt: "ZCode is still finishing the previous turn; nothing was done. Try again in a moment.",
    inputRejected: "ZCode refused the input; nothing was done.",
    queryUnavailable: "ZCode could not look up whether this command was already carried out; nothing was done. Try again.",
    workspaceRewindUnsafeFiles: "the last turn's files cannot be restored safely",
    workspaceRewindIgnoredFiles: "the last turn changed files through shell commands, which ZCode cannot restore",
    workspaceRewindUnavailable: "ZCode has none of the last turn's files to restore (it changed none, or they are already rewound)",
    workspaceRewindApplyConflict: "the files changed while ZCode was restoring them",
    /** A reason the bridge does not know: ZCode's code as it is. */
    other: (status: string, reasonCode?: string) => `ZCode answered ${status}${reasonCode ? ` (${reasonCode})` : ""}; nothing was done.`,
  },
};
