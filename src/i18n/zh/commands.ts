import type { commands as en } from "../en/commands.ts";

// Terms, kept the same across the table, in the ZCode app's own words (its
// CLI's apps/zcode-cli/packages/i18n/src/locales/zh-CN.ts and the desktop's
// packages/ui/src/i18n/locales/zh-CN.ts):
//   session 会话 (desktop), turn 回合 (CLI), checkpoint stays "checkpoint"
//   (CLI), fork 派生 (CLI: 派生新 session), goal 目标 (CLI), compact 压缩上下文
//   (CLI), mode 模式, model 模型, provider 供应商, tokens Token, thought level
//   推理强度 (desktop), steer 引导 (desktop), modes: plan 计划模式, build
//   变更前确认, edit 自动编辑, yolo 完全访问, guarded 自主模式 (desktop).
//   ZCode has no zh word for: rewind (回退 here; its CLI says 恢复 workspace
//   文件), auto mode (自动 here), permission options (bridge.permission).
// Command names, their keywords (replace, clear, …), ids and values stay as
// typed, in code spans.

/** ZCode's goal statuses (legacy's words, as /goal show names them). */
const GOAL_STATUS: Record<string, string> = { active: "进行中", paused: "已暂停", complete: "已完成", failed: "失败" };

export const commands: typeof en = {
  usage: (usage) => `用法：\`${usage}\``,
  notSupported: (name, version) => `ZCode CLI ${version} 不支持 \`/${name}\``,
  busy: (name) => `ZCode 正在执行一个回合，现在无法运行 \`/${name}\`。请等待该回合结束（或取消它）后再试。`,
  rejected: (name, message) => `ZCode 拒绝了 \`/${name}\`：${message}`,

  fork: {
    description: "从当前对话派生一个新会话（从最新的 checkpoint 开始）",
    noCheckpoint: "暂时无法派生：此会话还没有 checkpoint。每个回合完成时都会创建一个 checkpoint。",
    forked: (idCode, title) =>
      `已从当前对话派生新会话 ${idCode}：${title ? `“${title}”` : "（无标题）"}。\n\n` +
      "新会话已在会话列表中，打开它即可从这里继续。当前会话保持不变。",
  },

  rewind: {
    description: "撤销上一个回合的文件更改（保留对话）；`/rewind <新提示>` 替换上一条提示并重新运行",
    hint: "[新提示]",
    filesRewound: (n) => `已撤销上一个回合对 ${n} 个文件的更改；对话保持不变：`,
    fileLine: (pathCode, action) =>
      `- ${pathCode}${action === "delete" ? "（该回合创建：已删除）" : action === "restore" ? "（已恢复）" : ""}`,
    unsafe: "未回退任何内容：ZCode 无法安全恢复以下文件，因此没有更改其中任何一个：",
    unsafeLine: (pathCode, why) => `- ${pathCode}：${why}`,
    unsafeReason: {
      external_modified: "该回合之后被修改过（由你或其他程序）",
      checkpoint_missing: "checkpoint 缺失",
      checkpoint_unreadable: "checkpoint 无法读取",
      file_read_failed: "文件无法读取",
      unsupported_checkpoint: "checkpoint 的类型 ZCode 无法恢复",
      bash_ignored: "由终端命令修改，ZCode 不跟踪此类更改",
    },
    unsafeOther: (reason) => `无法恢复（${reason}）`,
    unsafeHint: "请手动（或用版本控制）撤销这些更改，然后再次运行 `/rewind`。",
    noFiles: "没有可回退的内容：上一个回合没有更改文件，或其更改已被撤销。`/rewind <新提示>` 可替换上一条提示。",
    noPrompt: "没有可回退的内容：这里没有可替换的提示（还没有回合，或有回合正在运行）。",
    blocked: (why, listed) => `未做任何更改：${why}，因此 ZCode 没有替换提示${listed ? "：" : "。"}`,
    unreadable: "无法读取 ZCode 对回退的回复；请查看对话（和文件）以确认是否已执行。",
    promptNeedsV4: (version) =>
      `\`/rewind <新提示>\` 需要 ZCode CLI 0.16.5 或更新版本（当前为 ${version}）。在此版本中，单独的 \`/rewind\` 会将对话回退到最新的 checkpoint。`,
    rerunning: "已回退上一个回合（文件和对话）。正在运行新提示：",
    rerunningChatOnly: "已回退上一个回合的对话（该回合未改动文件）。正在运行新提示：",
    rewound: (checkpointCode, removed, revision) =>
      `已回退到最新的 checkpoint${checkpointCode ? ` ${checkpointCode}` : ""}：` +
      (removed === undefined ? "删除了该 checkpoint 之后的消息" : `删除了 ${removed} 条消息`) +
      "。" +
      (revision === undefined ? "" : `会话版本号现为 ${revision}。`),
    conflict: (expectedRevision) =>
      "未回退任何内容：准备回退期间会话发生了变化" +
      (expectedRevision === undefined ? "" : `（当时的版本号为 ${expectedRevision}）`) +
      "。请再次运行 `/rewind` 以回退当前状态。",
    noCheckpoint: "没有可回退的内容：此会话还没有 checkpoint。每个回合完成时都会创建一个 checkpoint。",
  },

  goal: {
    description: "查看或设置会话目标（可替换、清除、暂停、恢复）；ZCode 推进目标时取消会暂停目标，`/goal resume` 可继续",
    hint: "[目标 | replace <目标> | clear | pause | resume]",
    replaceNeedsObjective: "`/goal replace` 需要给出新的目标。",
    done: {
      show: "尚未设置目标。使用 `/goal <目标>` 设置一个。",
      set: "目标已设置。",
      replace: "目标已替换。",
      clear: "目标已清除。",
      pause: "目标已暂停。",
      resume: "目标已恢复。",
    },
    shown: (status: string, objective: string, seconds?: number) =>
      `目标${GOAL_STATUS[status] ?? status}\n目标：${objective}${seconds !== undefined ? `\n用时：${seconds} 秒` : ""}`,
    working: "正在朝目标推进…",
    stillWorking: "ZCode 仍在朝目标推进。",
    pausedByCancel: "目标已暂停（朝目标的工作已取消）；使用 `/goal resume` 继续。",
  },

  compact: {
    description: "压缩对话历史以释放上下文（可附上对摘要的要求）",
    hint: "[摘要要求]",
    toolTitle: "正在压缩上下文",
    stillRunning: "ZCode 仍在压缩上下文，压缩会在后台继续进行。",
    finished: (already, usage) =>
      (already ? "已有一次压缩在进行，现已完成。" : "上下文已压缩。") + (usage ? `当前上下文用量：${usage.used} / ${usage.size}。` : ""),
  },

  steer: {
    description: "引导正在进行的回合：补充指令，不会中断它",
    hint: "<指令>",
    needsText: "`/steer` 需要给出用来引导当前回合的指令。",
    noTurn: "当前没有正在进行的回合，无法引导。请把这段内容作为普通消息发送：",
    steering: "已用以下指令引导正在进行的回合：",
    startedNew: "该回合刚刚结束，因此 ZCode 将其作为新回合运行：",
    fellBackStopped: "此引导未送达该回合：回合已先被停止。它不会运行；如仍需要，请将其作为提示重新发送。",
    failedBeforeSteer: "此引导未送达该回合：回合已先失败。它不会运行；如仍需要，请将其作为提示重新发送。",
    fellBackNoBoundary:
      "此引导无法并入正在运行的回合（没有剩余步骤可以接收）；ZCode 会在本回合之后将其作为单独的回合运行。取消也会停止该回合。",
    fellBackOther: (reasonCode) => `此引导未送达该回合（${reasonCode}）；ZCode 将其保留在队列中。`,
    unconfirmed: (seconds) => `ZCode 未在 ${seconds} 秒内确认此引导。它仍可能送达该回合：若送达，会以你的话显示在其中。`,
    unreadable: "无法读取 ZCode 对此引导的答复。它仍可能送达该回合：若送达，会以你的话显示在其中。",
    notTaken: (why) => `ZCode 未接受此引导：${why}`,
  },

  setting: {
    none: (noun) => `此会话没有可选的${noun}（当前模型不提供）。`,
    list: (noun, currentCode, choiceCodes, usage) =>
      `当前${noun}：${currentCode}。可选：${choiceCodes.join("、")}。\n\n使用 \`${usage}\` 切换。`,
    unknown: (noun, valueCode) => `未知的${noun} ${valueCode}。`,
    set: (noun, valueCode) => `${noun}已设为 ${valueCode}。`,
  },

  mode: {
    description: "切换会话模式（plan/build/edit/yolo/guarded 等）；不带参数时列出可选模式",
    hint: "<模式>",
    noun: "模式",
  },

  thought: {
    description: "设置模型的推理强度（可选级别取决于当前模型）；不带参数时列出可选级别",
    hint: "<级别>",
    noun: "推理强度",
  },

  model: {
    description: "切换模型（按名称或 ID，输入名称开头即可）；不带参数时列出可选模型",
    hint: "<名称或 ID>",
    none: "此会话没有可选的模型：ZCode 没有列出任何模型。",
    current: "当前",
    notOffered: "已不再提供",
    unavailable: (reason) => `不可用：${reason}`,
    notes: (notes) => `（${notes.join("，")}）`,
    listHead: (label, valueCode, thoughtCode) => `当前模型：${label}（${valueCode}）${thoughtCode ? `，推理强度 ${thoughtCode}` : ""}。`,
    listFoot: "使用 `/model <名称或 ID>` 切换（不区分大小写；只要某个名称开头只对应一个模型，输入开头即可）。",
    already: (model) => `已经在使用 ${model}。`,
    set: (model, thoughtCode) => `已切换到模型 ${model}${thoughtCode ? `；推理强度 ${thoughtCode}` : ""}。`,
  },

  help: {
    description: "列出所有斜杠命令及其用法",
    intro: "斜杠命令（在消息开头输入；其他内容都会发送给模型）：",
    notSupported: (version) => `（ZCode CLI ${version} 不支持）`,
  },

  terminalOnly: {
    description: "仅能在 ZCode 终端应用中使用",
    reply: (name, instead) => `\`/${name}\` 需要在 ZCode 终端应用中使用：请在终端中运行 \`zcode\`，然后在那里输入。${instead ?? ""}`,
    insteadOf: {
      mcp: "在编辑器中配置的 MCP 服务器会随每个会话一起传给 ZCode。",
      effort: "在这里请使用 `/thought <级别>`。",
      new: "在这里请在编辑器中新建一个会话（对话线程）。",
      resume: "在这里请从编辑器的会话历史中打开该会话。",
      skill: "在这里请直接输入技能自己的名称：`/<技能名> [任务]`（你的技能都在 / 菜单中）。",
      signIn:
        "在这里请在终端运行 `zcode-acp-server login` 登录（它运行 `zcode login`；请选择 API 密钥），或在本智能体的设置中设置 ZCODE_API_KEY，或在 ZCode 应用中登录（设置 → 模型）；`zcode-acp-server logout` 退出登录。`zcode-acp-server doctor` 会显示正在使用的登录。",
    },
  },

  discovered: {
    skillDescription: "ZCode 技能",
    skillHint: "[任务]",
  },
};
