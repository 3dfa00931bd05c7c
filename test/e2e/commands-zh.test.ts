// Every slash command in Chinese: the compiled bridge started with
// ZCODE_ACP_LANG=zh against the simulator's ZCode 0.15.3 (which has every
// command), each command run on its ordinary, usage and error paths, and
// every reply the bridge wrote checked for English left (englishLeft) and
// for Chinese. The menu (available_commands_update) is checked the same way.
//
// What the bridge did not write is taken out before the check, each piece
// named where it is used: the user's own words echoed back (a /steer text, a
// session title), ZCode's own words (its /goal answers, a model's label or
// why it is unavailable) and ids from the quota service.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Harness, type HarnessOptions, sharedBridge, withBridge } from "../support/acp-harness.ts";
import { englishLeft } from "../support/english-left.ts";
import { type PromptOutcome, chunkText, promptAndCollect, sessionWithOneTurn, waitForCommands } from "./commands-support.ts";

const CJK = /[\u3400-\u9fff]/;

/** `text` is Chinese once `notOurs` (words the bridge only passes on) are taken out. */
function expectChinese(text: string, notOurs: Array<string | RegExp> = []): void {
  let rest = text;
  for (const w of notOurs) rest = typeof w === "string" ? rest.split(w).join(" ") : rest.replace(w, " ");
  expect({ text, english: englishLeft(rest) }).toEqual({ text, english: [] });
  expect(rest).toMatch(CJK);
}

/** Runs a command: it answers end_turn, starts no model turn, says something, in Chinese. */
async function command(h: Harness, sessionId: string, text: string, notOurs: Array<string | RegExp> = []): Promise<PromptOutcome> {
  const out = await promptAndCollect(h, sessionId, text);
  expect(out.response.stopReason).toBe("end_turn");
  expect(out.frames.map((f) => f.method)).not.toContain("session/send");
  expect(out.text.length).toBeGreaterThan(0);
  expectChinese(out.text, notOurs);
  return out;
}

const zhOptions = (opts: HarnessOptions = {}): HarnessOptions => ({
  simVersion: "0.15.3",
  record: true,
  ...opts,
  env: { ZCODE_ACP_LANG: "zh", ...opts.env },
});
const zhBridge = (fn: (h: Harness) => Promise<void>, opts: HarnessOptions = {}) => withBridge(zhOptions(opts), fn);

// ZCode's own words in the simulator's model list: a label and why a model is unavailable.
const ZCODE_MODEL_WORDS = ["GLM-5.3 (1M context)", "Not included in your current plan"];

describe("slash commands in Chinese (ZCode 0.15.3)", () => {
  // zhBridge's options; each test starts sessions of its own.
  const bridge = sharedBridge(zhOptions());

  test("the menu: every description in Chinese, hints in Chinese but for what is typed", () =>
    bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await waitForCommands(h, sessionId);
      const list = h.updatesOfKind(sessionId, "available_commands_update").at(-1)!.availableCommands;
      expect(list.map((c) => c.name)).toEqual(["fork", "rewind", "goal", "compact", "steer", "mode", "model", "thought", "quota", "help"]);
      for (const c of list) expectChinese(c.description);
      const hints = Object.fromEntries(list.filter((c) => c.input).map((c) => [c.name, (c.input as { hint: string }).hint]));
      expect(hints).toEqual({
        rewind: "[新提示]",
        goal: "[目标 | replace <目标> | clear | pause | resume]",
        compact: "[摘要要求]",
        steer: "<指令>",
        mode: "<模式>",
        model: "<名称或 ID>",
        thought: "<级别>",
      });
    }));

  test("before any turn: usage lines, unknown values, nothing to fork or rewind, no turn to steer, no plan key, terminal-only, /help", () =>
    bridge.run(async (h) => {
      const { sessionId: sid } = await h.newSession();
      await waitForCommands(h, sid);

      expect((await command(h, sid, "/FORK")).text).toStartWith("暂时无法派生：此会话还没有 checkpoint。");
      expect((await command(h, sid, "/rewind")).text).toStartWith("没有可回退的内容：此会话还没有 checkpoint。");

      const steer = await command(h, sid, "/steer prefer tabs", ["prefer tabs"]);
      expect(steer.text).toContain("> prefer tabs");
      expect(steer.frames).toEqual([]);
      expect((await command(h, sid, "/steer")).text).toEndWith("用法：`/steer <指令>`");

      const goal = await command(h, sid, "/goal replace");
      expect(goal.text).toBe("`/goal replace` 需要给出新的目标。\n\n用法：`/goal [目标 | replace <目标> | clear | pause | resume]`");

      expect((await command(h, sid, "/mode TURBO")).text).toStartWith("未知的模式 `TURBO`。\n\n用法：`/mode <");
      expect((await command(h, sid, "/thought extreme")).text).toStartWith("未知的推理强度 `extreme`。");
      expect((await command(h, sid, "/mode")).text).toStartWith("当前模式：`build`。可选：`plan`、");
      expect((await command(h, sid, "/thought")).text).toStartWith("当前推理强度：`max`。");

      const models = await command(h, sid, "/model", ZCODE_MODEL_WORDS);
      expect(models.text).toContain("（当前）");
      expect(models.text).toContain("（不可用：Not included in your current plan）");
      const miss = await command(h, sid, "/model nope", ["nope"]);
      expect(miss.text).toEndWith("用法：`/model <名称或 ID>`");

      // The harness's HOME is empty: no ZCode app config, so no plan key.
      const quota = await command(h, sid, "/quota");
      expect(quota.text).toStartWith("未登录：ZCode 应用中没有 GLM Coding Plan 的登录信息");
      expect(quota.frames).toEqual([]);
      expect((await command(h, sid, "/quota now")).text).toBe("`/quota` 不接受参数。\n\n用法：`/quota`");

      for (const name of ["login", "plugins", "mcp", "effort", "new", "resume", "skill"]) {
        const out = await command(h, sid, `/${name}`);
        expect(out.text).toStartWith(`\`/${name}\` 需要在 ZCode 终端应用中使用`);
        expect(out.frames).toEqual([]);
      }

      const help = await command(h, sid, "/help");
      for (const usage of [
        "`/fork`",
        "`/goal [目标 | replace <目标>",
        "`/compact [摘要要求]`",
        "`/steer <指令>`",
        "`/model <名称或 ID>`",
        "`/quota`",
      ]) {
        expect(help.text).toContain(usage);
      }
      expect(help.text).not.toContain("不支持");
    }));

  test("after a turn: fork, compact (its tool call too), mode, thought, model, goal, rewind", () =>
    bridge.run(async (h) => {
      const sid = await sessionWithOneTurn(h);

      // The fork carries the session's title, which is the user's first prompt.
      const fork = await command(h, sid, "/fork", ["Plan the login page"]);
      expect(fork.text).toMatch(/^已从当前对话派生新会话 `[^`]+`：“Plan the login page”。/);

      for (const text of ["/compact", "/compact 保留接口决定"]) {
        const compact = await command(h, sid, text);
        expect(compact.text).toMatch(/^上下文已压缩。当前上下文用量：[\d,]+ \/ [\d,]+。$/);
        const tool = compact.updates.find((u) => u.sessionUpdate === "tool_call") as { title: string } | undefined;
        expect(tool?.title).toBe("正在压缩上下文");
      }

      // The goal first, in build mode, where ZCode sets to work on it: its
      // answer and the model's work are theirs; the line between is ours.
      const goal = await promptAndCollect(h, sid, "/goal Ship the login page");
      expect(goal.response.stopReason).toBe("end_turn");
      expect(goal.text).toMatch(/^Goal active\n[\s\S]*\n\n正在朝目标推进…\n\nEcho: Ship the login page/);
      // ZCode's answer alone ("Goal cleared."): nothing of ours to check.
      expect((await promptAndCollect(h, sid, "/goal clear")).response.stopReason).toBe("end_turn");

      expect((await command(h, sid, "/mode plan")).text).toBe("模式已设为 `plan`。");
      expect((await command(h, sid, "/thought low")).text).toBe("推理强度已设为 `low`。");
      expect((await command(h, sid, "/model glm-4.7")).text).toStartWith("已切换到模型 GLM-4.7 (");
      expect((await command(h, sid, "/model glm-4.7")).text).toStartWith("已经在使用 GLM-4.7 (");

      const rewind = await command(h, sid, "/rewind");
      expect(rewind.text).toMatch(/^已回退到最新的 checkpoint `[^`]+`：删除了 \d+ 条消息。/);
    }));

  test("/steer beside a running turn", () =>
    bridge.run(async (h) => {
      const sid = await sessionWithOneTurn(h);
      const before = h.received.updates.length;
      const turn = h.prompt(sid, "#scenario:slow n=100");
      await h.waitFor(
        () => h.received.updates.slice(before).some((u) => u.sessionId === sid && u.update.sessionUpdate === "agent_message_chunk"),
        "the slow turn to stream",
      );
      const steerAt = h.received.updates.length;
      const steer = await h.prompt(sid, "/steer use tabs, not spaces");
      expect(steer.stopReason).toBe("end_turn");
      const said = chunkText(h.received.updates.slice(steerAt).map((u) => u.update));
      expect(said).toContain("已用以下指令引导正在进行的回合：\n\n> use tabs, not spaces");
      expectChinese("已用以下指令引导正在进行的回合：\n\n> use tabs, not spaces", ["use tabs, not spaces"]);
      expect((await turn).stopReason).toBe("end_turn");
    }));
});

test("a CLI without /rewind and /steer (0.16.2): not supported, said in Chinese; /help marks both", () =>
  zhBridge(
    async (h) => {
      const sid = await sessionWithOneTurn(h);
      expect((await command(h, sid, "/rewind")).text).toBe("ZCode CLI 0.16.2 不支持 `/rewind`");
      expect((await command(h, sid, "/steer prefer tabs", ["prefer tabs"])).text).toBe("ZCode CLI 0.16.2 不支持 `/steer`");
      const help = await command(h, sid, "/help");
      expect(help.text.match(/（ZCode CLI 0\.16\.2 不支持）/g)).toHaveLength(2);
    },
    { simVersion: "0.16.2" },
  ));

// ---------------------------------------------------------------- /quota with a plan key

const tmp = mkdtempSync(join(tmpdir(), "zcode-quota-zh-"));
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    if (new URL(req.url).pathname === "/expired") return Response.json({ code: 401, msg: "token expired or incorrect", success: false });
    const now = Date.now();
    return Response.json({
      code: 200,
      success: true,
      data: {
        level: "pro",
        limits: [
          {
            type: "TOKENS_LIMIT",
            unit: 3,
            number: 5,
            usage: 12000,
            currentValue: 5710,
            remaining: 6290,
            nextResetTime: now + 2 * 3_600_000 + 14 * 60_000 + 30_000,
          },
          {
            type: "TOKENS_LIMIT",
            unit: 6,
            number: 1,
            usage: 60000,
            currentValue: 5710,
            remaining: 54290,
            nextResetTime: now + 4 * 86_400_000 + 30_000,
          },
          {
            type: "TIME_LIMIT",
            unit: 5,
            number: 1,
            usage: 4000,
            currentValue: 125,
            remaining: 3875,
            nextResetTime: now + 30 * 86_400_000,
            usageDetails: [{ modelCode: "search-prime", usage: 100 }],
          },
        ],
      },
    });
  },
});
afterAll(() => {
  server.stop(true);
  rmSync(tmp, { recursive: true, force: true });
});
const HOME = join(tmp, "home");
mkdirSync(join(HOME, ".zcode", "v2"), { recursive: true });
writeFileSync(
  join(HOME, ".zcode", "v2", "config.json"),
  JSON.stringify({
    provider: {
      "builtin:zai-coding-plan": {
        name: "Z.ai Coding Plan",
        options: { apiKey: "k".repeat(32), baseURL: "https://api.z.ai/api/coding/paas/v4" },
      },
    },
  }),
);
const quotaEnv = (path: string) => ({ HOME, ZCODE_ACP_QUOTA_URL: `http://127.0.0.1:${server.port}${path}`, TZ: "Asia/Shanghai" });

test("/quota with a plan key: the card and a refused key, in Chinese", () =>
  zhBridge(
    async (h) => {
      const { sessionId } = await h.newSession();
      const out = await promptAndCollect(h, sessionId, "/quota");
      // englishLeft skips fenced blocks, so the card's lines are checked without the fence.
      const card = out.text.replace(/^```text\n|\n```$/g, "");
      expect(out.text).toStartWith("```text\nGLM Coding Plan · Pro\n");
      expectChinese(card, ["search-prime"]);
      expect(card).toMatch(/^5 小时  █+░+   已用 48%$/m);
      expect(card).toMatch(/^每周    █+░+   已用 10%$/m);
      expect(card).toMatch(/^ {8}\d\d-\d\d \d\d:\d\d 重置（2 小时 14 分钟后） · 5,710 \/ 12,000$/m);
      expect(card).toMatch(/重置（4 天后） · 5,710 \/ 60,000$/m);
    },
    { env: quotaEnv("/ok") },
  ).then(() =>
    zhBridge(
      async (h) => {
        const { sessionId } = await h.newSession();
        const out = await command(h, sessionId, "/quota");
        expect(out.text).toStartWith("未登录或登录已过期：GLM Coding Plan 拒绝了 ZCode 应用为 Z.ai Coding Plan 保存的密钥。");
      },
      { env: quotaEnv("/expired") },
    ),
  ));
