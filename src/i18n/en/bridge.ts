// Area: bridge. What the bridge itself says in the conversation (notices
// apart from ZCode's text), in the permission, plan and question dialogs, in
// the session's option menus, and around a replayed history. Markup that
// frames a notice (italics, blank lines) stays at the call site.

export const bridge = {
  /** The sign-in the agent advertises in `initialize` (editors show it when they ask how to log in). */
  auth: {
    name: "ZCode app login",
    description:
      "zcode-acp-server uses ZCode's own sign-in: the ZCode app's, or the API key `zcode login` stored " +
      "(or ZCODE_API_KEY in the agent's env). Sign in once; no API key is needed in the editor.",
    terminalName: "Sign in with `zcode login`",
    terminalDescription:
      "Runs `zcode login` in a terminal: sign in through the browser or paste a GLM Coding Plan API key. " +
      "The bridge can use an API key sign-in; a browser sign-in works only in ZCode's own terminal modes.",
  },

  turn: {
    /** A turn ZCode ended short of its answer; `why` is one of the reasons below. */
    stopped: (why: string) => `ZCode stopped: ${why}.`,
    maxTurns: "the turn reached ZCode's limit of model requests",
    maxToolCalls: "the turn reached ZCode's limit of tool calls",
    maxBudget: "the turn used up its token budget",
    interrupted: "an error interrupted the turn",
    /** Stands in for ZCode's message when its turn.failed has none. */
    failed: "the turn failed",
    /** A transient failure, sent again after a wait; `message` is ZCode's own words. */
    retrying: (message: string, seconds: string, attempt: number, attempts: number) =>
      `ZCode: ${message}; retrying in ${seconds} s (attempt ${attempt} of ${attempts})…`,
  },

  autoCompact: {
    /** Before a background compaction; the counts come formatted, `percent` only when the window is known. */
    notice: (used: string, size: string, percent: number | undefined, threshold: string) =>
      `Context in use: ${used} of ${size} tokens${percent !== undefined ? ` (${percent}%)` : ""}, at or above the auto-compact threshold of ${threshold}: compacting the conversation…`,
    percentThreshold: (percent: number) => `${percent}% of the context window`,
    tokenThreshold: (tokens: string, count: number) => `${tokens} token${count === 1 ? "" : "s"}`,
  },

  model: {
    /** Before the first turn on a model ZCode no longer offers; `why` is ZCode's reason, when it gave one. */
    gone: (label: string, value: string, why?: string) =>
      `The model ${label} (${value}) is no longer offered by ZCode${why ? ` (${why})` : ""}; pick another with /model or the model menu.`,
    /** Why typed words (`/model`, --model) picked no single model. */
    ambiguous: (words: string, candidates: string) =>
      `"${words}" matches more than one model: ${candidates}. Give more of the name, or the full id.`,
    notAvailable: (words: string, why?: string) => `The model "${words}" is not available${why ? ` (${why})` : ""}`,
    noMatch: (words: string) => `No model ZCode offers here matches "${words}"`,
    chooseFrom: (why: string, choices: string) => `${why}. Choose one of: ${choices}.`,
    /** The list of choices when there is none. */
    none: "none",
  },

  options: {
    mode: "Mode",
    modeDescription: "How much ZCode may do without asking",
    model: "Model",
    modelDescription: "The model ZCode uses in this session",
    thought: "Thought level",
    thoughtDescription: "How much the model reasons",
    autoCompact: "Auto-compact",
    /** `threshold` is the --auto-compact setting, described as bridge.autoCompact words it. */
    autoCompactDescription: (threshold: string) => `Compact the conversation after a turn that leaves the context at or above ${threshold}`,
    on: "On",
    off: "Off",
    /** ZCode's modes (its settings name the current one only). */
    modes: {
      plan: "Plan",
      build: "Build",
      edit: "Edit",
      yolo: "YOLO",
      guarded: "Guarded",
      auto: "Auto",
    },
    /** In a model's menu name: the current model left ZCode's list, or ZCode disabled it. */
    notOffered: "no longer offered",
    unavailable: "unavailable",
    /** A disabled model's description; `why` is ZCode's reason. */
    unavailableWhy: (why: string) => `Unavailable: ${why}`,
  },

  /** Names of permission options ZCode sent without one (its own names are shown as they are). */
  permission: {
    allow_once: "Allow",
    allow_always: "Always allow",
    reject_once: "Reject",
    reject_always: "Always reject",
  },

  plan: {
    /** The form's message, with the plan below when there is one. */
    ask: (plan: string) => `Approve this plan and start coding?\n\n${plan}`,
    askNoPlan: "Approve the plan and start coding?",
    formTitle: "Plan approval",
    decision: "Ready to code?",
    approve: "Approve: start coding",
    reject: "Reject: keep planning",
    feedbackTitle: "What should change?",
    feedbackDescription: "When you keep planning: told to the agent",
    /** The permission prompt's options, for an editor without forms. */
    yes: "Yes, start coding",
    no: "No, keep planning",
  },

  question: {
    /** The form's message for several questions (one question is shown as ZCode asked it). */
    answerAll: (count: number) => `Please answer ${count} questions.`,
    /** The option that answers nothing, for an editor without forms. */
    decline: "Don't answer",
    otherTitle: "Other",
    otherDescription: "Your own answer, for a question left without a choice (or a note for the agent)",
  },

  history: {
    /** The transcript's tail itself was too large to read. */
    tooLarge: "This conversation is too large to replay here; it is kept in ZCode.",
    /** Above a replayed conversation cut to its last messages. */
    earlierNotShown: (count: number) =>
      `Only the last ${count.toLocaleString("en-US")} messages of this conversation are shown here; the earlier ones are kept in ZCode.`,
    /** A compaction's summary in a replayed conversation. */
    summary: (text: string) => `**Conversation summary** (earlier messages were compacted)\n\n${text}`,
    compacted: "**Earlier messages were compacted.**",
  },
};
