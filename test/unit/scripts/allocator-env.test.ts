// `npm test` runs Bun's allocator with huge pages and no purging; what
// measures memory runs it as Bun ships (scripts/allocator-env.ts).
import { afterEach, expect, test } from "bun:test";
import { AS_SHIPPED, envAsShipped, TEST_RUN_ALLOCATOR, useTestRunAllocator } from "../../../scripts/allocator-env.ts";

const KEYS = Object.keys(TEST_RUN_ALLOCATOR);
const before = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of KEYS) {
    if (before[k] === undefined) delete process.env[k];
    else process.env[k] = before[k];
  }
});

test("useTestRunAllocator sets what is unset and keeps a value the caller gave", () => {
  const env: Record<string, string | undefined> = { MIMALLOC_ALLOW_THP: "0", PATH: "/bin" };
  useTestRunAllocator(env);
  expect(env).toEqual({ MIMALLOC_ALLOW_THP: "0", MIMALLOC_PURGE_DELAY: "-1", PATH: "/bin" });
});

test("envAsShipped drops every setting and keeps the rest of process.env", () => {
  Object.assign(process.env, TEST_RUN_ALLOCATOR);
  const env = envAsShipped();
  for (const k of KEYS) expect(k in env).toBe(false);
  expect(env.PATH).toBe(process.env.PATH);
  expect(process.env.MIMALLOC_PURGE_DELAY).toBe("-1"); // a copy: the caller's env is untouched
});

test("AS_SHIPPED unsets the settings in a child that would inherit them", async () => {
  Object.assign(process.env, TEST_RUN_ALLOCATOR);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...AS_SHIPPED })) if (v !== undefined) env[k] = v;
  const p = Bun.spawn(
    [process.execPath, "-e", `process.stdout.write(JSON.stringify(${JSON.stringify(KEYS)}.map((k) => process.env[k] ?? null)))`],
    {
      env,
      stdout: "pipe",
    },
  );
  expect(JSON.parse(await new Response(p.stdout).text())).toEqual(KEYS.map(() => null));
  expect(await p.exited).toBe(0);
});

test("the settings are ones Bun's mimalloc reads: it reports them in effect", async () => {
  // mimalloc prints its options with MIMALLOC_VERBOSE; an option it does not know would keep its default.
  const p = Bun.spawn([process.execPath, "-e", "0"], {
    env: { ...process.env, ...TEST_RUN_ALLOCATOR, MIMALLOC_VERBOSE: "1" },
    stdout: "ignore",
    stderr: "pipe",
  });
  const err = await new Response(p.stderr).text();
  await p.exited;
  expect(err).toMatch(/option 'allow_thp': 1\b/);
  expect(err).toMatch(/option 'purge_delay': -1\b/);
});
