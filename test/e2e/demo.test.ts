// `npm run demo` (scripts/demo.ts), the README's first command, runs to the
// end against the simulator and shows what it promises: a permission, an
// edit, a model switch and an image prompt.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../support/acp-harness.ts";

test("the demo runs to the end: permission, edit, a model switch, an image prompt", async () => {
  const p = Bun.spawn([process.execPath, join(ROOT, "scripts/demo.ts")], {
    env: { ...process.env, ZCODE_SIM_DELAY_MS: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(err).not.toContain("demo failed");
  expect(code).toBe(0);
  expect(out).toContain("? permission: rm -rf build");
  expect(out).toContain("diff ");
  expect(out).toContain('The user picks "GLM-4.7" in the model menu');
  expect(out).toContain("model: GLM-4.7 · thought level: High");
  expect(out).toContain("/128000 tokens");
  expect(out).toContain("Attachments: image screenshot.png image/png");
  expect(out.match(/\[turn ended: end_turn\]/g)).toHaveLength(4);
}, 60_000);
