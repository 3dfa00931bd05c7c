import { describe, expect, test } from "bun:test";
import { LineSplitter, lines, readLines } from "../../src/lines.ts";
// Deterministic PRNG (mulberry32), so a failure can be replayed from its seed.
import { rng } from "../simulator/fuzz.ts";

// Property tests: the splitter must agree with an obviously-correct reference
// on any chunking of any input.

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The reference: whole input at once, split on \n, byte-length cap. */
function reference(bytes: Uint8Array, max: number): { lines: string[]; overlong: number[] } {
  const out: string[] = [];
  const overlong: number[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 10) {
      if (i === bytes.length && start === i) break;
      const len = i - start;
      if (len > max) overlong.push(len);
      else {
        let end = i;
        if (end > start && bytes[end - 1] === 13) end--;
        if (end > start) out.push(dec.decode(bytes.subarray(start, end)));
      }
      start = i + 1;
    }
  }
  return { lines: out, overlong };
}

const PIECES = ["a", "é", "日本", "✓", "😀", "\n", "\r\n", "\n\n", '{"k":1}', "\r", " ", "xxxxxxxxxxxxxxxx"];

function randomInput(r: () => number, maxPieces: number): Uint8Array {
  let s = "";
  const n = Math.floor(r() * maxPieces);
  for (let i = 0; i < n; i++) {
    if (r() < 0.02) s += "L".repeat(Math.floor(r() * 300)); // occasionally a long line
    s += PIECES[Math.floor(r() * PIECES.length)]!;
  }
  return enc.encode(s);
}

function randomChunks(bytes: Uint8Array, r: () => number, mode: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  while (i < bytes.length) {
    const size = mode === 0 ? 1 : mode === 1 ? 1 + Math.floor(r() * 8) : 1 + Math.floor(r() * 200);
    // Fresh buffers, as Bun's pipes hand them out.
    out.push(bytes.slice(i, i + size));
    i += size;
  }
  return out;
}

function runSplitter(chunks: Uint8Array[], max: number): { lines: string[]; overlong: number[] } {
  const got: string[] = [];
  const overlong: number[] = [];
  const s = new LineSplitter((l) => got.push(l), { maxLineBytes: max, onOverlong: (b) => overlong.push(b) });
  for (const c of chunks) s.push(c);
  s.end();
  return { lines: got, overlong };
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(chunks[i++]!);
      else c.close();
    },
  });
}

describe("LineSplitter", () => {
  test("agrees with the reference on random inputs and chunkings (1-byte, small, medium chunks; caps)", () => {
    for (let seed = 1; seed <= 600; seed++) {
      const r = rng(seed);
      const input = randomInput(r, 80);
      const max = [Number.MAX_SAFE_INTEGER, 64, 17, 5][seed % 4]!;
      const want = reference(input, max);
      const got = runSplitter(randomChunks(input, r, seed % 3), max);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        throw new Error(`seed ${seed}, max ${max}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
      }
    }
  });

  test("UTF-8 sequences split across chunks decode intact", () => {
    const text = "héllo wörld ✓ 日本 😀\n";
    const bytes = enc.encode(text.repeat(3));
    for (let cut = 1; cut < bytes.length; cut++) {
      const got = runSplitter([bytes.slice(0, cut), bytes.slice(cut)], 1 << 20).lines;
      expect(got).toEqual(["héllo wörld ✓ 日本 😀", "héllo wörld ✓ 日本 😀", "héllo wörld ✓ 日本 😀"]);
    }
  });

  test("CRLF is stripped, empty lines (also bare \\r) skipped, a final line without newline kept", () => {
    const got = runSplitter([enc.encode("a\r\n\r\n\n\rb\r\n\r"), enc.encode("\nc")], 100).lines;
    expect(got).toEqual(["a", "\rb", "c"]);
  });

  test("an over-long line is skipped without buffering, reported once with its size, and the stream continues", () => {
    const long = "x".repeat(10_000);
    const input = enc.encode(`first\n${long}\nafter1\nafter2\n`);
    const chunks = randomChunks(input, rng(7), 2);
    const got = runSplitter(chunks, 1000);
    expect(got.lines).toEqual(["first", "after1", "after2"]);
    expect(got.overlong).toEqual([10_000]);
  });

  test("does not hold on to bytes of an over-long line", () => {
    const splitter = new LineSplitter(() => {}, { maxLineBytes: 100 });
    splitter.push(enc.encode("y".repeat(50)));
    for (let i = 0; i < 100; i++) splitter.push(enc.encode("y".repeat(1000)));
    // Private state is the honest place to look: the tail must be empty.
    const s = splitter as unknown as { tail: Uint8Array[]; tailBytes: number; skipping: number };
    expect(s.tail.length).toBe(0);
    expect(s.tailBytes).toBe(0);
    expect(s.skipping).toBe(100_050);
  });

  test("an over-long line at EOF is reported", () => {
    const overlong: number[] = [];
    const s = new LineSplitter(() => {}, { maxLineBytes: 3, onOverlong: (b) => overlong.push(b) });
    s.push(enc.encode("ok\nabcdef"));
    s.end();
    expect(overlong).toEqual([6]);
  });

  test("lines inside one chunk are views: the chunk is not copied", () => {
    // A line spanning chunks is copied once (the only copy); one inside a chunk never.
    const chunk = enc.encode('{"a":1}\n{"b":2}\n');
    const got: string[] = [];
    const s = new LineSplitter((l) => got.push(l));
    s.push(chunk);
    expect(got).toEqual(['{"a":1}', '{"b":2}']);
  });
});

describe("stream APIs", () => {
  const input = enc.encode("one\r\ntwo\n\nthree");
  const chunks = randomChunks(input, rng(3), 1);

  test("readLines (push/callback) delivers every line", async () => {
    const got: string[] = [];
    await readLines(streamOf(chunks), (l) => got.push(l));
    expect(got).toEqual(["one", "two", "three"]);
  });

  test("readLines holds reading while beforeRead() returns a pending promise", async () => {
    let pulls = 0;
    const s = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulls++;
          if (pulls > 3) c.close();
          else c.enqueue(enc.encode(`${pulls}\n`));
        },
      },
      { highWaterMark: 0 },
    );
    let release!: () => void;
    let gate: Promise<void> | undefined;
    const got: string[] = [];
    const done = readLines(
      s,
      (l) => {
        got.push(l);
        if (l === "1") gate = new Promise<void>((r) => (release = r));
      },
      { beforeRead: () => gate },
    );
    await Bun.sleep(20);
    expect(got).toEqual(["1"]);
    expect(pulls).toBe(1);
    gate = undefined;
    release();
    await done;
    expect(got).toEqual(["1", "2", "3"]);
  });

  test("lines() (async iterator) delivers every line", async () => {
    const got: string[] = [];
    for await (const l of lines(streamOf(chunks))) got.push(l);
    expect(got).toEqual(["one", "two", "three"]);
  });

  test("lines() can be left early; the stream is cancelled", async () => {
    let cancelled = false;
    const s = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(enc.encode("a\nb\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    const got: string[] = [];
    for await (const l of lines(s)) {
      got.push(l);
      if (got.length === 3) break;
    }
    expect(got).toEqual(["a", "b", "a"]);
    await Bun.sleep(1);
    expect(cancelled).toBe(true);
  });

  test("readLines over a real pipe", async () => {
    const p = Bun.spawn(["printf", "a\\nb\\r\\n\\nc"], { stdout: "pipe" });
    const got: string[] = [];
    await readLines(p.stdout, (l) => got.push(l));
    expect(got).toEqual(["a", "b", "c"]);
  });
});

// The start of an over-long line is kept for the ACP side, which reads the id
// of a request it will not parse from it (src/acp/request-peek.ts).
describe("LineSplitter: the start of an over-long line", () => {
  function run(chunks: string[], max: number, headBytes: number) {
    const lines: string[] = [];
    const over: { bytes: number; head: string }[] = [];
    const s = new LineSplitter((l) => lines.push(l), {
      maxLineBytes: max,
      overlongHeadBytes: headBytes,
      onOverlong: (bytes, head) => over.push({ bytes, head: dec.decode(head) }),
    });
    for (const c of chunks) s.push(enc.encode(c));
    s.end();
    return { lines, over };
  }

  test("inside one chunk, across chunks, across many chunks, and cut by EOF", () => {
    const long = `HEAD${"x".repeat(100)}`;
    // One chunk with lines before and after.
    expect(run([`a\n${long}\nb\n`], 20, 8)).toEqual({ lines: ["a", "b"], over: [{ bytes: 104, head: "HEADxxxx" }] });
    // Starts in one chunk (under the limit there), ends in the next.
    expect(run(["a\nHEADxx", `${"x".repeat(98)}\nb\n`], 20, 8).over).toEqual([{ bytes: 104, head: "HEADxxxx" }]);
    // Spread over many small chunks: the head is kept from the first ones.
    const pieces = [...`${long}\n`].map((c) => c);
    expect(run(pieces, 20, 8).over).toEqual([{ bytes: 104, head: "HEADxxxx" }]);
    // Over the limit at the end of a chunk, then EOF without a newline.
    expect(run([`a\n${long}`], 20, 8)).toEqual({ lines: ["a"], over: [{ bytes: 104, head: "HEADxxxx" }] });
    // A head longer than the limit itself is no problem.
    expect(run([`${long}\n`], 20, 50).over[0]?.head).toBe(long.slice(0, 50));
  });

  test("without overlongHeadBytes the head is empty (the ZCode side keeps its old cost)", () => {
    expect(run([`${"x".repeat(100)}\n`], 20, 0).over).toEqual([{ bytes: 100, head: "" }]);
  });
});
