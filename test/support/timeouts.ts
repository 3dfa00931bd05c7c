// Preloaded into every `bun test` run of this repository (bunfig.toml
// `[test] preload`), in every `--parallel` worker too: the per-test default
// timeout. Bun reads no timeout from bunfig.toml (a `[test] timeout` key is
// silently ignored; its default is 5 s), and a default set here overrides
// `bun test --timeout N`, so ZCODE_TEST_TIMEOUT_MS is the way to change it.
//
// The default covers the ordinary test, which takes well under 2 s on a
// 2-core machine. A test that may take longer (a release build, unpacking
// archives, an npm install, megabytes through the bridge) gives its own
// budget, sized for a machine half as fast: `test(name, fn, 60_000)`.
import { setDefaultTimeout } from "bun:test";

export const DEFAULT_TEST_TIMEOUT_MS = 15_000;

const fromEnv = Number(process.env.ZCODE_TEST_TIMEOUT_MS);
setDefaultTimeout(Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_TEST_TIMEOUT_MS);
