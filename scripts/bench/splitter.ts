// Line splitter benchmark (issue 2). Measures, in one run and through a real
// pipe (`cat` of a temp file), our splitter against the pipe-read floor, a
// naive TextDecoder + split('\n') with carry-over, and node:readline, each
// alone and with JSON.parse per line; then one 64 MiB line with and without
// the line cap. Every variant runs in its own child process so its peak RSS
// is its own.
//
//   bun scripts/bench/splitter.ts            # full run, prints the table
//   bun scripts/bench/splitter.ts --quick    # ~1/10 of the data
import { spawn as nodeSpawn } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { LineSplitter, lines } from "../../src/lines.ts";

const MiB = 1024 * 1024;

interface VariantResult {
  variant: string;
  bytes: number;
  ms: number;
  lines: number;
  /** Lines seen after the 64 MiB line (long-line file only). */
  linesAfterHuge: number;
  overlong: number;
  maxRssMB: number;
}

// ---------------------------------------------------------------- data files

function dataDir(): string {
  const dir = join(tmpdir(), "zcode-acp-bench-splitter-v1");
  mkdirSync(dir, { recursive: true });
  return dir;
}

const TEXT = "héllo wörld ✓ 日本 — streamed text";

async function writeMixed(path: string, smallLines: number, bigLines: number): Promise<void> {
  const w = Bun.file(path).writer();
  const bigEvery = Math.floor(smallLines / (bigLines + 1));
  const bigPayload = `${"x".repeat(1000)}${TEXT}`.repeat(Math.floor(MiB / 1040));
  let big = 0;
  for (let i = 0; i < smallLines; i++) {
    // ~110 bytes, shaped like a real session/event frame.
    w.write(`{"method":"session/event","params":{"sessionId":"s1","seq":${i},"type":"x","payload":{"d":"${TEXT}"}}}\n`);
    if (big < bigLines && i > 0 && i % bigEvery === 0) {
      big++;
      w.write(`{"id":${i},"result":{"text":"${bigPayload}"}}\n`);
    }
    if (i % 10000 === 0) await w.flush();
  }
  await w.end();
}

async function writeHuge(path: string, hugeBytes: number): Promise<void> {
  const w = Bun.file(path).writer();
  for (let i = 0; i < 100; i++) w.write(`{"method":"before","params":{"i":${i}}}\n`);
  w.write(`{"id":1,"result":{"text":"`);
  const block = `${"y".repeat(4000)}${TEXT}`;
  let written = 0;
  const target = hugeBytes - 40;
  while (written < target) {
    const part = block.slice(0, Math.min(block.length, target - written));
    w.write(part);
    written += Buffer.byteLength(part);
    if (written % (4 * MiB) < 4100) await w.flush();
  }
  w.write(`"}}\n`);
  for (let i = 0; i < 1000; i++) w.write(`{"method":"after","params":{"i":${i}}}\n`);
  await w.end();
}

// ---------------------------------------------------------------- variants (child side)

type Reader = (file: string, parse: boolean, cap: number | undefined) => Promise<Omit<VariantResult, "variant" | "maxRssMB">>;

function catStream(file: string): ReadableStream<Uint8Array> {
  return Bun.spawn(["cat", file], { stdout: "pipe", stderr: "inherit", stdin: "ignore" }).stdout;
}

function counter(parse: boolean) {
  const st = { lines: 0, afterHuge: 0, hugeSeen: false, sink: 0 };
  const onLine = (line: string) => {
    st.lines++;
    if (parse) st.sink += JSON.parse(line) ? 1 : 0;
    if (line.length > 32 * MiB) st.hugeSeen = true;
    else if (line.charCodeAt(11) === 97 /* "after" */ && line.startsWith('{"method":"after"')) st.afterHuge++;
  };
  return { st, onLine };
}

const readers: Record<string, Reader> = {
  async floor(file) {
    const t0 = performance.now();
    let bytes = 0;
    for await (const chunk of catStream(file)) bytes += chunk.length;
    return { bytes, ms: performance.now() - t0, lines: 0, linesAfterHuge: 0, overlong: 0 };
  },
  async splitter(file, parse, cap) {
    const { st, onLine } = counter(parse);
    let overlong = 0;
    let bytes = 0;
    const t0 = performance.now();
    const s = new LineSplitter(onLine, {
      maxLineBytes: cap ?? Number.MAX_SAFE_INTEGER,
      onOverlong: () => overlong++,
    });
    const reader = catStream(file).getReader();
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      bytes += r.value.length;
      s.push(r.value);
    }
    s.end();
    return { bytes, ms: performance.now() - t0, lines: st.lines, linesAfterHuge: st.afterHuge, overlong };
  },
  async "splitter-iter"(file, parse, cap) {
    const { st, onLine } = counter(parse);
    let overlong = 0;
    const t0 = performance.now();
    for await (const line of lines(catStream(file), {
      maxLineBytes: cap ?? Number.MAX_SAFE_INTEGER,
      onOverlong: () => overlong++,
    }))
      onLine(line);
    return { bytes: statSync(file).size, ms: performance.now() - t0, lines: st.lines, linesAfterHuge: st.afterHuge, overlong };
  },
  async naive(file, parse) {
    const { st, onLine } = counter(parse);
    const dec = new TextDecoder();
    let carry = "";
    let bytes = 0;
    const t0 = performance.now();
    for await (const chunk of catStream(file)) {
      bytes += chunk.length;
      carry += dec.decode(chunk, { stream: true });
      const parts = carry.split("\n");
      carry = parts.pop() ?? "";
      for (const p of parts) if (p) onLine(p);
    }
    carry += dec.decode();
    if (carry) onLine(carry);
    return { bytes, ms: performance.now() - t0, lines: st.lines, linesAfterHuge: st.afterHuge, overlong: 0 };
  },
  async readline(file, parse) {
    const { st, onLine } = counter(parse);
    const t0 = performance.now();
    const child = nodeSpawn("cat", [file], { stdio: ["ignore", "pipe", "inherit"] });
    const rl = createInterface({ input: child.stdout!, crlfDelay: Infinity });
    for await (const line of rl) if (line) onLine(line);
    return { bytes: statSync(file).size, ms: performance.now() - t0, lines: st.lines, linesAfterHuge: st.afterHuge, overlong: 0 };
  },
};

async function runInChild(): Promise<void> {
  const [, , , name, file, parseArg, capArg] = process.argv;
  const reader = readers[name!];
  if (!reader || !file) throw new Error(`bad child invocation: ${process.argv.join(" ")}`);
  const cap = capArg && capArg !== "none" ? Number(capArg) : undefined;
  const r = await reader(file, parseArg === "parse", cap);
  const maxRssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ...r, maxRssMB })}\n`);
}

// ---------------------------------------------------------------- parent

async function measure(label: string, name: string, file: string, parse: boolean, cap?: number, repeats = 1): Promise<VariantResult> {
  let best: VariantResult | undefined;
  for (let i = 0; i < repeats; i++) {
    const p = Bun.spawn(
      [process.execPath, import.meta.path, "--child", name, file, parse ? "parse" : "plain", cap === undefined ? "none" : String(cap)],
      { stdout: "pipe", stderr: "inherit", stdin: "ignore" },
    );
    const out = await new Response(p.stdout).text();
    const code = await p.exited;
    if (code !== 0) throw new Error(`variant ${label} exited ${code}`);
    const r = { variant: label, ...(JSON.parse(out) as Omit<VariantResult, "variant">) };
    if (!best || r.ms < best.ms) best = r;
  }
  return best!;
}

const mbps = (r: VariantResult) => r.bytes / MiB / (r.ms / 1000);

export interface SplitterBenchResult {
  rows: VariantResult[];
  checks: { name: string; pass: boolean; detail: string }[];
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<SplitterBenchResult> {
  const quick = argv.includes("--quick");
  const repeats = quick ? 1 : 3;
  const dir = dataDir();
  const mixed = join(dir, quick ? "mixed-quick.jsonl" : "mixed.jsonl");
  const huge = join(dir, "huge64.jsonl");
  if (!existsSync(mixed)) {
    console.error(`generating ${mixed} ...`);
    await writeMixed(mixed, quick ? 100_000 : 1_000_000, quick ? 9 : 90);
  }
  if (!existsSync(huge)) {
    console.error(`generating ${huge} ...`);
    await writeHuge(huge, 64 * MiB);
  }
  const size = statSync(mixed).size;
  console.error(`mixed stream: ${(size / MiB).toFixed(0)} MiB; 64 MiB line file: ${(statSync(huge).size / MiB).toFixed(0)} MiB`);

  const rows: VariantResult[] = [];
  const run = async (label: string, name: string, file: string, parse: boolean, cap?: number, rep = 1) => {
    const r = await measure(label, name, file, parse, cap, rep);
    rows.push(r);
    console.error(`  ${label}: ${r.ms.toFixed(0)} ms`);
    return r;
  };

  // The mixed-stream variants run round-robin, best of `repeats` each, so a
  // burst of load on the machine hits every variant alike.
  const mixedVariants: [label: string, name: string, parse: boolean][] = [
    ["pipe read (floor)", "floor", false],
    ["splitter", "splitter", false],
    ["splitter (async iterator)", "splitter-iter", false],
    ["naive split", "naive", false],
    ["node:readline", "readline", false],
    ["splitter + JSON.parse", "splitter", true],
    ["naive split + JSON.parse", "naive", true],
    ["node:readline + JSON.parse", "readline", true],
  ];
  const best = new Map<string, VariantResult>();
  for (let round = 0; round < repeats; round++) {
    for (const [label, name, parse] of mixedVariants) {
      const r = await measure(label, name, mixed, parse);
      const prev = best.get(label);
      if (!prev || r.ms < prev.ms) best.set(label, r);
    }
    console.error(`  round ${round + 1}/${repeats} done`);
  }
  for (const [label] of mixedVariants) rows.push(best.get(label)!);
  const [floor, ours, oursIter, naive, rl, oursP, naiveP, rlP] = mixedVariants.map(([label]) => best.get(label)!) as [
    VariantResult,
    VariantResult,
    VariantResult,
    VariantResult,
    VariantResult,
    VariantResult,
    VariantResult,
    VariantResult,
  ];

  const hugeOurs = await run("64 MiB line: splitter, no cap", "splitter", huge, false, undefined, repeats);
  const hugeNaive = await run("64 MiB line: naive split", "naive", huge, false, undefined, 1);
  const hugeCap32 = await run("64 MiB line: splitter, 32 MiB cap", "splitter", huge, false, 32 * MiB, 1);
  const hugeCap1 = await run("64 MiB line: splitter, 1 MiB cap", "splitter", huge, false, MiB, 1);

  console.log("");
  console.log("| variant | time ms | MB/s | vs floor | vs readline | vs naive | lines | peak RSS MB |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  const cmp = (r: VariantResult) => {
    const isHuge = r.variant.startsWith("64 MiB");
    const parse = r.variant.includes("JSON.parse");
    const base = isHuge ? undefined : { rl: parse ? rlP : rl, naive: parse ? naiveP : naive };
    const nv = isHuge ? hugeNaive : base!.naive;
    return {
      floor: isHuge ? "" : `${(mbps(r) / mbps(floor)).toFixed(2)}x`,
      rl: base ? `${(mbps(r) / mbps(base.rl)).toFixed(2)}x` : "",
      naive: `${(nv.ms / r.ms).toFixed(2)}x`,
    };
  };
  for (const r of rows) {
    const c = cmp(r);
    console.log(
      `| ${r.variant} | ${r.ms.toFixed(0)} | ${mbps(r).toFixed(0)} | ${c.floor} | ${c.rl} | ${c.naive} | ${r.lines} | ${r.maxRssMB.toFixed(0)} |`,
    );
  }

  const fastest = mbps(ours) >= mbps(oursIter) ? ours : oursIter;
  const checks = [
    {
      name: "split+decode >= 50% of pipe-read floor",
      pass: mbps(fastest) >= 0.5 * mbps(floor),
      detail: `${((mbps(fastest) / mbps(floor)) * 100).toFixed(0)}% (${mbps(fastest).toFixed(0)} vs ${mbps(floor).toFixed(0)} MB/s)`,
    },
    {
      name: ">= 2x node:readline",
      pass: mbps(fastest) >= 2 * mbps(rl),
      detail: `${(mbps(fastest) / mbps(rl)).toFixed(2)}x (with JSON.parse: ${(mbps(oursP) / mbps(rlP)).toFixed(2)}x)`,
    },
    {
      name: "faster than naive on the mixed stream",
      pass: fastest.ms < naive.ms,
      detail: `${(naive.ms / fastest.ms).toFixed(2)}x (with JSON.parse: ${(naiveP.ms / oursP.ms).toFixed(2)}x)`,
    },
    {
      name: ">= 4x naive on the 64 MiB line",
      pass: hugeNaive.ms >= 4 * hugeOurs.ms,
      detail: `${(hugeNaive.ms / hugeOurs.ms).toFixed(2)}x (${hugeOurs.ms.toFixed(0)} vs ${hugeNaive.ms.toFixed(0)} ms)`,
    },
    {
      name: "with a 1 MiB cap the 64 MiB line is skipped, peak RSS < 80 MB, later lines arrive",
      pass: hugeCap1.overlong === 1 && hugeCap1.maxRssMB < 80 && hugeCap1.linesAfterHuge === 1000 && hugeCap1.lines === 1100,
      detail: `skipped ${hugeCap1.overlong}, peak RSS ${hugeCap1.maxRssMB.toFixed(0)} MB, ${hugeCap1.linesAfterHuge}/1000 later lines`,
    },
    {
      // The default cap buffers up to 32 MiB before it knows the line is too
      // long, so its peak is the 1 MiB-cap peak plus about 32 MiB.
      name: "with the default 32 MiB cap the 64 MiB line is skipped, RSS < 80 MB + 32 MiB, later lines arrive",
      pass: hugeCap32.overlong === 1 && hugeCap32.maxRssMB < 112 && hugeCap32.linesAfterHuge === 1000 && hugeCap32.lines === 1100,
      detail: `skipped ${hugeCap32.overlong}, peak RSS ${hugeCap32.maxRssMB.toFixed(0)} MB, ${hugeCap32.linesAfterHuge}/1000 later lines`,
    },
    {
      name: "all lines arrive (mixed stream, every variant agrees)",
      pass: [ours, oursIter, naive, rl].every((r) => r.lines === ours.lines) && hugeOurs.lines === 1101,
      detail: `${ours.lines} lines`,
    },
  ];
  console.log("");
  for (const c of checks) console.log(`${c.pass ? "PASS" : "FAIL"}  ${c.name}: ${c.detail}`);
  return { rows, checks };
}

if (import.meta.main) {
  if (process.argv[2] === "--child") await runInChild();
  else {
    const r = await main();
    process.exitCode = r.checks.every((c) => c.pass) ? 0 : 1;
  }
}
