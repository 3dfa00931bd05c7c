import type { tools as en } from "../en/tools.ts";

/** The place of a search, before its verb ("在 src 中搜索"). */
const where = (path?: string) => (path ? `在 ${path} 中` : "");

export const tools: typeof en = {
  tool: "工具",
  subagent: "子代理",
  runCommand: "运行命令",
  readFile: "读取文件",
  read: (path, from, to) =>
    `读取 ${path}${to !== undefined ? `（第 ${from}–${to} 行）` : from !== undefined ? `（从第 ${from} 行起）` : ""}`,
  editFile: "编辑文件",
  edit: (path) => `编辑 ${path}`,
  writeFile: "写入文件",
  write: (path) => `写入 ${path}`,
  grep: (pattern, path, glob) => `${where(path)}搜索 "${pattern}"${glob ? `（${glob}）` : ""}`,
  find: (pattern, path, glob) => `${where(path)}查找文件 "${pattern}"${glob ? `（${glob}）` : ""}`,
  fetch: (url) => `获取 ${url}`,
  fetchNoUrl: "获取网页",
  webSearch: (query) => `网络搜索 “${query}”`,
  webSearchNoQuery: "网络搜索",
  runAgent: (type) => `运行子智能体 ${type}`,
  runSubagent: "运行子智能体",
  readyToCode: "准备开始编码？",
  planApproved: "计划已批准。",
  planNotApproved: "计划未获批准。",
  planFirst: "先制定计划",
  updatePlan: "更新计划",
  readPlan: "查看计划",
  askUser: "询问用户",
  ask: (what) => `询问：${what}`,

  noOutput: "（无输出）",
  exitCode: (code) => `退出码 ${code}`,
  moreCharacters: (count) => `…（另有 ${count} 个字符未显示）`,
  moreItems: (count) => `… 另有 ${count} 项`,
  resultsTruncated: "…（结果已截断）",
  foundFiles: (count) => `找到 ${count} 个文件`,

  failed: "工具执行失败",
  rejected: "已拒绝",
  denied: (reason) => `未获允许：${reason}`,
  cancelled: "已取消",
  turnEnded: "本轮在此工具完成之前就结束了",
  turnFailed: "本轮执行失败",
  didNotRun: "此工具未运行",
};
