// Serve mode survives a promise rejection nobody handled (Bun would exit 1).
import { expect, test } from "bun:test";
import { join } from "node:path";

const MODULE = join(import.meta.dir, "../../../src/cli/stray-rejections.ts");

async function runScript(guard: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = [
    guard ? `const { logStrayRejections } = await import(${JSON.stringify(MODULE)}); logStrayRejections();` : "",
    'Promise.reject(new Error("stray apiKey=sk-should-be-redacted"));',
    'setTimeout(() => process.stdout.write("still serving"), 50);',
  ].join("\n");
  const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

test("an unhandled rejection is logged (redacted) and the process keeps running", async () => {
  const r = await runScript(true);
  expect(r.stdout).toBe("still serving");
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("unhandled promise rejection");
  expect(r.stderr).toContain("stray apiKey=[REDACTED]");
  expect(r.stderr).not.toContain("sk-should-be-redacted");
});

test("control: without it, Bun ends the process", async () => {
  const r = await runScript(false);
  expect(r.stdout).toBe("");
  expect(r.code).not.toBe(0);
});
