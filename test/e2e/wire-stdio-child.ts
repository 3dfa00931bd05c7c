// Drives src/acp/stdio.ts in a real process for wire-stdio tests.
//   flood N SIZE   write N lines of SIZE bytes through the stdout sink, awaiting each write
//   epipe          write forever; report onGone on stderr and exit 0
//   stdin DELAYMS  read stdin via createStdinSource whose pendingRequests takes DELAYMS;
//                  on each chunk say "data" (stderr), at EOF "eof <ms since last data>"
import { createStdinSource, createStdoutSink } from "../../src/acp/stdio.ts";

const [mode, a, b] = process.argv.slice(2);
const enc = new TextEncoder();

if (mode === "flood") {
  const n = Number(a);
  const size = Number(b);
  const sink = createStdoutSink({ onGone: () => process.exit(5) });
  const w = sink.getWriter();
  const body = "x".repeat(size - 12);
  let maxRss = 0;
  for (let i = 0; i < n; i++) {
    await w.write(enc.encode(`${String(i).padStart(10, "0")} ${body}\n`));
    if (i % 256 === 0) maxRss = Math.max(maxRss, process.memoryUsage().rss);
  }
  await w.close();
  process.stderr.write(`rss ${Math.round(maxRss / 1048576)}\n`);
} else if (mode === "epipe") {
  let gone = false;
  const sink = createStdoutSink({
    onGone: () => {
      gone = true;
      process.stderr.write("gone\n");
      process.exit(0);
    },
  });
  const w = sink.getWriter();
  const line = enc.encode(`${"y".repeat(1000)}\n`);
  for (let i = 0; !gone && i < 10_000_000; i++) await w.write(line);
  process.stderr.write("never gone\n");
  process.exit(1);
} else if (mode === "stdin") {
  const delay = Number(a);
  let last = 0;
  const src = createStdinSource({ pendingRequests: () => Bun.sleep(delay) });
  for await (const chunk of src) {
    last = Date.now();
    process.stderr.write(`data ${chunk.length}\n`);
  }
  process.stderr.write(`eof ${Date.now() - last}\n`);
}
