// The host's binary must start and answer `initialize` with an empty
// environment (as the ACP registry's check runs it) before anything is
// published.
import pkg from "../../package.json" with { type: "json" };

export async function smoke(bin: string, label: string): Promise<void> {
  const v = Bun.spawnSync([bin, "--version"], { env: {} });
  const printed = v.stdout.toString().trim();
  if (v.exitCode !== 0 || printed !== pkg.version) {
    throw new Error(`smoke: ${bin} --version printed ${JSON.stringify(printed)} (exit ${v.exitCode}), expected ${pkg.version}`);
  }
  const p = Bun.spawn([bin], { env: {}, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => p.kill("SIGKILL"), 10_000);
  p.stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
  );
  await p.stdin.flush();
  const reader = p.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await p.stdin.end();
  const code = await p.exited;
  clearTimeout(killer);
  const first = text.split("\n")[0] ?? "";
  let msg: { id?: unknown; result?: { protocolVersion?: unknown } };
  try {
    msg = JSON.parse(first);
  } catch {
    throw new Error(
      `smoke: initialize got no JSON line (got ${JSON.stringify(first.slice(0, 200))}); stderr: ${await new Response(p.stderr).text()}`,
    );
  }
  if (msg.id !== 1 || msg.result?.protocolVersion !== 1) {
    throw new Error(`smoke: unexpected initialize response ${first.slice(0, 300)}`);
  }
  if (code !== 0) throw new Error(`smoke: bridge exited ${code} after stdin closed`);
  process.stderr.write(`smoke ${label}: --version ${printed}, initialize answered, exit 0\n`);
}
