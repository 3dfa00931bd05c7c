// The shared release build of `npm test` (test/e2e/release-support.ts): the
// install tests start while it may still be building and wait for the mark
// of its end; a failed build, a leftover setting or none at all sends them to
// build their own.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RELEASE_TEST_TARGETS, SHARED_RELEASE_ENV, sharedReleaseOut } from "../../e2e/release-support.ts";

const before = process.env[SHARED_RELEASE_ENV];
const dirs: string[] = [];
afterEach(() => {
  if (before === undefined) delete process.env[SHARED_RELEASE_ENV];
  else process.env[SHARED_RELEASE_ENV] = before;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function buildDir(): string {
  const d = mkdtempSync(join(tmpdir(), "zcode-acp-shared-release-"));
  dirs.push(d);
  process.env[SHARED_RELEASE_ENV] = d;
  return d;
}

test("no shared build named, or its dir gone: nothing to wait for", async () => {
  delete process.env[SHARED_RELEASE_ENV];
  expect(await sharedReleaseOut()).toBeUndefined();
  process.env[SHARED_RELEASE_ENV] = join(tmpdir(), `zcode-acp-no-such-dir-${process.pid}`);
  expect(await sharedReleaseOut()).toBeUndefined();
});

test("a build under way is waited for until it marks its end as done", async () => {
  const d = buildDir();
  let settled = false;
  const waiting = sharedReleaseOut().finally(() => {
    settled = true;
  });
  await Bun.sleep(300); // a poll or two without a mark
  expect(settled).toBe(false);
  writeFileSync(join(d, "release-test-targets.txt"), RELEASE_TEST_TARGETS.join("\n"));
  expect(await waiting).toBe(d);
});

test("a failed build, or one of other targets, is not used", async () => {
  const failed = buildDir();
  writeFileSync(join(failed, "release-test-failed.txt"), "error: bun build failed");
  expect(await sharedReleaseOut()).toBeUndefined();
  const other = buildDir();
  writeFileSync(join(other, "release-test-targets.txt"), "linux-x64");
  expect(await sharedReleaseOut()).toBeUndefined();
});
