import type { bridge as en } from "../en/bridge.ts";

export const bridge: typeof en = {
  auth: {
    name: "ZCode 应用登录",
    description:
      "zcode-acp-server 使用 ZCode 自己的登录信息：ZCode 应用的登录，或 `zcode login` 保存的 API 密钥（也可以在本智能体的环境变量中设置 ZCODE_API_KEY）。只需登录一次，编辑器中无需 API 密钥。",
    terminalName: "用 `zcode login` 登录",
    terminalDescription:
      "在终端中运行 `zcode login`：通过浏览器登录，或粘贴 GLM Coding Plan 的 API 密钥。桥接程序可以使用 API 密钥登录；浏览器登录只能在 ZCode 自己的终端模式中使用。",
  },

  turn: {
    stopped: (why) => `ZCode 已停止：${why}。`,
    maxTurns: "本轮已达到 ZCode 的模型请求次数上限",
    maxToolCalls: "本轮已达到 ZCode 的工具调用次数上限",
    maxBudget: "本轮用量已达到预算上限",
    interrupted: "执行中出错，本轮已中断",
    failed: "本轮执行失败",
    retrying: (message, seconds, attempt, attempts) => `ZCode：${message}；${seconds} 秒后重试（第 ${attempt} 次，共 ${attempts} 次）…`,
  },

  autoCompact: {
    notice: (used, size, percent, threshold) =>
      `上下文用量：${used} / ${size} Token${percent !== undefined ? `（${percent}%）` : ""}，已达到自动压缩阈值（${threshold}），正在压缩对话…`,
    percentThreshold: (percent) => `上下文窗口的 ${percent}%`,
    tokenThreshold: (tokens) => `${tokens} Token`,
  },

  model: {
    gone: (label, value, why) =>
      `模型 ${label}（${value}）已不再由 ZCode 提供${why ? `：${why}` : ""}；请用 /model 命令或模型菜单另选一个。`,
    ambiguous: (words, candidates) => `“${words}” 匹配到多个模型：${candidates}。请输入更完整的名称，或完整的模型 ID。`,
    notAvailable: (words, why) => `模型 “${words}” 当前不可用${why ? `（${why}）` : ""}`,
    noMatch: (words) => `ZCode 在此提供的模型中没有与 “${words}” 匹配的`,
    chooseFrom: (why, choices) => `${why}。可选：${choices}。`,
    none: "无",
  },

  options: {
    mode: "模式",
    modeDescription: "ZCode 无需询问就可以做哪些事",
    model: "模型",
    modelDescription: "ZCode 在此会话中使用的模型",
    thought: "推理强度",
    thoughtDescription: "模型推理的深入程度",
    autoCompact: "自动压缩",
    autoCompactDescription: (threshold) => `一轮结束后上下文用量达到或超过${threshold}时压缩对话`,
    on: "开",
    off: "关",
    modes: {
      plan: "计划模式",
      build: "变更前确认",
      edit: "自动编辑",
      yolo: "完全访问",
      guarded: "自主模式",
      // ZCode has no zh label for auto (its desktop shows "Auto").
      auto: "自动",
    },
    notOffered: "已不再提供",
    unavailable: "不可用",
    unavailableWhy: (why) => `不可用：${why}`,
  },

  permission: {
    allow_once: "允许",
    allow_always: "始终允许",
    reject_once: "拒绝",
    reject_always: "始终拒绝",
  },

  plan: {
    ask: (plan) => `批准此计划并开始编码？\n\n${plan}`,
    askNoPlan: "批准计划并开始编码？",
    formTitle: "计划审批",
    decision: "准备开始编码？",
    approve: "批准：开始编码",
    reject: "拒绝：继续规划",
    feedbackTitle: "需要修改什么？",
    feedbackDescription: "选择继续规划时，这段话会转告给智能体",
    yes: "是，开始编码",
    no: "否，继续规划",
  },

  question: {
    answerAll: (count) => `请回答以下 ${count} 个问题。`,
    decline: "不回答",
    otherTitle: "其他",
    otherDescription: "你自己的回答：用于没有选择选项的问题（也可以是给智能体的备注）",
  },

  history: {
    tooLarge: "该对话过大，无法在此重放；它仍保存在 ZCode 中。",
    earlierNotShown: (count) => `此处只显示该对话的最后 ${count.toLocaleString("en-US")} 条消息；更早的消息仍保存在 ZCode 中。`,
    summary: (text) => `**对话摘要**（较早的消息已压缩）\n\n${text}`,
    compacted: "**较早的消息已压缩。**",
  },
};
