// The command line's Chinese table: every string and every message function
// (called with neutral sample arguments) reads as Chinese with no English
// left outside code, paths, flags, env names and kept names; every flag and
// argument of every command is described in both tables, and flags.ts and
// commands.ts take their English from the en table (one source).
import { describe, expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import { doctorCommand, rootCommand, upgradeCommand } from "../../../src/cli/commands.ts";
import { doctorFlags, serveFlags, upgradeFlags } from "../../../src/cli/flags.ts";
import { cli as en } from "../../../src/i18n/en/cli.ts";
import { cli as zh } from "../../../src/i18n/zh/cli.ts";
import { englishLeft } from "../../support/english-left.ts";

const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/;

/** Entries that are names or layout in any language, so they have no Chinese of their own. */
const NOT_CHINESE = new Set(["doctor.labels.path", "doctor.labels.zcodeCli", "doctor.indent", "upgrade.how.homebrew"]);

/** Arguments for the functions that need more than neutral strings; each list is one call. */
const SAMPLES: Record<string, unknown[][]> = {
  "usage.unknownLogLevel": [["--log-level", "x1", ["x2", "x3"]]],
  "usage.notAModeName": [["--mode", "x1", ["plan", "yolo"]]],
  "usage.notAProtocol": [["--zcode-protocol", "x1", ["auto", "legacy", "v4"]]],
  "usage.autoCompactTooLow": [
    ["--auto-compact", "80", 10_000, "80%"],
    ["--auto-compact", "5000", 10_000, undefined],
  ],
  "doctor.failed": [[2]],
  "doctor.pathAhead": [
    ["/opt/x1/zcode-acp-server", true, "x2"],
    ["/opt/x1/zcode-acp-server", false, "x2"],
  ],
  "doctor.language": [
    ["zh", "x1"],
    ["en", "x1"],
  ],
  "upgrade.httpFailed": [["https://example.invalid/x1", 503]],
};

/** Every leaf of a table as [dotted path, text], functions called with their samples (or x1, x2, ...: digits count as ids). */
function leaves(node: unknown, path: string[] = []): Array<[string, string]> {
  const key = path.join(".");
  if (typeof node === "string") return [[key, node]];
  if (typeof node === "function") {
    const calls = SAMPLES[key] ?? [Array.from({ length: node.length }, (_, i) => `x${i + 1}`)];
    return calls.map((args) => [key, String((node as (...a: unknown[]) => unknown)(...args))]);
  }
  if (node && typeof node === "object") {
    return Object.entries(node).flatMap(([k, v]) => leaves(v, [...path, k]));
  }
  throw new Error(`${key}: neither text, a function nor a table`);
}

const zhLeaves = leaves(zh);

describe("zh.cli reads as Chinese", () => {
  test("the walk reaches every part of the table", () => {
    expect(new Set(zhLeaves.map(([k]) => k))).toEqual(new Set(leaves(en).map(([k]) => k)));
    expect(zhLeaves.length).toBeGreaterThan(100);
    for (const k of Object.keys(SAMPLES)) expect(zhLeaves.some(([p]) => p === k)).toBe(true);
  });

  for (const [key, text] of zhLeaves) {
    test(key, () => {
      expect({ key, english: englishLeft(text) }).toEqual({ key, english: [] });
      if (!NOT_CHINESE.has(key)) expect(text).toMatch(CJK);
    });
  }

  test("only names and layout are the same in both languages", () => {
    const english = new Map(leaves(en));
    const same = zhLeaves.filter(([k, v]) => english.get(k) === v).map(([k]) => k);
    expect(same.sort()).toEqual(["doctor.indent", "doctor.labels.path", "doctor.labels.zcodeCli"]);
  });

  test("a verdict is four columns wide in both languages, so the check lines stay aligned", () => {
    const columns = (s: string) => [...s].reduce((n, c) => n + (CJK.test(c) ? 2 : 1), 0);
    for (const table of [en, zh]) for (const v of Object.values(table.doctor.verdicts)) expect(columns(v)).toBe(4);
  });
});

describe("every flag and argument is described in both tables", () => {
  const tables: Array<[string, ArgsDef]> = [
    ["serve", serveFlags],
    ["doctor", doctorFlags],
    ["upgrade", upgradeFlags],
  ];
  for (const [command, flags] of tables) {
    test(command, () => {
      for (const [name, def] of Object.entries(flags)) {
        const [enWords, zhWords]: [Record<string, string>, Record<string, string>] =
          def.type === "positional" ? [en.arguments, zh.arguments] : [en.flags, zh.flags];
        expect({ name, en: typeof enWords[name], zh: typeof zhWords[name] }).toEqual({ name, en: "string", zh: "string" });
        // One source: the flag table's English is the en table's entry.
        expect(def.description).toBe(enWords[name] as string);
        expect(zhWords[name]).not.toBe(enWords[name] as string);
      }
    });
  }

  test("no table entry describes a flag that does not exist", () => {
    const defs = tables.flatMap(([, flags]) => Object.entries(flags));
    const named = new Set(defs.filter(([, d]) => d.type !== "positional").map(([n]) => n));
    const positional = new Set(defs.filter(([, d]) => d.type === "positional").map(([n]) => n));
    expect(new Set(Object.keys(en.flags))).toEqual(named);
    expect(new Set(Object.keys(en.arguments))).toEqual(positional);
  });

  test("the commands' descriptions come from the en table and are in zh too", () => {
    for (const cmd of [rootCommand, doctorCommand, upgradeCommand]) {
      const meta = cmd.meta as { name: keyof typeof en.commands; description: string };
      expect(meta.description).toBe(en.commands[meta.name]);
      expect(zh.commands[meta.name]).toMatch(CJK);
    }
  });
});
