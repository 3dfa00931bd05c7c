import { LOG_LEVEL_NAMES } from "../../log.ts";
import type { cli as en } from "../en/cli.ts";

// Area: the command line (see en/cli.ts). Values the user types (zh, yolo,
// log levels), file names and commands are set in backticks: they stay as
// they are, and the backticks tell them apart from the Chinese around them.

/** Two CJK characters are four columns wide, like `ok  ` and `FAIL`: the check lines stay aligned. */
const verdicts = { ok: "正常", fail: "失败", warn: "警告" };

const LANGUAGE_NAMES: Record<string, string> = { zh: "简体中文", en: "英文" };

export const cli: typeof en = {
  commands: {
    "zcode-acp-server": "连接编辑器与 ZCode 的 ACP 桥接程序。不带子命令时，通过标准输入输出提供 ACP 服务",
    doctor: "检查 ZCode CLI、其版本、Node 和登录状态，并输出可直接粘贴的编辑器配置",
    upgrade: "下载发行版，校验 SHA-256 后覆盖安装当前可执行文件",
    login: "不用 ZCode 应用登录：在此终端运行 `zcode login`（浏览器或 API 密钥）",
    logout: "退出 `zcode login` 保存的登录：运行 `zcode logout`",
  },

  flags: {
    "zcode-bin": "ZCode CLI 可执行文件，或其 .cjs/.mjs/.js 入口文件（环境变量 ZCODE_BIN；默认先在 PATH 中查找，再用 ZCode 应用自带的）",
    "zcode-node": "用来运行 .cjs/.mjs/.js 形式 ZCode 入口的 Node.js，需 >= 22（环境变量 ZCODE_NODE）",
    "zcode-protocol":
      "会话使用 ZCode 的哪种协议：`auto`、`legacy` 或 `v4`（环境变量 ZCODE_ACP_ZCODE_PROTOCOL；默认 `auto`：CLI 还提供旧版会话方法时用旧协议，它对这些方法回答“方法不存在”后只用 v4）",
    "log-level": `日志详细程度：\`${LOG_LEVEL_NAMES.join("|")}\`（环境变量 ZCODE_ACP_LOG_LEVEL；默认 \`warn\`）。日志写到 stderr。`,
    "log-file": "同时把日志追加写入此文件，文件以 0600 权限创建（环境变量 ZCODE_ACP_LOG_FILE）",
    lang: "桥接程序使用的语言：`zh` 或 `en`（环境变量 ZCODE_ACP_LANG；默认依次取 ZCode 应用的语言设置、系统区域设置）",
    mode: "新会话的默认模式，例如 `yolo` 或 `build`（环境变量 ZCODE_ACP_MODE）",
    model:
      "新会话使用的模型：写法与 /model 相同，可以是模型 ID、providerId/modelId、模型名称，或能唯一确定模型的开头部分（环境变量 ZCODE_ACP_MODEL；默认沿用 ZCode 的设置）",
    trace: "把两端通信脱敏后逐行以 JSON 格式记录到此文件，文件权限 0600（环境变量 ZCODE_ACP_TRACE）",
    "auto-compact":
      "一轮对话结束后，已用上下文达到此值时在后台压缩对话：可以是 Token 数，也可以是上下文窗口的百分比，如 80%（环境变量 ZCODE_ACP_AUTO_COMPACT；默认关闭）",
    "no-quota-push":
      "轮次结束后不再查询 GLM Coding Plan 的额度（每分钟最多一次），也不显示各额度及 80%、95% 提醒（环境变量 ZCODE_ACP_QUOTA_PUSH=0）",
    "no-app-history": "不把在这里创建的会话加入 ZCode 应用的历史记录 ~/.zcode/v2/tasks-index.sqlite（环境变量 ZCODE_ACP_APP_HISTORY=0）",
    "max-line-bytes":
      "从 ZCode CLI 接收的单行最大字节数（环境变量 ZCODE_ACP_MAX_LINE_BYTES；默认 100663296）。ZCode 会回显提示，所以发给 ZCode 的提示最多为此值减去 1 MiB（较小的上限则减去其八分之一）",
    "max-message-bytes":
      "从编辑器接收的单条消息最大字节数，超出的请求会收到错误回复（环境变量 ZCODE_ACP_MAX_MESSAGE_BYTES；默认 83886080：可容纳 base64 编码的 50 MiB 附件及文本）",
    "no-prewarm": "等到第一个会话需要时才启动 ZCode，而不是在回复 `initialize` 后立即在后台启动（环境变量 ZCODE_ACP_PREWARM=0）",
    version: "输出版本号后退出",
  },

  arguments: {
    version: "要安装的版本，例如 0.2.0 或 v0.2.0（默认：最新发行版）",
  },

  help: {
    moreAboutCommand: (command) => `运行 ${command} 查看某个命令的详细说明。`,
  },

  usage: {
    runHelp: (command) => `运行 '${command}' 查看用法。`,
    unknownCommand: (name, commands) => `未知命令 '${name}'（可用命令：${commands}）`,
    unknownOption: (arg) => `未知选项 ${arg}`,
    takesNoValue: (flag) => `选项 ${flag} 不接受值`,
    needsValue: (flag) => `选项 ${flag} 需要一个值`,
    needsNonEmptyValue: (flag) => `选项 ${flag} 的值不能为空`,
    unexpectedArgument: (arg) => `多余的参数 '${arg}'`,
    tooManyArguments: (arg) => `参数过多：'${arg}'`,
    notALanguage: (from, raw) => `${from}：'${raw}' 不是桥接程序支持的语言（\`zh\` 或 \`en\`）`,
    unknownLogLevel: (from, raw, levels) => `${from}：未知的日志级别 '${raw}'（可选值：${levels.join("、")}）`,
    notAModeName: (from, raw, modes) => `${from}：'${raw}' 不是 ZCode 支持的模式（可选值：${modes.map((m) => `\`${m}\``).join("、")}）`,
    notAModel: (from, raw) => `${from}：'${raw}' 不是有效的模型名称或 ID`,
    notAProtocol: (from, raw, choices) => `${from}：'${raw}' 不是 ZCode 的协议（可选值：${choices.map((c) => `\`${c}\``).join("、")}）`,
    notAByteCount: (from, raw) => `${from}：'${raw}' 不是有效的字节数（应为不小于 1024 的整数）`,
    notAutoCompact: (from, raw) => `${from}：'${raw}' 既不是 Token 数（如 150000 或 150k），也不是上下文窗口的百分比（如 80%）`,
    autoCompactTooLow: (from, raw, min, percent) =>
      `${from}：'${raw}' 个 Token 低于 ${min / 1000}k：ZCode 的指令和工具定义本身就要占用数千 Token，这样几乎每轮对话后都会压缩。${percent ? `如果指的是上下文窗口的百分比，请写 ${percent}；` : "请写上下文窗口的百分比（如 80%），"}或者至少 ${min / 1000}k 个 Token。`,
    autoCompactPercentTooLow: (from, raw, min) =>
      `${from}：'${raw}' 低于上下文窗口的 ${min}%：ZCode 的指令和工具定义本身就要占用数千 Token，这样几乎每轮对话后都会压缩。请至少写 ${min}%（通常用 80%）。`,
    notOnOff: (from, raw) => `${from}：'${raw}' 不是 0 或 1（也可以用 \`false\`/\`true\`、\`off\`/\`on\`、\`no\`/\`yes\`）`,
    cannotOpenLogFile: (path, reason) => `无法打开日志文件 ${path}：${reason}`,
  },

  serve: {
    terminalHint:
      "zcode-acp-server 是一个 ACP 智能体：由编辑器（Zed、JetBrains、Neovim、Emacs 等）启动，并通过标准输入输出以 JSON-RPC 通信。要检查环境配置，请运行 `zcode-acp-server doctor`。正在等待 JSON-RPC 消息；按 `Ctrl-D` 退出。",
  },

  doctor: {
    title: (version) => `zcode-acp-server ${version} 环境检查（doctor）`,
    verdicts,
    line: (verdict, label, detail) => `${verdict}  ${label}：${detail}`,
    indent: "      ",
    fix: (text) => `      解决办法：${text}`,
    allPassed: "所有检查均已通过。",
    failed: (count) => `${count} 项检查未通过，请按上面的解决办法处理。`,
    zedWhere: "Zed：添加到 ~/.config/zed/settings.json（Windows 上是 `%APPDATA%\\Zed\\settings.json`）：",
    jetbrainsWhere: "JetBrains 系列开发工具：添加到 ~/.jetbrains/acp.json：",

    labels: {
      self: "本桥接程序",
      path: "PATH",
      language: "语言",
      zcodeCli: "ZCode CLI",
      node: "运行脚本入口的 Node",
      desktopApp: "ZCode 桌面应用",
      zcodeVersion: "ZCode 版本",
      protocol: "ZCode 协议",
      signIn: "ZCode 登录",
    },

    // A path, then a comma: an origin's own brackets would nest in a bracketed version.
    selfBinary: (path, version, origin) => `${path}，版本 ${version}，${origin}`,
    selfFromSource: (version) => `从源码运行（版本 ${version}）；编辑器需要的是构建出的可执行文件`,
    pathAhead: (other, first, what) =>
      `${other} 在 PATH 中${first ? "排在最前面" : "排在本桥接程序之前"}，它是${what}，因此凡是按名字运行 \`zcode-acp-server\` 的地方，启动的都是它`,
    otherVersion: (printed, ours) => `版本为 ${printed} 的 zcode-acp-server，而不是 ${ours}`,
    otherProgramFailed: "另一个程序（`--version` 运行失败）",
    otherProgramPrinted: (printed) => `另一个程序（\`--version\` 输出 ${printed}）`,
    pathFixUsePath: (other, self) => `删除或升级 ${other}，或者在编辑器设置中填写 ${self} 这个完整路径。`,
    pathFix: (other) => `删除或升级 ${other}。`,

    origins: {
      standalone: "独立安装（`install.sh`、`install.ps1` 或手动复制）",
      npm: (pkg) => `由 npm 安装（\`${pkg}\`）`,
      homebrew: "由 Homebrew 安装",
      editorRegistry: (editor) => `由 ${editor} 从 ACP 注册中心安装`,
    },

    language: (code, source) => `${LANGUAGE_NAMES[code] ?? code}（${source}）`,
    languageSources: {
      flag: "由 --lang 指定",
      env: "由环境变量 ZCODE_ACP_LANG 指定",
      app: (path) => `取自 ZCode 应用的设置 ${path}`,
      locale: (variable, value) => `取自系统区域设置 \`${variable}=${value}\``,
      default: "默认值：--lang、ZCODE_ACP_LANG、ZCode 应用设置和系统区域设置都没有指定 `zh` 或 `en`",
    },

    zcodeSources: {
      env: "由 ZCODE_BIN / --zcode-bin 指定",
      path: "在 PATH 中找到",
      "app-bundle": "ZCode 桌面应用自带",
    },
    found: (path, how) => `${path}（${how}）`,
    cliFix:
      "安装 ZCode 桌面应用或 CLI（https://zcode.z.ai），或者告诉桥接程序它在哪里：\n" +
      "  在编辑器为本智能体配置的环境变量（`env`）中设置 ZCODE_BIN=/path/to/zcode，或加上参数 --zcode-bin /path/to/zcode",
    nodeFix: "安装 Node.js 22 或更高版本，或设置 ZCODE_NODE=/path/to/node（也可用 --zcode-node）。",
    nodeVersion: (node, version) => `${node}（${version}）`,
    nodeNotNeeded: "不需要（原生可执行文件）",
    versionOk: (version) => `${version}（受支持）`,
    versionTooOld: (version, min) => `${version} 过旧（需要 ${min} 或更高版本）`,
    versionFix: "更新 ZCode（桌面应用会一并更新自带的 CLI；也可以重新安装 CLI）。",
    versionFailed: (command, reason) => `运行 \`${command}\` 失败：${reason}`,
    versionFailedFix: "确认这个 ZCode CLI 能在终端里正常运行；不能的话请重新安装。",

    protocolReasons: {
      forcedLegacy: "旧协议：由 `--zcode-protocol legacy`（ZCODE_ACP_ZCODE_PROTOCOL）指定",
      forcedLegacyGone: "`--zcode-protocol legacy` 要求旧协议，但此 CLI 对旧协议的方法回答“方法不存在”：无法打开会话",
      forcedV4: "v4：由 `--zcode-protocol v4`（ZCODE_ACP_ZCODE_PROTOCOL）指定，且此 CLI 提供 v4",
      forcedV4Missing: "`--zcode-protocol v4` 要求 v4 协议，但此 CLI 不提供：无法打开会话",
      autoLegacyAndV4: "旧协议：此 CLI 提供旧版会话方法（也提供 v4：/steer 和 /rewind 使用它）",
      autoLegacyOnly: "旧协议：此 CLI 提供旧版会话方法，不提供 v4",
      autoV4Only: "v4：此 CLI 对旧版方法回答“方法不存在”，并提供 v4",
      autoUnknown: "暂用旧协议：此 CLI 没有说明是否仍提供旧版方法",
      neither: "此 CLI 既不提供旧版会话方法，也不提供 v4：无法打开会话",
    },
    protocolFailed: (message) => `无法询问此 CLI：${message}`,
    protocolFix: "请使用 `--zcode-protocol auto`（默认值），或换用提供所要求协议的 ZCode CLI。",

    appVersion: (version) => `版本 ${version}`,
    appVersionUnknown: "未找到版本号（不是应用包，或目录结构无法识别）",
    providerFromUser: "由环境变量设置",
    providerFromBridge: "在 CLI 旁边找到",
    builtinMissing: "未设置，CLI 旁边也没有 `zcode-builtin.json`（桌面应用 3.12 及以后版本自带的 CLI 需要它）",
    personalMissing: "未设置（没有 ~/.zcode/v2/provider_config.json）",

    noHome: "无法判断：HOME 未设置（或不是绝对路径）",
    noHomeFix: "在编辑器为本智能体配置的环境变量（`env`）中，把 HOME 设为你的主目录。",
    signedInPlan: (plans, path) => `已登录 ${plans}（GLM Coding Plan，见 ${path}）`,
    signedInKey: (providers, path) => `已配置 ${providers} 的 API 密钥（见 ${path}）；没有 GLM Coding Plan，因此 /quota 无内容可显示`,
    noKeyIn: (path) => `${path} 中没有已启用且配置了 API 密钥的供应商`,
    notSignedIn: (path) => `未找到 ${path}`,
    signInFix:
      "用 `zcode-acp-server login` 登录（运行 `zcode login`，选择 API 密钥），或在编辑器为本智能体配置的环境变量中设置 ZCODE_API_KEY，或在 ZCode 应用中登录（设置 → 模型）。",
    signedInEnv: (variable) => `${variable} 中的 API 密钥（优先于任何已保存的登录）`,
    signedInCli: (providers, path) => `已用 \`zcode login\` 登录 ${providers}（API 密钥，见 ${path}）`,
    notUsable: (what, path) => `没有可用的登录：${what}（见 ${path}）`,
    cliOAuthOnly: (providers) => `\`zcode login\` 通过浏览器登录了 ${providers}，这种登录只有 ZCode 自己的终端模式能用`,
    cliKeychain: (providers) => `${providers} 的登录信息保存在 ZCode 应用的系统钥匙串中`,
    cliUnreadable: (path) => `无法读取 ${path}`,
    nothing: (appPath, cliPath) => `没有登录：${appPath} 和 ${cliPath} 中都没有密钥，且未设置 ZCODE_API_KEY`,
  },

  upgrade: {
    failed: (reason) => `升级失败：${reason}`,
    fromSource: "upgrade 用来替换已安装的 zcode-acp-server 可执行文件，而当前是从源码运行。请改用 `git pull && bun run build`。",
    ownedBy: (path, origin, action) => `${path} ${origin}；${action}`,
    upgradeWith: (how) => `请这样升级：${how}`,
    how: {
      npm: (pkg) => `\`npm install -g ${pkg}@latest\`（通过 \`npx\` 运行的话：\`npx -y ${pkg}@latest\`）`,
      homebrew: (formula) => `\`brew upgrade ${formula}\``,
      zed: "Zed 会自行更新它从 ACP 注册中心安装的智能体，这里无需操作",
      jetbrains: "该开发工具会自行更新它从 ACP 注册中心安装的智能体（见 `Settings | Tools | AI Assistant | Agents`）",
    },
    notAVersion: (raw) => `'${raw}' 不是版本号（应形如 0.2.0 或 v0.2.0）`,
    noRelease: (platform) => `没有为 ${platform} 构建的发行版`,
    latestRelease: "最新发行版",
    downloading: (asset, release, base) => `正在从 ${base} 下载 ${asset}（${release}）`,
    noChecksum: (release, asset) => `${release} 的 SHA256SUMS 中没有 ${asset} 的条目；拒绝安装未经校验的文件`,
    checksumMismatch: (asset, expected, actual) =>
      `${asset} 的校验和不匹配：应为 ${expected}，实际为 ${actual}；下载的文件已损坏或被篡改，未安装任何内容`,
    checksumVerified: (sha) => `校验和验证通过（sha256 ${sha}）`,
    cannotWrite: (dir, reason) => `无法写入 ${dir}：${reason}。请用有写权限的账户重新运行，或用 \`install.sh\` 重新安装。`,
    doesNotRun: (asset) => `下载的 ${asset} 无法在本机运行（--version 失败）；未安装任何内容`,
    alreadyAt: (version) => `已经是 ${version}，无需升级。`,
    cannotReplace: (target, reason) => `无法替换 ${target}：${reason}`,
    replacedBadVersion: (target, printed) => `${target} 已被替换，但它的 --version 输出为 ${printed}`,
    upgraded: (target, from, to) => `已升级 ${target}：${from} -> ${to}`,
    downgraded: (target, from, to) => `已降级 ${target}：${from} -> ${to}`,
    progress: (received, total, percent) =>
      `  ${received}${total ? ` / ${total}` : ""} MB${percent !== undefined ? `（${percent}%）` : ""}`,
    probeTimedOut: (asset, seconds) => `下载的 ${asset} 没有在 ${seconds} 秒内响应 --version（已被终止）；未安装任何内容`,
    downloadTooBig: (url, mib) => `${url} 超过 ${mib} MiB，远大于一个发行版；未安装任何内容`,
    extractTooBig: (mib) => `压缩包解压后超过 ${mib} MiB，远大于一个发行版；已停止解压，未安装任何内容`,
    downloadFailed: (url, reason) => `下载 ${url} 失败：${reason}`,
    notFound: (url) => `${url} 不存在（404）：这个版本是否发布了本平台的构建？`,
    httpFailed: (url, status) => `下载 ${url} 失败：HTTP ${status}`,
    noBinaryInArchive: (name) => `压缩包中没有 ${name}`,
    tarFailed: (reason) => `\`tar\` 无法解压该压缩包：${reason}`,
  },
};
