// Smoke test of a released binary on the machine it is built for, with plain
// Node (present on every GitHub runner): `--version`, then an ACP
// `initialize` round trip with an empty environment (as the ACP registry
// checks), then a clean exit when stdin closes.
//
//   node .github/scripts/smoke.mjs <path-to-binary> <expected-version>
import { spawn, spawnSync } from "node:child_process";

const [bin, expected] = process.argv.slice(2);
if (!bin || !expected) {
  console.error("usage: smoke.mjs <binary> <expected-version>");
  process.exit(2);
}

const v = spawnSync(bin, ["--version"], { encoding: "utf8", env: {} });
const printed = (v.stdout ?? "").trim();
if (v.status !== 0 || printed !== expected) {
  console.error(`--version: exit ${v.status}, printed ${JSON.stringify(printed)}, expected ${expected}\n${v.stderr ?? ""}`);
  process.exit(1);
}
console.log(`--version: ${printed}`);

const started = Date.now();
const child = spawn(bin, [], { env: {}, stdio: ["pipe", "pipe", "pipe"] });
let out = "";
let err = "";
child.stderr.on("data", (d) => (err += d));
const timer = setTimeout(() => {
  console.error(`no initialize response within 15 s; stdout ${JSON.stringify(out)}; stderr ${err}`);
  child.kill("SIGKILL");
  process.exit(1);
}, 15_000);
child.stdout.on("data", (d) => {
  out += d;
  if (!out.includes("\n")) return;
  const line = out.slice(0, out.indexOf("\n"));
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    console.error(`first stdout line is not JSON: ${line.slice(0, 300)}`);
    process.exit(1);
  }
  if (msg.id !== 1 || msg.result?.protocolVersion !== 1 || !Array.isArray(msg.result?.authMethods)) {
    console.error(`unexpected initialize response: ${line.slice(0, 500)}`);
    process.exit(1);
  }
  console.log(`initialize answered in ${Date.now() - started} ms`);
  child.stdin.end();
});
child.on("exit", (code, signal) => {
  clearTimeout(timer);
  if (!out.includes("\n")) {
    console.error(`exited (${code ?? signal}) before answering; stderr: ${err}`);
    process.exit(1);
  }
  if (code !== 0) {
    console.error(`exit code ${code ?? signal} after stdin closed; stderr: ${err}`);
    process.exit(1);
  }
  console.log("clean exit after stdin closed");
});
child.stdin.write(
  `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
);
