// Preloaded into every `bun test` run of this repository (bunfig.toml
// `[test] preload`), in every `--parallel` worker too: the per-test default
// timeout. Bun reads no timeout from bunfig.toml (a `[test] timeout` key is
// silently ignored; its default is 5 s), and a default set here overrides
// `bun test --timeout N`, so ZCODE_TEST_TIMEOUT_MS is the way to change it.
//
// But Bun applies a default set here to the first file a process runs only:
// every later file in the same process (a `--no-isolate` worker, or several
// files without `--parallel`) starts again from `--timeout`, 5 s unless
// given. So scripts/test.ts and the package.json scripts also pass
// `--timeout` with the same value (test-timeout.ts); this preload covers
// `bun test <one file>`.
//
// The default covers the ordinary test, which takes well under 2 s on a
// 2-core machine. A test that may take longer (a release build, unpacking
// archives, an npm install, megabytes through the bridge) gives its own
// budget, sized for a machine half as fast: `test(name, fn, 60_000)`.
import { setDefaultTimeout } from "bun:test";
import { testTimeoutMs } from "./test-timeout.ts";

setDefaultTimeout(testTimeoutMs());
