// The new binary's --version, bounded: a binary that hangs (and one that
// leaves a child holding its pipe) is stopped, its whole process group.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareVersions, probeVersion } from "../../../src/cli/binary-probe.ts";
import { endsSoon } from "../../support/acp-harness.ts";

const tmp = mkdtempSync(join(tmpdir(), "binary-probe-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const path = join(tmp, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

test("a version, a failure, a hang", async () => {
  expect(await probeVersion(script("ok", "echo 1.2.3"))).toEqual({ version: "1.2.3" });
  expect(await probeVersion(script("fails", "echo nope; exit 3"))).toEqual({ failed: true });
  expect(await probeVersion(join(tmp, "absent"))).toEqual({ failed: true });
  const pidFile = join(tmp, "hang.pid");
  const hang = script("hang", `sleep 600 & echo $! > ${pidFile}; wait`);
  expect(await probeVersion(hang, 300)).toEqual({ timedOut: true });
  const child = Number(readFileSync(pidFile, "utf8"));
  expect(await endsSoon(child)).toBe(true);
});

test("a binary that prints its version but leaves a child holding stdout is not waited for", async () => {
  const pidFile = join(tmp, "leave.pid");
  const leaves = script("leaves", `echo 2.0.0; sleep 600 & echo $! > ${pidFile}; exit 0`);
  expect(await probeVersion(leaves, 5000)).toEqual({ version: "2.0.0" });
  expect(await endsSoon(Number(readFileSync(pidFile, "utf8")))).toBe(true);
});

test("compareVersions orders releases and pre-releases", () => {
  expect(compareVersions("0.2.0", "0.1.0")).toBe(1);
  expect(compareVersions("0.1.0", "0.2.0")).toBe(-1);
  expect(compareVersions("0.10.0", "0.9.9")).toBe(1);
  expect(compareVersions("1.0.0", "1.0.0")).toBe(0);
  expect(compareVersions("1.0.0-rc.1", "1.0.0")).toBe(-1);
  expect(compareVersions("v1.0.0", "1.0.0")).toBe(0);
});
