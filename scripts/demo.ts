// `npm run demo`: a real ACP session, end to end. Builds the bridge and the
// ZCode simulator if needed, starts dist/zcode-acp-server with the simulator
// as its ZCode CLI, drives it with the ACP SDK's own client over stdio, and
// prints what an editor would show. Pass `--raw` to also print every ACP
// message the bridge sent.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const BRIDGE = join(ROOT, "dist/zcode-acp-server");
const SIM = join(ROOT, "dist/zcode-sim");
const raw = process.argv.includes("--raw");

const color = process.stdout.isTTY
  ? { dim: "\x1b[2m", bold: "\x1b[1m", cyan: "\x1b[36m", green: "\x1b[32m", yellow: "\x1b[33m", red: "\x1b[31m", off: "\x1b[0m" }
  : { dim: "", bold: "", cyan: "", green: "", yellow: "", red: "", off: "" };
const say = (s: string) => process.stdout.write(s);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const f of new Bun.Glob("**/*.ts").scanSync({ cwd: join(ROOT, dir) })) {
    newest = Math.max(newest, statSync(join(ROOT, dir, f)).mtimeMs);
  }
  return newest;
}

// Build when a binary is missing or older than its sources.
const stale =
  !existsSync(BRIDGE) ||
  !existsSync(SIM) ||
  statSync(BRIDGE).mtimeMs < newestMtime("src") ||
  statSync(SIM).mtimeMs < newestMtime("test/simulator");
if (stale) {
  say(`${color.dim}building dist/zcode-acp-server and dist/zcode-sim…${color.off}\n`);
  const b = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts")], { stdout: "inherit", stderr: "inherit" });
  if (b.exitCode !== 0) process.exit(b.exitCode ?? 1);
}

const workspace = mkdtempSync(join(tmpdir(), "zcode-demo-"));
const bridge = Bun.spawn([BRIDGE], {
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
  cwd: workspace,
  env: {
    ...process.env,
    ZCODE_BIN: SIM,
    ZCODE_SIM_STATE_DIR: join(workspace, ".zcode-sim"),
    ZCODE_SIM_DELAY_MS: process.env.ZCODE_SIM_DELAY_MS ?? "15",
  },
});

// Tee the bridge's stdout so --raw can show the wire.
const toClient = new TransformStream<Uint8Array, Uint8Array>();
void (async () => {
  const w = toClient.writable.getWriter();
  for await (const chunk of bridge.stdout) {
    if (raw) process.stdout.write(`${color.dim}${new TextDecoder().decode(chunk)}${color.off}`);
    await w.write(chunk);
  }
  await w.close().catch(() => {});
})();
const toAgent = new WritableStream<Uint8Array>({
  async write(chunk) {
    bridge.stdin.write(chunk);
    await bridge.stdin.flush();
  },
  close() {
    bridge.stdin.end();
  },
});

let lastKind = "";
function section(kind: string, label: string) {
  if (lastKind !== kind) say(`\n${label}`);
  lastKind = kind;
}

function render(update: acp.SessionUpdate): void {
  switch (update.sessionUpdate) {
    case "agent_thought_chunk":
      section("thought", `${color.dim}💭 `);
      if (update.content.type === "text") say(`${update.content.text}`);
      break;
    case "agent_message_chunk":
      section("message", `${color.off}${color.bold}ZCode:${color.off} `);
      if (update.content.type === "text") say(update.content.text);
      break;
    case "tool_call":
      lastKind = "tool";
      say(
        `${color.off}\n${color.cyan}▶ [${update.kind ?? "other"}] ${update.title}${color.off} ${color.dim}(${update.status ?? "pending"})${color.off}`,
      );
      break;
    case "tool_call_update": {
      lastKind = "tool";
      if (update.status) {
        const c = update.status === "completed" ? color.green : update.status === "failed" ? color.red : color.dim;
        say(`\n  ${c}${update.status}${color.off}`);
      }
      for (const c of update.content ?? []) {
        if (c.type === "diff") say(`\n  ${color.yellow}diff ${c.path}${color.off}\n${indent(c.newText)}`);
        else if (c.type === "content" && c.content.type === "text") say(`\n${indent(c.content.text)}`);
      }
      break;
    }
    case "plan":
      lastKind = "plan";
      say(
        `\n${color.bold}Plan:${color.off}\n${update.entries.map((e) => `  [${e.status === "completed" ? "x" : " "}] ${e.content}`).join("\n")}`,
      );
      break;
    case "usage_update":
      lastKind = "usage";
      say(`\n${color.dim}context: ${update.used}/${update.size} tokens${color.off}`);
      break;
    case "session_info_update":
      lastKind = "info";
      if (update.title) say(`\n${color.dim}title: ${update.title}${color.off}`);
      break;
    case "config_option_update": {
      lastKind = "options";
      const current = (id: string) => {
        const o = update.configOptions.find((c) => c.id === id);
        if (!o || o.type !== "select") return undefined;
        const flat = o.options.flatMap((x) => ("options" in x ? x.options : [x]));
        return flat.find((x) => x.value === o.currentValue)?.name ?? String(o.currentValue);
      };
      const level = current("thought_level");
      say(`\n${color.dim}model: ${current("model") ?? "?"}${level ? ` · thought level: ${level}` : " · no thought levels"}${color.off}`);
      break;
    }
    case "available_commands_update":
      lastKind = "commands";
      say(`\n${color.dim}slash commands: ${update.availableCommands.map((c) => `/${c.name}`).join(" ")}${color.off}`);
      break;
    default:
      break;
  }
}

function indent(text: string): string {
  const lines = text.split("\n");
  const shown = lines.slice(0, 12).map((l) => `    ${color.dim}│${color.off} ${l}`);
  if (lines.length > 12) shown.push(`    ${color.dim}│ … ${lines.length - 12} more lines${color.off}`);
  return shown.join("\n");
}

const client = acp
  .client({ name: "zcode-acp-demo" })
  .onNotification(acp.methods.client.session.update, ({ params }) => render(params.update))
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    const choice = params.options.find((o) => o.kind === "allow_once") ?? params.options[0]!;
    lastKind = "permission";
    say(
      `\n${color.yellow}? permission: ${params.toolCall.title ?? params.toolCall.toolCallId}${color.off}` +
        `\n  options: ${params.options.map((o) => `${o.name} (${o.kind})`).join(", ")}` +
        `\n  ${color.green}→ the user picks "${choice.name}"${color.off}`,
    );
    return { outcome: { outcome: "selected", optionId: choice.optionId } };
  });

const conn = client.connect(acp.ndJsonStream(toAgent, toClient.readable));
const agent = conn.agent;
let exitCode = 0;
try {
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "zcode-acp-demo", version: "1.0.0" },
  });
  say(
    `${color.bold}Connected to ${init.agentInfo?.title ?? "agent"} ${init.agentInfo?.version ?? ""}${color.off} (ACP v${init.protocolVersion})\n`,
  );

  const session = await agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  say(`session ${session.sessionId} in ${workspace}`);
  const mode = session.modes?.currentModeId;
  if (mode) say(` · mode ${mode}`);

  for (const text of [
    "Explain what this project does. #scenario:text",
    "Clean the build directory. #scenario:permission",
    "Make the greeting in src/greet.ts more excited. #scenario:edit",
  ]) {
    lastKind = "";
    say(`\n\n${color.bold}You:${color.off} ${text}`);
    const res = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text }],
    });
    say(`\n${color.dim}[turn ended: ${res.stopReason}]${color.off}`);
  }

  // The user picks another model in the editor's model menu (a config option).
  const modelOption = session.configOptions?.find((o) => o.id === "model");
  if (modelOption?.type === "select") {
    const choices = modelOption.options.flatMap((x) => ("options" in x ? x.options : [x]));
    const next = choices.find((c) => c.value.endsWith("/GLM-4.7")) ?? choices.find((c) => c.value !== modelOption.currentValue);
    if (next) {
      lastKind = "";
      say(`\n\n${color.bold}The user picks "${next.name}" in the model menu${color.off} ${color.dim}(${next.value})${color.off}`);
      await agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId: session.sessionId,
        configId: "model",
        value: next.value,
      });
    }
  }

  // A pasted screenshot: an ACP image block, sent to ZCode as an attachment.
  const shot = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  lastKind = "";
  say(`\n\n${color.bold}You:${color.off} What does this screenshot show? ${color.dim}[image screenshot.png]${color.off}`);
  const res = await agent.request(acp.methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [
      { type: "text", text: "What does this screenshot show?" },
      { type: "image", mimeType: "image/png", data: shot, uri: `file://${join(workspace, "screenshot.png")}` },
    ],
  });
  say(`\n${color.dim}[turn ended: ${res.stopReason}]${color.off}`);
  say("\n");
} catch (e) {
  exitCode = 1;
  process.stderr.write(`\ndemo failed: ${(e as Error).message}\n`);
} finally {
  bridge.stdin.end();
  const code = await bridge.exited;
  conn.close();
  rmSync(workspace, { recursive: true, force: true });
  if (code !== 0) {
    process.stderr.write(`bridge exited with code ${code}\n`);
    exitCode ||= 1;
  }
}
process.exit(exitCode);
