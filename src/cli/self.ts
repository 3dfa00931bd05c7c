/**
 * True inside the `bun build --compile` binary, whose entry lives in Bun's
 * virtual filesystem; false when run from source with `bun src/main.ts`,
 * where process.execPath is Bun itself (never something to replace).
 */
export function isCompiledBinary(): boolean {
  const entry = process.argv[1] ?? "";
  return entry.includes("/$bunfs/") || entry.includes("~BUN");
}

/** The command an editor should launch. */
export function selfCommand(): string {
  return isCompiledBinary() ? process.execPath : "zcode-acp-server";
}
