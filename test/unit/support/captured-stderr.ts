// What the logger writes to stderr during each test of a file (restored,
// with the default log level, after each).
import { afterEach, beforeEach } from "bun:test";
import { setLogLevel } from "../../../src/log.ts";

/** Installs the capture for the calling test file; read `lines` inside a test. */
export function captureStderr(): { readonly lines: string[] } {
  const captured = { lines: [] as string[] };
  let realWrite: typeof process.stderr.write;
  beforeEach(() => {
    captured.lines = [];
    realWrite = process.stderr.write;
    process.stderr.write = ((s: string | Uint8Array) => {
      captured.lines.push(String(s));
      return true;
    }) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.stderr.write = realWrite;
    setLogLevel("warn");
  });
  return captured;
}
