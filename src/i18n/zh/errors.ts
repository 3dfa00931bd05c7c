import type { errors as en } from "../en/errors.ts";

const HOW_TO_POINT_AT_ZCODE =
  "请安装 ZCode 应用或 CLI（https://zcode.z.ai），或将 ZCODE_BIN（或 --zcode-bin）设为 `zcode` 可执行文件或它的 `zcode.cjs` 入口。" +
  "运行 `zcode-acp-server doctor` 可查看找到了什么。";

const NODE_FIX = "请安装 Node.js 22 或更新版本，或将 ZCODE_NODE（--zcode-node）设为它的路径。";

/** Option values as code, in a Chinese list. */
const ids = (values: readonly string[]) => values.map((v) => `\`${v}\``).join("、");

/** How a process ended, for the sentences below. */
const ended = (signal: string | null | undefined, code: number | null | undefined) =>
  signal ? `被信号 \`${signal}\` 终止` : `已退出，退出码 ${code ?? "未知"}`;

export const errors: typeof en = {
  invalidParams: (detail) => `参数无效：${detail}`,
  internal: (detail) => `内部错误：${detail}`,
  sessionNotFound: "找不到该会话",

  notDeleted: (id) => `ZCode 没有删除会话 ${id}（它回答无事可做）；该会话仍保持打开`,
  stillBusy: "ZCode 仍在处理此会话中的上一条提示，且没有及时空闲下来；请稍后再试",
  rejected: (message) => `ZCode 拒绝了该请求：${message}`,
  unsupportedMethod: (method, message) => `此版本的 ZCode CLI 不支持 ${method}（${message}）`,
  notActive: (message) => `ZCode 会话未激活：${message}`,
  noV4: (version) =>
    `此 ZCode CLI（${version}）不提供 --zcode-protocol v4（ZCODE_ACP_ZCODE_PROTOCOL=v4）要求的 v4 协议；请改用 \`auto\` 或 \`legacy\`，或使用 ZCode 0.16 及以上版本`,
  v4Cannot: {
    listEverywhere: "此 ZCode CLI 只提供 v4 协议，它一次只能列出一个工作区的会话：请指定工作目录再列出",
    clearGoal: "此 ZCode CLI 只提供 v4 协议，它没有清除目标的命令：请改为暂停目标（`/goal pause`）",
    showGoal: "此 ZCode CLI 只提供 v4 协议，它没有显示目标的命令：目标会显示在会话的计划中",
    compactInstructions: "此 ZCode CLI 只提供 v4 协议，它的压缩不接受额外说明：请单独运行 `/compact`",
    forkAtCheckpoint: "此 ZCode CLI 只提供 v4 协议，它只能从助手的某条回答处派生新会话，不能从 checkpoint 派生",
    forkNothing: "还没有可以派生新会话的助手回答",
    noPlanCredentials: "桥接程序没有找到这个模型所属套餐的凭据，无法随提示一起发送",
    modelUnknown: "此 ZCode CLI 只提供 v4 协议，且会话当前的模型尚不可知：请先选择模型",
    attachmentTooBig: (name, max) => `${name} 超过了 ZCode v4 协议对单个附件的 ${Math.floor(max / 1024 / 1024)} MiB 上限`,
  },
  subagentReadOnly: (parentId) =>
    `这是子代理的会话，只读${parentId ? `（会话 ${parentId} 的子会话）` : ""}：它由 ZCode 为其父会话运行，请向父会话发送提示`,
  died: (message) => `ZCode CLI 意外退出：${message}`,
  zcode: (message) => `ZCode：${message}`,
  turnFailed: (message, code) => `ZCode：${message}${code !== undefined ? `（错误码 ${code}）` : ""}`,
  unexpected: "zcode-acp-server 发生意外错误",

  tooManyBlocks: (max, count) => `一条提示最多只能有 ${max} 个内容块（这一条有 ${count} 个）`,
  attachmentsTooBig: (mib, totalMib, totalBytes) =>
    `一条提示的附件总共不能超过 ${mib} MiB（按文件大小计）；这些附件共 ${totalMib} MiB（${totalBytes} 字节）`,
  imageTooBig: (mib, sizeMib, sizeBytes) => `每张图片不能超过 ${mib} MiB（按文件大小计）；这张图片为 ${sizeMib} MiB（${sizeBytes} 字节）`,
  promptTooBig: (sizeMib, sizeBytes, limitMib, limitBytes) =>
    `这条提示发给 ZCode 时为 ${sizeMib} MiB（${sizeBytes} 字节；文本加上以 base64 编码的图片和 PDF，比文件本身大三分之一），超过了 ${limitMib} MiB（${limitBytes} 字节）的上限（由 --max-message-bytes 和 --max-line-bytes 决定）`,
  notBase64: (what) => `${what}：不是有效的 base64 数据`,
  anImage: "图片",
  thePdf: (uri) => `PDF 文件 ${uri}`,
  theFile: (uri) => `文件 ${uri}`,
  imageType: (got) => `图片只能是 PNG、JPEG、WebP 或 GIF 格式（收到的是 ${got}）`,
  emptyResource: (uri) => `资源 ${uri} 既没有文本也没有数据`,
  binaryNotHere: "此处不能附加二进制文件",
  audio: "ZCode 不接受提示中的音频；请改为发送文字、图片或文件",
  unsupportedContent: (type) => `不支持的提示内容类型：${type}`,
  attachmentDirNotPrivate: (dir) => `附件目录 ${dir} 不是当前用户私有的；请删除它后重试`,
  attachmentWriteFailed: (name, why) => `无法为 ZCode 暂存附件 ${name}：${why}`,

  unknownAuthMethod: (id, methods) => `未知的认证方式 \`${id}\`；此智能体提供：${ids(methods)}`,
  goalNeedsObjective: "设置目标需要非空的 `objective`",
  steeringNeedsText: "引导需要 `prompt` 中的文本块",
  steeringNotInjected: "引导未送达正在进行的回合；原因见对话中的回复",
  cwdNotAbsolute: (cwd) => `\`cwd\` 必须是绝对路径，收到的是 \`${cwd}\``,
  noAdditionalDirectories:
    "ZCode 每个会话只接受一个工作区文件夹（它的 session/create 没有容纳更多文件夹的字段），因此无法使用 `additionalDirectories`；请为每个文件夹各开一个会话。",
  noSystemPrompt:
    "ZCode 不接受编辑器提供的系统指令（session/create 和 session/send 都没有对应字段），因此无法应用 `systemPrompt`；请把指令写在提示中或项目的 `AGENTS.md` 里。",
  v2ReplayCursor: (type) => `不支持 \`replayFrom\` \`${type}\`：请省略 \`replayFrom\`，或从 \`{ "type": "start" }\` 重放`,
  invalidCursor: "分页游标无效",
  noOption: (key) => `此会话没有${key === "mode" ? "模式" : "推理强度"}选项`,
  notAChoice: (value, key, choices) => `\`${value}\` 不是有效的${key === "mode" ? "模式" : "推理强度"}；可选：${ids(choices)}`,
  notAModel: (value, choices) => `\`${value}\` 不是 ZCode 在此提供的模型；可选：${ids(choices) || "无"}`,
  optionTakesListed: (configId) => `选项 \`${configId}\` 只接受其列出的值之一`,
  unknownOption: (configId) => `未知的配置选项 \`${configId}\``,
  modelRefused: (wanted, reason, keeps) => `ZCode 没有切换到 ${wanted}：${reason}。${keeps ? `会话仍使用 ${keeps}。` : ""}`,
  configuredModel: (why) => `--model / ZCODE_ACP_MODEL 设定的模型：${why} 请在编辑器中此智能体的设置里修改。`,

  providerUnreadable: "zcode-acp-server 无法识别 ZCode 询问的供应商。",
  cannotSign: (why) =>
    `zcode-acp-server 无法为这次模型请求提供凭据：${why}。` +
    "请在 ZCode 应用中登录此套餐（设置 → 模型）或用 `zcode login` 登录（选择 API 密钥），或设置 ZCODE_API_KEY，或选择一个已配置 API 密钥的供应商的模型；然后重试。",
  noSignIn: (providerId) => `没有 ${providerId} 的登录信息：ZCode 应用中没有，\`zcode login\` 也没有，且未设置 ZCODE_API_KEY`,
  cliOAuthOnly: (providerId) =>
    `\`zcode login\` 通过浏览器登录了 ${providerId}；ZCode 只在它自己的终端模式中把这种登录换成密钥，桥接程序做不到。` +
    "请重新运行 `zcode login` 并选择 API 密钥，或设置 ZCODE_API_KEY",
  cliKeychain: (providerId) => `${providerId} 的登录信息由 ZCode 应用用系统钥匙串加密，其他程序无法读取`,
  cliUnreadable: (providerId) => `无法读取 \`zcode login\` 为 ${providerId} 保存的登录信息`,
  logoutFailed: (code, output) =>
    `\`zcode logout\` ${code === null ? "被信号终止" : `以代码 ${code} 退出`}` +
    (output.length ? `：\n${output.map((l) => `  ${l}`).join("\n")}` : "，没有任何输出"),
  envKeyRefused: (variable) => `供应商拒绝了 ${variable} 中的 API 密钥；请检查它`,
  cliKeyRefused: (providerId) => `供应商拒绝了 \`zcode login\` 为 ${providerId} 保存的 API 密钥；请重新运行 \`zcode login\``,
  providerOff: (providerId) => `${providerId} 在 ZCode 应用中已关闭`,
  keyRefused: (providerId) => `供应商拒绝了 ZCode 应用为 ${providerId} 保存的 API 密钥；请在 ZCode 应用中重新登录该套餐`,
  accountChanged: (providerId) => `自此任务开始以来，ZCode 应用中 ${providerId} 的登录已变更；请重新开始该任务`,
  noApiKey: (providerId) => `ZCode 应用没有保存 ${providerId} 的 API 密钥`,

  exited: (e) =>
    `ZCode CLI ${ended(e.signal, e.code)}` +
    `${e.method ? `（当时 ${e.method} 请求尚未完成）` : ""}` +
    (e.stderrTail.length
      ? `；它最后输出到 stderr 的内容：\n${e.stderrTail.map((l) => `  ${l}`).join("\n")}`
      : "（它没有向 stderr 输出任何内容）"),
  builtinProviderConfigMissing: (variable) =>
    "ZCode 桌面应用自带的 CLI 找不到它的内置供应商配置（`zcode-builtin.json`），这个文件通常由应用传给它。" +
    `请在编辑器为本智能体配置的环境变量中把 ${variable} 设为该文件（它随应用一起安装，位于 CLI 旁边的 \`provider/zcode-builtin.json\` 或 \`../config/provider/zcode-builtin.json\`），` +
    "或者更新 ZCode 应用，或将 ZCODE_BIN 指向独立安装的 `zcode` CLI。运行 `zcode-acp-server doctor` 可查看找到了什么。",
  timeout: (method, seconds) => `ZCode CLI 没有在 ${seconds} 秒内响应 ${method}`,
  notRunning: (method) => `ZCode CLI 未在运行（${method}）`,
  connectionClosed: "与 ZCode 的连接已关闭",
  howToPointAtZCode: HOW_TO_POINT_AT_ZCODE,
  notFound: (what, searched) =>
    `${what}${searched.length ? `\n已查找：\n${searched.map((s) => `  - ${s}`).join("\n")}` : ""}\n${HOW_TO_POINT_AT_ZCODE}`,
  cliNotFound: "没有找到 ZCode CLI。",
  binMissing: (bin) => `ZCODE_BIN 指向 ${JSON.stringify(bin)}，该文件不存在或不可执行。`,
  onPath: (path) => `PATH 中的 zcode（${path ?? "PATH 为空"}）`,
  cmdShim: (entry) => `${entry} 是 Windows 的 \`.cmd\` 包装脚本，无法直接启动，也读不出它指向的入口。`,
  notExecutable: (entry) => `${entry} 不可执行（请对它执行 \`chmod +x\`，或将 ZCODE_BIN 指向真正的可执行文件）。`,
  cannotStart: (entry, why) => `无法启动 ${entry}：${why}`,
  nodeNotWorking: (node) => `ZCODE_NODE 指向 ${JSON.stringify(node)}，它不是可用的 Node.js。`,
  nodeMissing: (entry, major) => `${entry} 需要 Node.js >= ${major} 才能运行，但没有找到 Node.js。${NODE_FIX}`,
  nodeTooOld: (entry, major, found) =>
    `${entry} 需要 Node.js >= ${major} 才能运行（它用到了 \`node:sqlite\`），但只找到：${found.join("、")}。${NODE_FIX}`,
  nodeTried: (path, version) => `${path}（${version !== undefined ? `v${version}` : "无法运行"}）`,
  nodeOnPath: "PATH 中的 node",
  tooOld: (found, min, recommended) =>
    `ZCode CLI ${found} 版本过旧：zcode-acp-server 需要 ${min} 或更新版本（推荐 ${recommended}+）。` +
    "请更新 ZCode 应用（它会一并更新内置的 CLI），或安装更新的 `zcode` CLI 并将 ZCODE_BIN 指向它。",
  versionTimeout: (command, seconds) => `\`${command}\` 没有在 ${seconds} 秒内结束；它及其启动的所有进程都已被终止`,
  noVersion: (command, end, said) => `\`${command}\` ${ended(end.signal, end.code)}，没有输出版本号${said ? `：${said}` : ""}`,
  v4: {
    sessionNotFound: "ZCode 已不再打开此会话；请重试（桥接会先打开它）。",
    staleRevision: "准备命令期间对话连续两次发生变化；未做任何操作。请重试。",
    staleOnce: "命令送达期间对话发生了变化；未做任何操作。请重试。",
    staleTarget: "命令针对的消息已不存在；未做任何操作。请重试。",
    invalidPayload: "ZCode 不接受桥接构造的命令（zcode-acp-server 的缺陷）；未做任何操作。",
    actionUnavailable: "ZCode 当前不在此对话上提供该操作（有任务正在运行、有请求在等待回答，或没有可操作的内容）；未做任何操作。",
    latestOnly: "只能编辑或重试最新一条消息；未做任何操作。",
    stopTargetChanged: "该轮已结束；未停止任何内容。",
    notImplemented: "此版本的 ZCode CLI 尚未实现该命令。",
    executionFailed: "ZCode 无法执行该命令。",
    emptyInput: "文本为空；未发送任何内容。",
    payloadTooLarge: "ZCode 对该命令的回复过大，无法传回；重试前请先查看对话。",
    heldQueueStale: "ZCode 暂存的排队消息在此期间发生了变化；未做任何操作。请重试。",
    heldQueueDispositionRequired: "ZCode 暂存着已停止回合的排队消息，需要先（在 ZCode 应用中）决定如何处理它们；未做任何操作。",
    restoreWarning: "ZCode 无法在此会话中运行提示：其模型不可用。请用 `/model` 选择其他模型；未做任何操作。",
    activePrompt: "ZCode 仍在结束上一个回合；未做任何操作。请稍后重试。",
    inputRejected: "ZCode 拒绝了该输入；未做任何操作。",
    queryUnavailable: "ZCode 无法查询该命令是否已执行；未做任何操作。请重试。",
    workspaceRewindUnsafeFiles: "上一个回合的文件无法安全恢复",
    workspaceRewindIgnoredFiles: "上一个回合通过终端命令改动了文件，ZCode 无法恢复这些改动",
    workspaceRewindUnavailable: "ZCode 没有上一个回合可恢复的文件（该回合未改动文件，或已回退）",
    workspaceRewindApplyConflict: "ZCode 恢复文件期间文件发生了变化",
    other: (status, reasonCode) => `ZCode 返回 ${status}${reasonCode ? `（${reasonCode}）` : ""}；未做任何操作。`,
  },
};
