import type { quota as en } from "../en/quota.ts";

// 额度 for quota, 用量 for usage, 重置 for a window's reset, 供应商 for a
// provider (the ZCode app's Settings → Models page lists them).

const UNITS = { minute: "分钟", hour: "小时", day: "天", week: "周" } as const;

export const quota: typeof en = {
  description: "查看 GLM Coding Plan 的用量（5 小时、每周和 MCP 额度）及各自的重置时间",
  noArguments: "`/quota` 不接受参数。",
  title: "GLM Coding Plan",
  labels: { five_hour: "5 小时", weekly: "每周", mcp: "MCP", tokens: "额度" },
  windowOf: (n, unit) => `${n} ${UNITS[unit]}`,
  used: (percent) => `已用 ${percent}%`,
  limitReached: "已达上限",
  amount: (used, limit) => `${used} / ${limit}`,
  resets: (when, inText) => (inText ? `${when} 重置（${inText}后）` : `${when} 重置`),
  duration: {
    days: (d, h) => (h > 0 ? `${d} 天 ${h} 小时` : `${d} 天`),
    hours: (h, m) => `${h} 小时 ${m} 分钟`,
    minutes: (m) => `${m} 分钟`,
    underAMinute: "不到 1 分钟",
  },
  notSignedIn:
    "未登录：ZCode 应用中没有 GLM Coding Plan 的登录信息（`~/.zcode/v2/config.json` 中没有已启用且带 API 密钥的 Z.ai 或 BigModel 供应商），`zcode login` 也没有保存套餐的 API 密钥，且当前不是设置了 ZCODE_API_KEY 的套餐模型。请用 `zcode-acp-server login` 登录（选择 API 密钥）或在 ZCode 应用中登录（设置 → 模型），再运行 `/quota`。",
  badOverride:
    "已设置 `ZCODE_ACP_QUOTA_URL`，但它不是 `http://` 或 `https://` 地址，因此 `/quota` 没有发出任何请求。请在编辑器的智能体配置中修正或删除它。",
  authError: (provider) =>
    `未登录或登录已过期：GLM Coding Plan 拒绝了 ZCode 应用为 ${provider} 保存的密钥。请在 ZCode 应用中重新登录（设置 → 模型），再运行 \`/quota\`。`,
  rateLimited: "额度服务当前正在限制请求频率。请等待一分钟后再运行 `/quota`。",
  unavailable: (why) => `暂时无法获取额度信息：${why}。请稍后再运行 \`/quota\`。`,
  reasons: {
    timeout: (seconds) => `额度服务在 ${seconds} 秒内没有响应`,
    network: "无法连接到额度服务",
    http: (status) => `额度服务返回了 HTTP ${status}`,
    refused: (code) => (code === undefined ? "额度服务拒绝了该请求" : `额度服务拒绝了该请求（错误码 ${code}）`),
    unreadable: "无法解析额度服务的响应",
    tooLarge: (kib) => `额度服务的响应超过 ${kib} KB，远大于正常的额度信息，因此未读取`,
  },
  push: {
    crossed: (label, percent, resets) => `GLM Coding Plan：${label} 额度已用 ${percent}%${resets ? `，${resets}` : ""}。`,
    spent: (windows) => `GLM Coding Plan 的额度已用完：${windows}。`,
    spentWindow: (label, resets) => `${label} 额度${resets ? ` ${resets}` : "已满"}`,
    spentUnknown: "GLM Coding Plan 的额度已用完；`/quota` 可查看各额度的重置时间。",
  },
};
