// Area: commands. What the slash commands say: each one's menu entry
// (description, input hint), its replies, and the replies every command
// shares (usage lines, "not supported", ZCode busy or refusing). Commands read
// these when they speak or when the menu is built, never at import: the
// language is chosen after the modules load.
//
// A parameter named `…Code` arrives already formatted as inline code (the
// commands know how to quote a value that holds backticks).

export const commands = {
  /** The usage line under a reply to bad or missing arguments; `usage` is `/name <hint>`. */
  usage: (usage: string) => `Usage: \`${usage}\``,
  notSupported: (name: string, version: string) => `\`/${name}\` is not supported by ZCode CLI ${version}`,
  busy: (name: string) =>
    `ZCode is busy with a running turn, so \`/${name}\` cannot run now. Wait for the turn to finish (or cancel it) and try again.`,
  /** `message` is ZCode's own (its words, in its language). */
  rejected: (name: string, message: string) => `ZCode rejected \`/${name}\`: ${message}`,

  fork: {
    description: "Fork this conversation into a new session (from the latest checkpoint)",
    noCheckpoint: "Nothing to fork yet: this session has no checkpoint. A checkpoint is made each time a turn completes.",
    /** `title`: the new session's title, "" when it has none. */
    forked: (idCode: string, title: string) =>
      `Forked this conversation into a new session ${idCode}: ${title ? `“${title}”` : "(untitled)"}.\n\n` +
      "It is in the session list: open it there to continue from this point. This session is unchanged.",
  },

  rewind: {
    description: "Undo the last turn's file changes (chat kept); `/rewind <new prompt>` replaces the last prompt and runs it again",
    hint: "[new prompt]",
    /** v4 file rewind done; the list of files follows. */
    filesRewound: (n: number) => `Rewound the last turn's changes to ${n} file${n === 1 ? "" : "s"}; the conversation is unchanged:`,
    /** A file as listed: its path and what was done. */
    fileLine: (pathCode: string, action: string | undefined) =>
      `- ${pathCode}${action === "delete" ? " (created by the turn: deleted)" : action === "restore" ? " (restored)" : ""}`,
    /** Nothing changed; the unsafe files follow, one per line. */
    unsafe: "Nothing was rewound: ZCode cannot safely restore these files, so it changed none of them:",
    unsafeLine: (pathCode: string, why: string) => `- ${pathCode}: ${why}`,
    /** ZCode's reasons for an unsafe file. */
    unsafeReason: {
      external_modified: "changed since the turn (by you or another program)",
      checkpoint_missing: "its checkpoint is missing",
      checkpoint_unreadable: "its checkpoint cannot be read",
      file_read_failed: "the file cannot be read",
      unsupported_checkpoint: "its checkpoint is of a kind ZCode cannot restore",
      bash_ignored: "changed by a shell command, which ZCode does not track",
    } as Record<string, string>,
    unsafeOther: (reason: string) => `not restorable (${reason})`,
    unsafeHint: "Undo those changes by hand (or with your version control), then run `/rewind` again.",
    /** Nothing in the last turn to rewind. */
    noFiles:
      "Nothing to rewind: the last turn changed no files, or its changes are already rewound. `/rewind <new prompt>` replaces the last prompt instead.",
    /** /rewind <prompt> with no prompt ZCode lets the user edit. */
    noPrompt: "Nothing to rewind: ZCode offers no prompt to replace here (no turn yet, or one is still running).",
    /** /rewind <prompt> refused because the files cannot be restored (`why`: errors.v4.workspaceRewind*); the files follow, if any. */
    blocked: (why: string, listed: boolean) => `Nothing was changed: ${why}, so ZCode did not replace the prompt${listed ? ":" : "."}`,
    /** An ACK the bridge could not read: ZCode may have done it. */
    unreadable: "ZCode's answer to the rewind could not be read; look at the conversation (and your files) to see whether it was done.",
    /** /rewind <prompt> on a CLI without v4. */
    promptNeedsV4: (version: string) =>
      `\`/rewind <new prompt>\` needs ZCode CLI 0.16.5 or newer (this is ${version}). \`/rewind\` alone rewinds the conversation to its latest checkpoint here.`,
    /** Shown before the rerun's output. */
    rerunning: "Rewound the last turn (files and chat). Running the new prompt:",
    /** The same, for a turn that changed no files (only the chat is rewound). */
    rerunningChatOnly: "Rewound the last turn's chat (it changed no files). Running the new prompt:",
    /** Each part is undefined when ZCode did not say. */
    rewound: (checkpointCode: string | undefined, removed: number | undefined, revision: number | undefined) =>
      `Rewound to the latest checkpoint${checkpointCode ? ` ${checkpointCode}` : ""}: ` +
      (removed === undefined ? "removed the messages after it" : `removed ${removed} message${removed === 1 ? "" : "s"}`) +
      "." +
      (revision === undefined ? "" : ` Session revision is now ${revision}.`),
    conflict: (expectedRevision: number | undefined) =>
      "Nothing was rewound: the session changed while the rewind was prepared" +
      (expectedRevision === undefined ? "" : ` (it was at revision ${expectedRevision})`) +
      ". Run `/rewind` again to rewind the current state.",
    noCheckpoint: "Nothing to rewind: this session has no checkpoint yet. A checkpoint is made each time a turn completes.",
  },

  goal: {
    description:
      "Show or set the session's goal (replace, clear, pause, resume); cancelling while ZCode works on it pauses it, `/goal resume` continues",
    // The keywords stay English in every language: they are what the user types.
    hint: "[objective | replace <objective> | clear | pause | resume]",
    replaceNeedsObjective: "`/goal replace` needs the new objective.",
    /** When ZCode's answer is empty (it answers "" to a pause that worked). */
    done: {
      show: "No goal is set. Use `/goal <objective>` to set one.",
      set: "Goal set.",
      replace: "Goal replaced.",
      clear: "Goal cleared.",
      pause: "Goal paused.",
      resume: "Goal resumed.",
    },
    /** The goal as a v4-only ZCode's snapshot has it, in the lines legacy's `session/goal` show answered (v4 counts no tokens). */
    shown: (status: string, objective: string, seconds?: number) =>
      `Goal ${status}\nObjective: ${objective}${seconds !== undefined ? `\nTime: ${seconds} seconds` : ""}`,
    working: "Working toward the goal…",
    stillWorking: "ZCode is still working toward the goal.",
    /** A notice: the prompt working toward the goal was cancelled, which pauses the goal in ZCode. */
    pausedByCancel: "The goal is paused (the work toward it was cancelled); `/goal resume` picks it up again.",
  },

  compact: {
    description: "Compact the conversation history to free context (optional instructions for the summary)",
    hint: "[instructions]",
    /** The title of the tool call that shows the compaction running. */
    toolTitle: "Compacting conversation",
    stillRunning: "ZCode is still compacting the conversation; it goes on in the background.",
    /** `usage`: tokens in use and the window, formatted; undefined when ZCode did not say. */
    finished: (already: boolean, usage: { used: string; size: string } | undefined) =>
      (already ? "A compaction was already running; it has finished." : "Conversation compacted.") +
      (usage ? ` Context in use: ${usage.used} of ${usage.size} tokens.` : ""),
  },

  steer: {
    description: "Add instructions to the turn that is running, without stopping it",
    hint: "<instructions>",
    needsText: "`/steer` needs the instructions to add to the running turn.",
    /** Followed by the user's text, quoted. */
    noTurn: "No turn is running, so there is nothing to steer. Send the text as an ordinary message instead:",
    /** Followed by the user's text, quoted. */
    steering: "Steering the running turn with:",
    /** Sent as a steer, but no turn ran any more: ZCode started one with it. */
    startedNew: "The turn had just ended, so ZCode runs this as a new turn:",
    /** A steer ZCode could not take into the turn: the turn was stopped first; the steer's text follows. */
    fellBackStopped:
      "This steer did not reach the turn: the turn was stopped first. It will not run; send it again as a prompt if you still want it.",
    /** The turn failed with a steer not yet taken in (ZCode says nothing of it); the steer's text follows. */
    failedBeforeSteer:
      "This steer did not reach the turn: the turn failed first. It will not run; send it again as a prompt if you still want it.",
    /** The turn offered no step boundary: ZCode runs the steer as a turn of its own. */
    fellBackNoBoundary:
      "This steer could not be taken into the running turn (no step was left to take it in); ZCode runs it as a turn of its own after this one. Cancel stops that turn too.",
    fellBackOther: (reasonCode: string) => `This steer did not reach the turn (${reasonCode}); ZCode keeps it in its queue.`,
    /** The ACK never came within `seconds`: ZCode may still have taken it; followed by the user's text, quoted. */
    unconfirmed: (seconds: string) =>
      `ZCode did not confirm this steer within ${seconds} s. It may still reach the turn: if it does, it appears there as your words.`,
    /** ZCode answered that it did not take the steer; `why` is its reason, worded. Followed by the user's text, quoted. */
    /** The ACK could not be read: ZCode may still have taken it; followed by the user's text, quoted. */
    unreadable: "ZCode's answer to this steer could not be read. It may still reach the turn: if it does, it appears there as your words.",
    notTaken: (why: string) => `ZCode did not take this steer: ${why}`,
  },

  /** What /mode and /thought share; `noun` is their `noun` below. */
  setting: {
    none: (noun: string) => `This session has no ${noun} to choose (the current model has none).`,
    list: (noun: string, currentCode: string, choiceCodes: string[], usage: string) =>
      `Current ${noun}: ${currentCode}. Available: ${choiceCodes.join(", ")}.\n\nChange it with \`${usage}\`.`,
    unknown: (noun: string, valueCode: string) => `Unknown ${noun} ${valueCode}.`,
    set: (noun: string, valueCode: string) => `${noun[0]!.toUpperCase()}${noun.slice(1)} set to ${valueCode}.`,
  },

  mode: {
    description: "Switch the session mode (plan, build, edit, yolo, guarded, …); without a mode, list them",
    hint: "<mode>",
    noun: "mode",
  },

  thought: {
    description: "Set how much the model thinks (the levels the current model offers); without a level, list them",
    hint: "<level>",
    noun: "thought level",
  },

  model: {
    description: "Switch the model (by name or id; the start of a name is enough); without a model, list them",
    hint: "<name or id>",
    none: "This session has no model to choose: ZCode listed none.",
    /** Notes after a model in the list. */
    current: "current",
    notOffered: "no longer offered",
    /** `reason` is ZCode's. */
    unavailable: (reason: string) => `unavailable: ${reason}`,
    notes: (notes: string[]) => ` (${notes.join(", ")})`,
    listHead: (label: string, valueCode: string, thoughtCode: string | undefined) =>
      `Current model: ${label} (${valueCode})${thoughtCode ? `, thought level ${thoughtCode}` : ""}.`,
    listFoot: "Switch with `/model <name or id>` (case does not matter; the start of a name is enough when only one model has it).",
    /** `model`: how the bridge names a model (`name (providerId/modelId)`). */
    already: (model: string) => `Already using ${model}.`,
    set: (model: string, thoughtCode: string | undefined) => `Model set to ${model}${thoughtCode ? `; thought level ${thoughtCode}` : ""}.`,
  },

  help: {
    description: "List the slash commands and how to use them",
    intro: "Slash commands (type them at the start of a message; anything else goes to the model):",
    /** After a listed command the CLI lacks. */
    notSupported: (version: string) => ` (not supported by ZCode CLI ${version})`,
  },

  terminalOnly: {
    description: "Only in the ZCode terminal app",
    /** `instead`: what to do in the editor instead, one of `insteadOf` below. */
    reply: (name: string, instead: string | undefined) =>
      `\`/${name}\` needs the ZCode terminal app; run \`zcode\` in a terminal and type it there.${instead ? ` ${instead}` : ""}`,
    insteadOf: {
      mcp: "MCP servers configured in the editor are passed to ZCode with each session.",
      effort: "Here, use `/thought <level>`.",
      new: "Here, start a new session (thread) in the editor.",
      resume: "Here, open the session from the editor's session history.",
      skill: "Here, type the skill's own name: `/<skill-name> [task]` (your skills are in the / menu).",
      signIn:
        "Here, sign in with `zcode-acp-server login` in a terminal (it runs `zcode login`; choose an API key), or set ZCODE_API_KEY in the agent's settings, or sign in in the ZCode app (Settings → Models); `zcode-acp-server logout` signs out. `zcode-acp-server doctor` shows the sign-in in use.",
    },
  },

  /** Menu entries of the user's skills that say nothing of their own. */
  discovered: {
    skillDescription: "ZCode skill",
    /** What follows a skill's name is the request it works on. */
    skillHint: "[task]",
  },
};
