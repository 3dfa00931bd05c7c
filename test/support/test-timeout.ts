// The per-test default timeout of this repository's tests. No bun:test import
// here: scripts/test.ts reads it too, to pass it on as `bun test --timeout`
// (see timeouts.ts for why the preload alone is not enough).

export const DEFAULT_TEST_TIMEOUT_MS = 15_000;

/** ZCODE_TEST_TIMEOUT_MS when it is a positive number, else the default. */
export function testTimeoutMs(env: Record<string, string | undefined> = process.env): number {
  const fromEnv = Number(env.ZCODE_TEST_TIMEOUT_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_TEST_TIMEOUT_MS;
}
