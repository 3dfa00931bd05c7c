// The compiled binary's command line in Chinese: --help, usage errors,
// doctor (against the simulator) and upgrade say nothing in English beyond
// paths, versions, flags, env names, kept names and what citty prints itself;
// the language comes from --lang, ZCODE_ACP_LANG, the ZCode app's setting or
// the locale, in that order.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { cli as zh } from "../../src/i18n/zh/cli.ts";
import { englishLeft } from "../support/english-left.ts";
import { BRIDGE_BIN, fakeBinary, run, serveFiles, sha256, SIM_BIN, tarGz } from "./cli-support.ts";

let tmp: string;
/** Signed in (a GLM Coding Plan provider with a key), no language setting. */
let home: string;
/** Signed in, and the ZCode app set to Chinese. */
let zhAppHome: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-cli-zh-"));
  home = join(tmp, "home");
  zhAppHome = join(tmp, "zh-app-home");
  for (const h of [home, zhAppHome]) {
    mkdirSync(join(h, ".zcode/v2"), { recursive: true });
    writeFileSync(
      join(h, ".zcode/v2/config.json"),
      JSON.stringify({ provider: { "builtin:zai-coding-plan": { name: "Z.ai Coding Plan", options: { apiKey: "sk-test" } } } }),
    );
  }
  writeFileSync(join(zhAppHome, ".zcode/v2/setting.json"), JSON.stringify({ localePreference: "zh-CN", locale: "en-US" }));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Small explicit environments: the developer's own locale must not leak in. */
const env = (extra: Record<string, string> = {}) => ({ PATH: "/usr/bin:/bin", HOME: home, ...extra });

const CJK = /[\u4e00-\u9fff]/;

/**
 * englishLeft for output that mixes Chinese with paths: full-width
 * punctuation ends a word as a space does (englishLeft knows a path only
 * after a space), and release asset names are ids.
 */
function englishIn(text: string): string[] {
  return englishLeft(
    text.replace(/[\u3000-\u303f\uff00-\uffef]/g, (c) => ` ${c} `).replace(/zcode-acp-server-[\w-]+\.(?:tar\.gz|zip)/g, " "),
  );
}

/** --help without what citty prints itself: the USAGE line, headings, placeholders and positional names. */
function helpWords(text: string): string {
  return text
    .split("\n")
    .filter((l) => !/^(USAGE|ARGUMENTS|OPTIONS|COMMANDS)\b/.test(l))
    .join("\n")
    .replace(/<[^>]*>/g, " ")
    .replace(/\((zcode-acp-server[^)]*) v[\d.]+\)/g, " ")
    .replace(/^\s+[A-Z]+\s{2,}/gm, " ");
}

/** Text with its line breaks and blanks removed: --help wraps descriptions to 80 columns. */
function squash(text: string): string {
  return text.replace(/\s+/g, "");
}

/** doctor's report without the editor snippets (JSON, kept as they are). */
function withoutSnippets(text: string): string {
  return text.replace(/^\{\n[\s\S]*?^\}$/gm, " ");
}

describe("--help in Chinese", () => {
  test("--help --lang zh: every flag, the commands and citty's closing line in Chinese", async () => {
    const r = await run([BRIDGE_BIN, "--help", "--lang", "zh"], { env: env() });
    expect(r.code).toBe(0);
    for (const name of [
      "zcode-bin",
      "zcode-node",
      "log-level",
      "log-file",
      "lang",
      "mode",
      "model",
      "trace",
      "auto-compact",
      "no-app-history",
      "max-line-bytes",
      "max-message-bytes",
      "version",
    ] as const) {
      expect(r.stdout).toContain(`--${name}`);
      expect(squash(r.stdout)).toContain(squash(zh.flags[name]));
    }
    expect(squash(r.stdout)).toContain(squash(zh.commands["zcode-acp-server"]));
    expect(squash(r.stdout)).toContain(squash(zh.commands.doctor));
    expect(squash(r.stdout)).toContain(squash(zh.commands.upgrade));
    expect(r.stdout).toContain("查看某个命令的详细说明");
    expect(r.stdout).not.toContain("for more information");
    expect(englishIn(helpWords(r.stdout))).toEqual([]);
  });

  test("doctor --help (ZCODE_ACP_LANG=zh) and upgrade --help (--lang=zh): their flags and argument in Chinese", async () => {
    const d = await run([BRIDGE_BIN, "doctor", "--help"], { env: env({ ZCODE_ACP_LANG: "zh" }) });
    expect(d.code).toBe(0);
    expect(squash(d.stdout)).toContain(squash(zh.commands.doctor));
    expect(squash(d.stdout)).toContain(squash(zh.flags["zcode-bin"]));
    expect(squash(d.stdout)).not.toContain(squash(zh.flags.mode));
    expect(englishIn(helpWords(d.stdout))).toEqual([]);

    const u = await run([BRIDGE_BIN, "upgrade", "--lang=zh", "--help"], { env: env() });
    expect(u.code).toBe(0);
    expect(squash(u.stdout)).toContain(squash(zh.commands.upgrade));
    expect(squash(u.stdout)).toContain(squash(zh.arguments.version));
    expect(squash(u.stdout)).toContain(squash(zh.flags["log-level"]));
    expect(englishIn(helpWords(u.stdout))).toEqual([]);
  });
});

describe("usage errors in Chinese", () => {
  test("ZCODE_ACP_LANG=zh and an unknown flag: the error and the hint in Chinese, nothing on stdout, exit 2", async () => {
    const r = await run([BRIDGE_BIN, "--bogus"], { env: env({ ZCODE_ACP_LANG: "zh" }) });
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: "zcode-acp-server: 未知选项 --bogus\n运行 'zcode-acp-server --help' 查看用法。\n",
    });
  });

  test("a bad value, a subcommand's unknown flag and an unknown command, with --lang zh anywhere in argv", async () => {
    const level = await run([BRIDGE_BIN, "--log-level", "loud", "--lang", "zh"], { env: env() });
    expect(level.code).toBe(2);
    expect(level.stderr).toContain("--log-level：未知的日志级别 'loud'（可选值：silent、error、warn、info、debug、trace）");
    const doctor = await run([BRIDGE_BIN, "doctor", "--mode", "yolo", "--lang=zh"], { env: env() });
    expect(doctor.code).toBe(2);
    expect(doctor.stderr).toBe("zcode-acp-server: 未知选项 --mode\n运行 'zcode-acp-server doctor --help' 查看用法。\n");
    const command = await run([BRIDGE_BIN, "serve-please"], { env: env({ LANG: "zh_CN.UTF-8" }) });
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("未知命令 'serve-please'（可用命令：doctor, login, logout, upgrade）");
  });

  test("--lang fr is a usage error: in English by default, in Chinese when the locale is Chinese", async () => {
    const plain = await run([BRIDGE_BIN, "--lang", "fr"], { env: env() });
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe("");
    expect(plain.stderr).toContain("--lang: 'fr' is not a language the bridge speaks (zh or en)");
    const zhLocale = await run([BRIDGE_BIN, "doctor", "--lang", "fr"], { env: env({ LANG: "zh_CN.UTF-8" }) });
    expect(zhLocale.code).toBe(2);
    expect(zhLocale.stderr).toContain("--lang：'fr' 不是桥接程序支持的语言");
    const badEnv = await run([BRIDGE_BIN, "--help"], { env: env({ ZCODE_ACP_LANG: "klingon" }) });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain("ZCODE_ACP_LANG: 'klingon' is not a language");
  });
});

describe("doctor in Chinese against the simulator", () => {
  test("all well: every line Chinese except paths, versions and kept names; the language and its source; exit 0", async () => {
    const r = await run([BRIDGE_BIN, "doctor"], {
      env: env({ ZCODE_BIN: SIM_BIN, ZCODE_SIM_VERSION: "0.15.3", ZCODE_ACP_LANG: "zh" }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`zcode-acp-server ${pkg.version} 环境检查（doctor）`);
    expect(r.stdout).toContain("正常  语言：简体中文（由环境变量 ZCODE_ACP_LANG 指定）");
    expect(r.stdout).toContain(`正常  ZCode CLI：${SIM_BIN}（由 ZCODE_BIN / --zcode-bin 指定）`);
    expect(r.stdout).toContain("正常  ZCode 版本：0.15.3（受支持）");
    expect(r.stdout).toContain("所有检查均已通过。");
    expect(r.stdout).toContain('"agent_servers"');
    expect(englishIn(withoutSnippets(r.stdout))).toEqual([]);
    expect(r.stderr).toBe("");
  });

  test("failures and a PATH warning: verdicts, details and fixes in Chinese; exit 1", async () => {
    const other = join(tmp, "impostor");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "zcode-acp-server"), "#!/bin/sh\necho 0.0.9\n");
    chmodSync(join(other, "zcode-acp-server"), 0o755);
    const unsigned = join(tmp, "unsigned-home");
    mkdirSync(unsigned, { recursive: true });
    const r = await run([BRIDGE_BIN, "doctor", "--lang", "zh"], {
      env: { PATH: `${other}:/usr/bin:/bin`, HOME: unsigned, ZCODE_BIN: SIM_BIN, ZCODE_SIM_VERSION: "0.14.7" },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `警告  PATH：${join(other, "zcode-acp-server")} 在 PATH 中排在最前面，它是版本为 0.0.9 的 zcode-acp-server，而不是 ${pkg.version}，`,
    );
    expect(r.stdout).toContain("失败  ZCode 版本：0.14.7 过旧（需要 0.14.8 或更高版本）");
    expect(r.stdout).toContain(
      `失败  ZCode 登录：没有登录：${join(unsigned, ".zcode/v2/config.json")} 和 ${join(unsigned, ".zcode/v2/credentials.json")} 中都没有密钥`,
    );
    expect(r.stdout).toContain("      解决办法：用 `zcode-acp-server login` 登录");
    expect(r.stdout).toContain("2 项检查未通过，请按上面的解决办法处理。");
    expect(englishIn(withoutSnippets(r.stdout))).toEqual([]);
  });
});

describe("where the language comes from", () => {
  test("LANG=zh_CN.UTF-8 alone picks Chinese, and doctor says so", async () => {
    const r = await run([BRIDGE_BIN, "doctor"], { env: env({ ZCODE_BIN: SIM_BIN, LANG: "zh_CN.UTF-8" }) });
    expect(r.stdout).toContain("正常  语言：简体中文（取自系统区域设置 `LANG=zh_CN.UTF-8`）");
    expect(r.code).toBe(0);
  });

  test("the ZCode app's localePreference zh-CN picks Chinese over an English locale, naming the file", async () => {
    const r = await run([BRIDGE_BIN, "doctor"], {
      env: env({ HOME: zhAppHome, ZCODE_BIN: SIM_BIN, LANG: "en_US.UTF-8" }),
    });
    expect(r.stdout).toContain(`正常  语言：简体中文（取自 ZCode 应用的设置 ${join(zhAppHome, ".zcode/v2/setting.json")}）`);
    const help = await run([BRIDGE_BIN, "--help"], { env: env({ HOME: zhAppHome }) });
    expect(squash(help.stdout)).toContain(squash(zh.flags.lang));
  });

  test("--lang en wins over the app's setting, ZCODE_ACP_LANG=en too", async () => {
    const flag = await run([BRIDGE_BIN, "doctor", "--lang", "en"], { env: env({ HOME: zhAppHome, ZCODE_BIN: SIM_BIN }) });
    expect(flag.stdout).toContain("ok    Language: en (from --lang)");
    expect(flag.stdout).toContain("All checks passed.");
    expect(flag.stdout).not.toMatch(CJK);
    const variable = await run([BRIDGE_BIN, "--bogus"], { env: env({ HOME: zhAppHome, ZCODE_ACP_LANG: "en" }) });
    expect(variable.stderr).toContain("unknown option --bogus");
  });

  test("nothing chose: English, and doctor says it is the default", async () => {
    const r = await run([BRIDGE_BIN, "doctor"], { env: env({ ZCODE_BIN: SIM_BIN, LANG: "C.UTF-8" }) });
    expect(r.stdout).toContain("ok    Language: en (the default:");
    expect(r.stdout).not.toMatch(CJK);
  });
});

describe("upgrade in Chinese", () => {
  let srv: ReturnType<typeof serveFiles>;
  beforeAll(async () => {
    const archive = await tarGz("zcode-acp-server", fakeBinary("9.9.9"));
    const assets = ["linux-x64", "linux-x64-baseline", "linux-x64-musl", "linux-arm64", "linux-arm64-musl"].map(
      (id) => `zcode-acp-server-${id}.tar.gz`,
    );
    const files = new Map<string, Uint8Array>();
    files.set("/download/v9.9.9/SHA256SUMS", new TextEncoder().encode(assets.map((a) => `${sha256(archive)}  ${a}\n`).join("")));
    for (const a of assets) files.set(`/download/v9.9.9/${a}`, archive);
    srv = serveFiles(files);
  });
  afterAll(() => srv?.server.stop(true));

  /** A copy of the compiled bridge at `rel` under the temp dir. */
  function copyAt(rel: string): string {
    const p = join(tmp, rel);
    mkdirSync(dirname(p), { recursive: true });
    copyFileSync(BRIDGE_BIN, p);
    chmodSync(p, 0o755);
    return p;
  }

  test("progress and the result in Chinese", async () => {
    const bin = copyAt("standalone/zcode-acp-server");
    const r = await run([bin, "upgrade", "9.9.9"], { env: env({ ZCODE_ACP_LANG: "zh", ZCODE_ACP_DOWNLOAD_BASE: srv.base }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`正在从 ${srv.base} 下载 zcode-acp-server-linux-`);
    expect(r.stdout).toContain("校验和验证通过（sha256 ");
    expect(r.stdout).toContain(`已升级 ${bin}：${pkg.version} -> 9.9.9`);
    expect(englishIn(r.stdout)).toEqual([]);
    expect(r.stderr).toBe("");
  });

  test("a refusal (an npm install) and an error (no such version) in Chinese, on stderr, exit 1", async () => {
    const npm = copyAt("npm/lib/node_modules/@zcode-acp/server/bin/zcode-acp-server");
    const before = readFileSync(npm);
    const refused = await run([npm, "upgrade"], { env: env({ LANG: "zh_CN.UTF-8", ZCODE_ACP_DOWNLOAD_BASE: srv.base }) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `zcode-acp-server: 升级失败：${npm} 由 npm 安装（\`@zcode-acp/server\`）；请这样升级：\`npm install -g @zcode-acp/server@latest\``,
    );
    expect(englishIn(refused.stderr)).toEqual([]);
    expect(readFileSync(npm).equals(before)).toBe(true);

    const bin = copyAt("standalone-2/zcode-acp-server");
    const missing = await run([bin, "upgrade", "8.8.8", "--lang", "zh"], { env: env({ ZCODE_ACP_DOWNLOAD_BASE: srv.base }) });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("不存在（404）：这个版本是否发布了本平台的构建？");
    expect(englishIn(missing.stderr)).toEqual([]);
    const bad = await run([bin, "upgrade", "../../etc", "--lang", "zh"], { env: env({ ZCODE_ACP_DOWNLOAD_BASE: srv.base }) });
    expect(bad.stderr).toContain("'../../etc' 不是版本号（应形如 0.2.0 或 v0.2.0）");
  });
});
