// The compiled binary's command line: version, help, strict flags (exit 2),
// flags over env, log file permissions.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { cli as cliEn } from "../../src/i18n/en/cli.ts";
import { BRIDGE_BIN, initializeRoundTrip, run, SIM_BIN } from "./cli-support.ts";

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-cli-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const baseEnv = () => ({ PATH: process.env.PATH, HOME: tmp, ZCODE_BIN: SIM_BIN });

test("--version prints the version alone", async () => {
  const r = await run([BRIDGE_BIN, "--version"], { env: baseEnv() });
  expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  // Also among other flags (they are still validated first).
  const r2 = await run([BRIDGE_BIN, "--log-level", "debug", "--version"], { env: baseEnv() });
  expect(r2.stdout).toBe(`${pkg.version}\n`);
});

test("--help lists every flag and command, without colour escapes in a pipe", async () => {
  const r = await run([BRIDGE_BIN, "--help"], { env: baseEnv() });
  expect(r.code).toBe(0);
  for (const word of [
    "--zcode-bin",
    "--zcode-node",
    "--log-level",
    "--log-file",
    "--mode",
    "--model",
    "--trace",
    "--version",
    "doctor",
    "upgrade",
    "ZCODE_BIN",
    "ZCODE_ACP_LOG_LEVEL",
    "ZCODE_ACP_MODEL",
  ]) {
    expect(r.stdout).toContain(word);
  }
  expect(r.stdout).not.toContain("\u001b[");
  const d = await run([BRIDGE_BIN, "doctor", "--help"], { env: baseEnv() });
  expect(d.code).toBe(0);
  expect(d.stdout).toContain("doctor");
});

test("--help fits 80 columns in a pipe, in English and in Chinese, and keeps every description", async () => {
  for (const args of [["--help"], ["--help", "--lang", "zh"], ["doctor", "--help"], ["upgrade", "--help", "--lang", "zh"]]) {
    const r = await run([BRIDGE_BIN, ...args], { env: baseEnv() });
    expect(r.code).toBe(0);
    const wide = r.stdout.split("\n").filter((l) => Bun.stringWidth(l) > 80 || l !== l.trimEnd());
    expect(wide).toEqual([]);
  }
  const r = await run([BRIDGE_BIN, "--help"], { env: baseEnv() });
  for (const d of Object.values(cliEn.flags)) expect(squash(r.stdout)).toContain(squash(d));
});

test("options work before a command as --help shows: [OPTIONS] doctor|upgrade", async () => {
  const before = await run([BRIDGE_BIN, "--zcode-bin", SIM_BIN, "--lang", "zh", "--log-level", "info", "doctor"], {
    env: { PATH: process.env.PATH, HOME: tmp },
  });
  const after = await run([BRIDGE_BIN, "doctor", "--zcode-bin", SIM_BIN, "--lang", "zh", "--log-level", "info"], {
    env: { PATH: process.env.PATH, HOME: tmp },
  });
  expect(before.stderr).not.toContain("unexpected argument");
  expect(before.stdout).toContain(SIM_BIN);
  expect(before.stdout).toContain("环境检查");
  expect(before.code).toBe(after.code);
  expect(before.stdout).toBe(after.stdout);
  // `--flag=value` and a value that looks like a command name stay values.
  const eq = await run([BRIDGE_BIN, `--zcode-bin=${SIM_BIN}`, "doctor"], { env: { PATH: process.env.PATH, HOME: tmp } });
  expect(eq.stdout).toContain(SIM_BIN);
  const upgradeHelp = await run([BRIDGE_BIN, "--lang", "en", "upgrade", "--help"], { env: baseEnv() });
  expect(squash(upgradeHelp.stdout)).toContain(squash(cliEn.arguments.version));
  // A serve-only flag before doctor is still refused, by doctor's table.
  const wrong = await run([BRIDGE_BIN, "--mode", "yolo", "doctor"], { env: baseEnv() });
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain("unknown option --mode");
  expect(wrong.stderr).toContain("zcode-acp-server doctor --help");
});

/** Text with its line breaks and blanks removed: --help wraps descriptions. */
function squash(text: string): string {
  return text.replace(/\s+/g, "");
}

const usageErrors: Array<[string, string[], Record<string, string>, string]> = [
  ["unknown flag", ["--bogus"], {}, "unknown option --bogus"],
  ["unknown short flag", ["-x"], {}, "unknown option -x"],
  ["bad --log-level", ["--log-level", "loud"], {}, "unknown log level 'loud'"],
  ["bad --log-level= form", ["--log-level=loud"], {}, "unknown log level 'loud'"],
  ["bad ZCODE_ACP_LOG_LEVEL", [], { ZCODE_ACP_LOG_LEVEL: "loud" }, "ZCODE_ACP_LOG_LEVEL: unknown log level"],
  ["flag without its value", ["--zcode-bin"], {}, "option --zcode-bin needs a value"],
  ["value swallowed by the next flag", ["--log-file", "--mode", "yolo"], {}, "option --log-file needs a value"],
  ["bad --mode", ["--mode", "no spaces"], {}, "is not a mode ZCode knows"],
  [
    "--mode ZCode does not know, named with the modes",
    ["--mode", "bogus"],
    {},
    "--mode: 'bogus' is not a mode ZCode knows (one of plan, build, edit, yolo, guarded, auto)",
  ],
  ["ZCODE_ACP_MODE ZCode does not know", [], { ZCODE_ACP_MODE: "Yolo" }, "ZCODE_ACP_MODE: 'Yolo' is not a mode ZCode knows"],
  [
    "--auto-compact 80 (the % forgotten): says why and suggests 80%",
    ["--auto-compact", "80"],
    {},
    "--auto-compact: '80' tokens is below 10k: ZCode's instructions and tools alone take thousands of tokens, so the conversation would be compacted after nearly every turn. For a percentage of the context window write 80%; or at least 10k tokens.",
  ],
  ["--auto-compact 5000 tokens: below the minimum", ["--auto-compact", "5000"], {}, "'5000' tokens is below 10k"],
  ["--auto-compact 9.9k: below the minimum", ["--auto-compact", "9.9k"], {}, "'9.9k' tokens is below 10k"],
  ["--auto-compact 1%: below the percent minimum", ["--auto-compact", "1%"], {}, "'1%' is below 10% of the context window"],
  ["--auto-compact 0.001%: below the percent minimum", ["--auto-compact", "0.001%"], {}, "'0.001%' is below 10% of the context window"],
  ["--auto-compact with a fractional token count", ["--auto-compact", "15000.5"], {}, "is not a token count"],
  ["blank --model", ["--model", "  "], {}, "is not a model name or id"],
  ["bad --zcode-protocol", ["--zcode-protocol", "v3"], {}, "--zcode-protocol: 'v3' is not a ZCode protocol (one of auto, legacy, v4)"],
  ["bad ZCODE_ACP_ZCODE_PROTOCOL", [], { ZCODE_ACP_ZCODE_PROTOCOL: "new" }, "ZCODE_ACP_ZCODE_PROTOCOL: 'new' is not a ZCode protocol"],
  ["ZCODE_ACP_MODEL with a control character", [], { ZCODE_ACP_MODEL: "glm\u0007" }, "ZCODE_ACP_MODEL: 'glm"],
  ["bad --max-line-bytes", ["--max-line-bytes", "12x"], {}, "is not a byte count"],
  [
    "bad --auto-compact",
    ["--auto-compact", "lots"],
    {},
    "--auto-compact: 'lots' is not a token count (like 150000 or 150k) or a percentage",
  ],
  ["--auto-compact over 100%", ["--auto-compact", "120%"], {}, "is not a token count"],
  ["bad ZCODE_ACP_AUTO_COMPACT", [], { ZCODE_ACP_AUTO_COMPACT: "0" }, "ZCODE_ACP_AUTO_COMPACT: '0' tokens is below 10k"],
  ["unknown command", ["serve-please"], {}, "unknown command 'serve-please'"],
  ["unknown command after a flag", ["--log-level", "info", "serve-please"], {}, "unknown command 'serve-please'"],
  ["unknown doctor flag", ["doctor", "--mode", "yolo"], {}, "unknown option --mode"],
  ["value on a boolean flag", ["--version=yes"], {}, "takes no value"],
];
for (const [name, args, env, message] of usageErrors) {
  test(`${name}: message on stderr, nothing on stdout, exit 2`, async () => {
    const r = await run([BRIDGE_BIN, ...args], { env: { ...baseEnv(), ...env } });
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("--help");
    expect(r.stdout).toBe("");
    expect(r.code).toBe(2);
  });
}

test("--auto-compact accepts N%, N and Nk tokens at or above the minimum: the bridge serves", async () => {
  for (const value of ["80%", "10000", "150k", "12.5k"]) {
    const p = Bun.spawn([BRIDGE_BIN, "--auto-compact", value, "--mode", "plan"], {
      env: baseEnv(),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    p.stdin.end();
    expect(await p.exited).toBe(0);
    expect(await new Response(p.stderr).text()).not.toContain("auto-compact");
  }
});

test("a flag wins over its env variable (a bad env value is then irrelevant)", async () => {
  // Without the flag the bad env value is a usage error...
  const bad = await run([BRIDGE_BIN], { env: { ...baseEnv(), ZCODE_ACP_LOG_LEVEL: "loud" } });
  expect(bad.code).toBe(2);
  // ...with it, the bridge serves.
  const p = Bun.spawn([BRIDGE_BIN, "--log-level", "error"], {
    env: { ...baseEnv(), ZCODE_ACP_LOG_LEVEL: "loud" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  p.stdin.end();
  expect(await p.exited).toBe(0);
});

test("--log-file is created with mode 0600 even under umask 000", async () => {
  const logFile = join(tmp, "bridge.log");
  const env = { ...baseEnv(), LOGFILE: logFile, BIN: BRIDGE_BIN };
  const p = Bun.spawn(["sh", "-c", 'umask 000; exec "$BIN" --log-level debug --log-file "$LOGFILE"'], {
    env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  p.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n');
  await p.stdin.flush();
  const reader = p.stdout.getReader();
  await reader.read();
  reader.releaseLock();
  p.stdin.end();
  expect(await p.exited).toBe(0);
  expect(existsSync(logFile)).toBe(true);
  expect(statSync(logFile).mode & 0o777).toBe(0o600);
});

test("ZCODE_ACP_LOG_FILE works like --log-file; an unwritable path is a usage error", async () => {
  const bad = await run([BRIDGE_BIN, "--log-file", join(tmp, "no/such/dir/x.log")], { env: baseEnv() });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("cannot open log file");
  const logFile = join(tmp, "env.log");
  const init = await initializeRoundTrip(BRIDGE_BIN, { ...baseEnv(), ZCODE_ACP_LOG_FILE: logFile, ZCODE_ACP_LOG_LEVEL: "debug" });
  expect(init.response.id).toBe(1);
  expect(statSync(logFile).mode & 0o777).toBe(0o600);
});

test("serving with an empty environment answers initialize first thing on stdout", async () => {
  const init = await initializeRoundTrip(BRIDGE_BIN, {});
  expect(init.response.id).toBe(1);
  expect(init.code).toBe(0);
});
