import { LOG_LEVEL_NAMES } from "../../log.ts";

// Area: the command line. Everything the CLI prints for people: --help
// (command, flag and argument descriptions), usage errors, doctor, upgrade.
// src/cli/flags.ts and commands.ts take their English descriptions from here,
// so this is the one place they are written.

/** How a check line reads: `ok    label: detail`, its fixes under it. */
const verdicts = { ok: "ok  ", fail: "FAIL", warn: "WARN" };

export const cli = {
  /** What each command does, by its name: the first line of its --help and its row under COMMANDS. */
  commands: {
    "zcode-acp-server": "Agent Client Protocol bridge for ZCode. With no command, serves ACP on stdio",
    doctor: "Check the ZCode CLI, its version, Node and sign-in; print editor settings",
    upgrade: "Download, verify (SHA-256) and install a release over this binary",
    login: "Sign in to ZCode without the app: runs `zcode login` (browser or API key) in this terminal",
    logout: "Sign out of what `zcode login` stored: runs `zcode logout`",
  },

  /** --help descriptions by flag name: every flag of every command. The env variable each falls back to is named, so --help is also the configuration reference. */
  flags: {
    "zcode-bin": "ZCode CLI binary or its .cjs/.mjs/.js entry (env ZCODE_BIN; default: PATH, then the ZCode app bundle)",
    "zcode-node": "Node.js >= 22 used to run a .cjs/.mjs/.js ZCode entry (env ZCODE_NODE)",
    "zcode-protocol":
      "Which ZCode protocol carries the sessions: auto, legacy or v4 (env ZCODE_ACP_ZCODE_PROTOCOL; default auto: the legacy session methods where the CLI has them, v4 alone once it answers them 'method not found')",
    "log-level": `Log verbosity: ${LOG_LEVEL_NAMES.join("|")} (env ZCODE_ACP_LOG_LEVEL; default warn). Logs go to stderr.`,
    "log-file": "Also append log lines to this file, created with mode 0600 (env ZCODE_ACP_LOG_FILE)",
    lang: "Language of what the bridge says: zh or en (env ZCODE_ACP_LANG; default: the ZCode app's language, then the locale)",
    mode: "Default mode for new sessions, e.g. yolo or build (env ZCODE_ACP_MODE)",
    model:
      "Model for new sessions: its id, providerId/modelId, its name, or a unique start of one, as /model takes it (env ZCODE_ACP_MODEL; default: ZCode's)",
    trace: "Write a redacted JSON-lines trace of both wires to this file, mode 0600 (env ZCODE_ACP_TRACE)",
    "auto-compact":
      "Compact the conversation in the background after a turn that leaves this much context in use: tokens, or a percentage of the context window like 80% (env ZCODE_ACP_AUTO_COMPACT; default off)",
    "no-quota-push":
      "Do not ask the GLM Coding Plan's quota after turns (at most once a minute) to show its windows and warn at 80% and 95% (env ZCODE_ACP_QUOTA_PUSH=0)",
    "no-app-history":
      "Do not add sessions created here to the ZCode app's history (~/.zcode/v2/tasks-index.sqlite) (env ZCODE_ACP_APP_HISTORY=0)",
    "max-line-bytes":
      "Longest line accepted from the ZCode CLI, in bytes (env ZCODE_ACP_MAX_LINE_BYTES; default 100663296). A prompt may be at most this less 1 MiB (an eighth of a lower limit) as sent to ZCode, which echoes it",
    "max-message-bytes":
      "Longest message accepted from the editor, in bytes; a longer request is answered with an error (env ZCODE_ACP_MAX_MESSAGE_BYTES; default 83886080: 50 MiB of attachments in base64, and the text)",
    "no-prewarm":
      "Start ZCode when the first session needs it, not in the background once initialize is answered (env ZCODE_ACP_PREWARM=0)",
    version: "Print the version and exit",
  },

  /** --help descriptions of positional arguments, by name. */
  arguments: {
    version: "Version to install, e.g. 0.2.0 or v0.2.0 (default: the latest release)",
  },

  help: {
    /** Stands in for citty's closing line under COMMANDS. */
    moreAboutCommand: (command: string) => `Use ${command} for more information about a command.`,
  },

  /** A mistake in how the bridge was invoked: printed on stderr, exit code 2. Flag names and values are quoted as given. */
  usage: {
    runHelp: (command: string) => `Run '${command}' for usage.`,
    unknownCommand: (name: string, commands: string) => `unknown command '${name}' (commands: ${commands})`,
    unknownOption: (arg: string) => `unknown option ${arg}`,
    takesNoValue: (flag: string) => `option ${flag} takes no value`,
    needsValue: (flag: string) => `option ${flag} needs a value`,
    needsNonEmptyValue: (flag: string) => `option ${flag} needs a non-empty value`,
    unexpectedArgument: (arg: string) => `unexpected argument '${arg}'`,
    tooManyArguments: (arg: string) => `too many arguments: '${arg}'`,
    notALanguage: (from: string, raw: string) => `${from}: '${raw}' is not a language the bridge speaks (zh or en)`,
    unknownLogLevel: (from: string, raw: string, levels: readonly string[]) =>
      `${from}: unknown log level '${raw}' (expected one of ${levels.join(", ")})`,
    notAModeName: (from: string, raw: string, modes: readonly string[]) =>
      `${from}: '${raw}' is not a mode ZCode knows (one of ${modes.join(", ")})`,
    notAModel: (from: string, raw: string) => `${from}: '${raw}' is not a model name or id`,
    notAProtocol: (from: string, raw: string, choices: readonly string[]) =>
      `${from}: '${raw}' is not a ZCode protocol (one of ${choices.join(", ")})`,
    notAByteCount: (from: string, raw: string) => `${from}: '${raw}' is not a byte count (a whole number >= 1024)`,
    notAutoCompact: (from: string, raw: string) =>
      `${from}: '${raw}' is not a token count (like 150000 or 150k) or a percentage of the context window (like 80%)`,
    autoCompactTooLow: (from: string, raw: string, min: number, percent: string | undefined) =>
      `${from}: '${raw}' tokens is below ${min / 1000}k: ZCode's instructions and tools alone take thousands of tokens, so the conversation would be compacted after nearly every turn. ${percent ? `For a percentage of the context window write ${percent}; ` : "Write a percentage of the context window like 80%, "}or at least ${min / 1000}k tokens.`,
    autoCompactPercentTooLow: (from: string, raw: string, min: number) =>
      `${from}: '${raw}' is below ${min}% of the context window: ZCode's instructions and tools alone take thousands of tokens, so the conversation would be compacted after nearly every turn. Write at least ${min}% (80% is usual).`,
    notOnOff: (from: string, raw: string) => `${from}: '${raw}' is not 0 or 1 (also false/true, off/on, no/yes)`,
    cannotOpenLogFile: (path: string, reason: string) => `cannot open log file ${path}: ${reason}`,
  },

  serve: {
    /** On stderr when started by hand with a terminal on stdin; it then waits as always. */
    terminalHint:
      "zcode-acp-server is an ACP agent: an editor (Zed, JetBrains, Neovim, Emacs…) starts it and talks JSON-RPC on stdin/stdout. To check your setup, run `zcode-acp-server doctor`. Waiting for JSON-RPC; Ctrl-D quits.",
  },

  doctor: {
    title: (version: string) => `zcode-acp-server ${version} doctor`,
    verdicts,
    /** A check's line; a multi-line detail continues under it, indented by `indent`. */
    line: (verdict: string, label: string, detail: string) => `${verdict}  ${label}: ${detail}`,
    indent: "      ",
    fix: (text: string) => `      fix: ${text}`,
    allPassed: "All checks passed.",
    failed: (count: number) => `${count} check(s) failed; see the fixes above.`,
    zedWhere: "Zed: add to ~/.config/zed/settings.json (Windows: %APPDATA%\\Zed\\settings.json):",
    jetbrainsWhere: "JetBrains IDEs: add to ~/.jetbrains/acp.json:",

    labels: {
      self: "This bridge",
      path: "PATH",
      language: "Language",
      zcodeCli: "ZCode CLI",
      node: "Node for the JS entry",
      desktopApp: "ZCode desktop app",
      zcodeVersion: "ZCode version",
      protocol: "ZCode protocol",
      signIn: "ZCode sign-in",
    },

    // This bridge and PATH (self-check.ts).
    selfBinary: (path: string, version: string, origin: string) => `${path} (version ${version}, ${origin})`,
    selfFromSource: (version: string) => `running from source (version ${version}); editors need the built binary`,
    pathAhead: (other: string, first: boolean, what: string) =>
      `${other} comes ${first ? "first" : "before this bridge"} on PATH and is ${what}: anything that runs \`zcode-acp-server\` by name gets it`,
    otherVersion: (printed: string, ours: string) => `zcode-acp-server ${printed}, not ${ours}`,
    otherProgramFailed: "a different program (`--version` failed)",
    otherProgramPrinted: (printed: string) => `a different program (\`--version\` printed ${printed})`,
    pathFixUsePath: (other: string, self: string) => `Remove or upgrade ${other}, or put ${self} (the full path) in the editor's settings.`,
    pathFix: (other: string) => `Remove or upgrade ${other}.`,

    // Who installed this binary (install-origin.ts).
    origins: {
      standalone: "standalone (install.sh, install.ps1 or a copy)",
      npm: (pkg: string) => `installed by npm (${pkg})`,
      homebrew: "installed by Homebrew",
      editorRegistry: (editor: string) => `installed by ${editor} from the ACP registry`,
    },

    // The language in use and what chose it.
    language: (code: string, source: string) => `${code} (${source})`,
    languageSources: {
      flag: "from --lang",
      env: "from ZCODE_ACP_LANG",
      app: (path: string) => `the ZCode app's setting in ${path}`,
      locale: (variable: string, value: string) => `from the locale, ${variable}=${value}`,
      default: "the default: neither --lang, ZCODE_ACP_LANG, the ZCode app's setting nor the locale names zh or en",
    },

    // The ZCode CLI and what runs it.
    zcodeSources: {
      env: "from ZCODE_BIN / --zcode-bin",
      path: "found on PATH",
      "app-bundle": "bundled in the ZCode desktop app",
    },
    found: (path: string, how: string) => `${path} (${how})`,
    cliFix:
      "Install the ZCode desktop app or CLI (https://zcode.z.ai), or point the bridge at it:\n" +
      "  set ZCODE_BIN=/path/to/zcode in the editor's agent env, or pass --zcode-bin /path/to/zcode",
    nodeFix: "Install Node.js 22 or newer, or set ZCODE_NODE=/path/to/node (or --zcode-node).",
    nodeVersion: (node: string, version: string) => `${node} (${version})`,
    nodeNotNeeded: "not needed (native binary)",
    versionOk: (version: string) => `${version} (supported)`,
    versionTooOld: (version: string, min: string) => `${version} is too old (${min} or newer is needed)`,
    versionFix: "Update ZCode (the desktop app updates its bundled CLI; or reinstall the CLI).",
    versionFailed: (command: string, reason: string) => `\`${command}\` failed: ${reason}`,
    versionFailedFix: "Check that this ZCode CLI runs from a terminal; reinstall it if it does not.",

    // Which protocol the sessions use (--zcode-protocol), and why.
    protocolReasons: {
      forcedLegacy: "legacy: --zcode-protocol legacy (ZCODE_ACP_ZCODE_PROTOCOL) asks for it",
      forcedLegacyGone:
        "--zcode-protocol legacy asks for the legacy protocol, but this CLI answers its methods 'method not found': no session would open",
      forcedV4: "v4: --zcode-protocol v4 (ZCODE_ACP_ZCODE_PROTOCOL) asks for it, and the CLI serves it",
      forcedV4Missing: "--zcode-protocol v4 asks for the v4 protocol, but this CLI does not serve it: no session would open",
      autoLegacyAndV4: "legacy: the CLI serves the legacy session methods (v4 too: /steer and /rewind use it)",
      autoLegacyOnly: "legacy: the CLI serves the legacy session methods and no v4",
      autoV4Only: "v4: the CLI answers the legacy methods 'method not found' and serves v4",
      autoUnknown: "legacy, for now: the CLI did not say whether it still serves the legacy methods",
      neither: "the CLI serves neither the legacy session methods nor v4: no session would open",
    },
    protocolFailed: (message: string) => `could not ask the CLI: ${message}`,
    protocolFix: "Use --zcode-protocol auto (the default), or a ZCode CLI that serves the protocol asked for.",

    // The desktop app's provider tables (desktop 3.12+).
    appVersion: (version: string) => `version ${version}`,
    appVersionUnknown: "version not found (not an app bundle, or an unknown layout)",
    providerFromUser: "set in the environment",
    providerFromBridge: "found next to the CLI",
    builtinMissing: "not set and no zcode-builtin.json next to the CLI (needed by the CLI of desktop 3.12 and later)",
    personalMissing: "not set (no ~/.zcode/v2/provider_config.json)",

    // Sign-in.
    noHome: "cannot tell: HOME is not set (or not an absolute path)",
    noHomeFix: "Set HOME to your home directory in the editor's agent env.",
    signedInPlan: (plans: string, path: string) => `signed in to ${plans} (GLM Coding Plan, in ${path})`,
    signedInKey: (providers: string, path: string) =>
      `an API key for ${providers} (in ${path}); no GLM Coding Plan, so /quota has nothing to show`,
    noKeyIn: (path: string) => `${path} has no enabled provider with an API key`,
    notSignedIn: (path: string) => `${path} not found`,
    signInFix:
      "Sign in with `zcode-acp-server login` (runs `zcode login`; choose an API key), or set ZCODE_API_KEY in the editor's agent env, or sign in in the ZCode app (Settings → Models).",
    signedInEnv: (variable: string) => `the API key in ${variable} (it answers before any stored sign-in)`,
    signedInCli: (providers: string, path: string) => `signed in with \`zcode login\` to ${providers} (API key, in ${path})`,
    /** `zcode login` left only sign-ins a bridge cannot use; `why` says which. */
    notUsable: (what: string, path: string) => `no usable sign-in: ${what} (in ${path})`,
    cliOAuthOnly: (providers: string) =>
      `\`zcode login\` signed in to ${providers} through the browser, which only ZCode's own terminal modes can use`,
    cliKeychain: (providers: string) => `the sign-in for ${providers} is held in the ZCode app's OS keychain`,
    cliUnreadable: (path: string) => `${path} could not be read`,
    nothing: (appPath: string, cliPath: string) =>
      `no sign-in: neither ${appPath} nor ${cliPath} holds a key, and ZCODE_API_KEY is not set`,
  },

  upgrade: {
    failed: (reason: string) => `upgrade failed: ${reason}`,
    fromSource:
      "upgrade replaces an installed zcode-acp-server binary; this is running from source. Use git pull && bun run build instead.",
    /** `path` was installed by `origin` (doctor's wording); `action` says what to do instead. */
    ownedBy: (path: string, origin: string, action: string) => `${path} was ${origin}; ${action}`,
    upgradeWith: (how: string) => `upgrade with: ${how}`,
    how: {
      npm: (pkg: string) => `npm install -g ${pkg}@latest (or, run through npx, npx -y ${pkg}@latest)`,
      homebrew: (formula: string) => `brew upgrade ${formula}`,
      zed: "Zed updates agents it installed from the ACP registry itself; nothing to do here",
      jetbrains: "the IDE updates agents it installed from the ACP registry (Settings | Tools | AI Assistant | Agents)",
    },
    notAVersion: (raw: string) => `'${raw}' is not a version (expected e.g. 0.2.0 or v0.2.0)`,
    noRelease: (platform: string) => `no release is built for ${platform}`,
    latestRelease: "the latest release",
    downloading: (asset: string, release: string, base: string) => `Downloading ${asset} (${release}) from ${base}`,
    noChecksum: (release: string, asset: string) =>
      `SHA256SUMS of ${release} has no entry for ${asset}; refusing to install an unverified file`,
    checksumMismatch: (asset: string, expected: string, actual: string) =>
      `checksum mismatch for ${asset}: expected ${expected}, got ${actual}; the download is corrupt or tampered with, nothing was installed`,
    checksumVerified: (sha: string) => `Checksum verified (sha256 ${sha})`,
    cannotWrite: (dir: string, reason: string) =>
      `cannot write to ${dir}: ${reason}. Re-run with permission to write there, or reinstall with install.sh.`,
    doesNotRun: (asset: string) => `the downloaded ${asset} does not run on this machine (--version failed); nothing was installed`,
    alreadyAt: (version: string) => `Already at ${version}; nothing to do.`,
    cannotReplace: (target: string, reason: string) => `cannot replace ${target}: ${reason}`,
    replacedBadVersion: (target: string, printed: string) => `${target} was replaced but its --version printed ${printed}`,
    upgraded: (target: string, from: string, to: string) => `Upgraded ${target}: ${from} -> ${to}`,
    downgraded: (target: string, from: string, to: string) => `Downgraded ${target}: ${from} -> ${to}`,
    /** The progress line, rewritten in place while the archive downloads; sizes in MB. */
    progress: (received: string, total: string | undefined, percent: number | undefined) =>
      `  ${received}${total ? ` of ${total}` : ""} MB${percent !== undefined ? ` (${percent}%)` : ""}`,
    probeTimedOut: (asset: string, seconds: string) =>
      `the downloaded ${asset} did not answer --version within ${seconds} s (it was stopped); nothing was installed`,
    downloadTooBig: (url: string, mib: number) => `${url} is larger than ${mib} MiB, far more than a release; nothing was installed`,
    extractTooBig: (mib: number) =>
      `the archive expands to more than ${mib} MiB, far more than a release; extraction was stopped and nothing was installed`,
    downloadFailed: (url: string, reason: string) => `download of ${url} failed: ${reason}`,
    notFound: (url: string) => `${url} not found (404): is that version released for this platform?`,
    httpFailed: (url: string, status: number) => `download of ${url} failed: HTTP ${status}`,
    noBinaryInArchive: (name: string) => `the archive has no ${name}`,
    tarFailed: (reason: string) => `tar could not extract the archive: ${reason}`,
  },
};
