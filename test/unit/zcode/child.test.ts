// What of a child's output counts as a sign of life for the frozen-child
// check: besides the stdout lines the connection handles, a stderr line and a
// stdout line too long to keep (dropped, but written).
import { expect, test } from "bun:test";
import { stopChild, watchChild } from "../../../src/zcode/child.ts";
import { spawnZCode } from "../../../src/zcode/process.ts";

test("a stderr line and an overlong stdout line are signs of life; a kept line goes to onLine", async () => {
  const script = `echo "a log line" >&2; head -c 4096 /dev/zero | tr '\\0' x; echo; echo '{"id":1,"result":{}}'; sleep 30`;
  const spawned = spawnZCode(
    { command: ["/bin/sh", "-c", script, "child"], entry: "/bin/sh", source: "env" },
    { PATH: process.env.PATH },
    200,
  );
  const alive: string[] = [];
  const lines: string[] = [];
  let seen!: () => void;
  const done = new Promise<void>((r) => (seen = r));
  const child = watchChild(spawned, {
    onLine: (line) => {
      lines.push(line);
      seen();
    },
    onAlive: () => void alive.push("alive"),
    readGate: () => undefined,
    maxLineBytes: 1024,
    stderrLinesPerSecond: 100,
    onExit: () => {},
  });
  try {
    await done;
    // stderr is read beside stdout: wait for its line too.
    for (let i = 0; i < 200 && alive.length < 2; i++) await Bun.sleep(10);
    expect(lines).toEqual(['{"id":1,"result":{}}']);
    expect(alive).toHaveLength(2);
  } finally {
    await stopChild(child, 200);
  }
});
