// What measures memory runs with the allocator as Bun ships it, even inside
// `npm test`, which turns mimalloc's huge pages on (scripts/allocator-env.ts).
import { afterEach, expect, test } from "bun:test";
import { AS_SHIPPED, envAsShipped, HUGE_PAGES_ENV } from "../../../scripts/allocator-env.ts";

const before = process.env[HUGE_PAGES_ENV];
afterEach(() => {
  if (before === undefined) delete process.env[HUGE_PAGES_ENV];
  else process.env[HUGE_PAGES_ENV] = before;
});

test("envAsShipped drops the huge-pages setting and keeps the rest of process.env", () => {
  process.env[HUGE_PAGES_ENV] = "1";
  const env = envAsShipped();
  expect(HUGE_PAGES_ENV in env).toBe(false);
  expect(env.PATH).toBe(process.env.PATH);
  expect(process.env[HUGE_PAGES_ENV]).toBe("1"); // a copy: the caller's env is untouched
});

test("AS_SHIPPED unsets the setting in a child that inherits it", async () => {
  process.env[HUGE_PAGES_ENV] = "1";
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...AS_SHIPPED })) if (v !== undefined) env[k] = v;
  const p = Bun.spawn([process.execPath, "-e", `process.stdout.write(String(process.env.${HUGE_PAGES_ENV}))`], { env, stdout: "pipe" });
  expect(await new Response(p.stdout).text()).toBe("undefined");
  expect(await p.exited).toBe(0);
});

test("the setting is one Bun's mimalloc reads: it reports allow_thp on", async () => {
  // mimalloc prints its options with MIMALLOC_VERBOSE; a renamed option would print 0 here.
  const p = Bun.spawn([process.execPath, "-e", "0"], {
    env: { ...process.env, [HUGE_PAGES_ENV]: "1", MIMALLOC_VERBOSE: "1" },
    stdout: "ignore",
    stderr: "pipe",
  });
  const err = await new Response(p.stderr).text();
  await p.exited;
  expect(err).toMatch(/option 'allow_thp': 1/);
});
