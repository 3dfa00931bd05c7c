// Helpers for the slash-command end-to-end tests: run one prompt and collect
// exactly what it caused on both wires (the frames the simulator received and
// the updates the client saw).
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Harness, SIM_BIN } from "../support/acp-harness.ts";

export const PERSONALITIES = ["0.14.8", "0.15.3", "0.16.2"] as const;

/** What each personality should advertise (the version table of issue 4). */
export const EXPECTED_COMMANDS: Record<string, string[]> = {
  "0.14.8": ["fork", "goal", "compact", "mode", "model", "thought", "quota", "help"],
  "0.15.3": ["fork", "rewind", "goal", "compact", "steer", "mode", "model", "thought", "quota", "help"],
  "0.16.2": ["fork", "goal", "compact", "mode", "model", "thought", "quota", "help"],
  // v4 brings steer and rewind back (ZCODE-V4.md).
  "0.16.9": ["fork", "rewind", "goal", "compact", "steer", "mode", "model", "thought", "quota", "help"],
};

export interface SimRequest {
  id?: number | string;
  method: string;
  params?: any;
}

/** Requests (not responses) the simulator received, from index `from` on. */
export function simRequests(h: Harness, from = 0): SimRequest[] {
  return h
    .simFrames()
    .slice(from)
    .filter((f): f is SimRequest => typeof f.method === "string");
}

export interface PromptOutcome {
  response: acp.PromptResponse;
  /** Requests/notifications the simulator received while the prompt ran. */
  frames: SimRequest[];
  updates: acp.SessionUpdate[];
  /** Concatenated agent_message_chunk text. */
  text: string;
}

/** Sends one prompt and returns what it caused. Sequential use only. */
export async function promptAndCollect(h: Harness, sessionId: string, text: string): Promise<PromptOutcome> {
  const framesBefore = h.simFrames().length;
  const updatesBefore = h.received.updates.length;
  const response = await h.prompt(sessionId, text);
  const updates = h.received.updates
    .slice(updatesBefore)
    .filter((u) => u.sessionId === sessionId)
    .map((u) => u.update);
  return {
    response,
    frames: simRequests(h, framesBefore),
    updates,
    text: chunkText(updates),
  };
}

export function chunkText(updates: acp.SessionUpdate[]): string {
  return updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("");
}

/** The latest advertised command names of a session (undefined before any). */
export function advertised(h: Harness, sessionId: string): string[] | undefined {
  const lists = h.updatesOfKind(sessionId, "available_commands_update");
  return lists.at(-1)?.availableCommands.map((c) => c.name);
}

export async function waitForCommands(h: Harness, sessionId: string, count = 1): Promise<string[]> {
  await h.waitFor(
    () => h.updatesOfKind(sessionId, "available_commands_update").length >= count,
    `available_commands_update #${count} for ${sessionId}`,
  );
  return advertised(h, sessionId)!;
}

/** Creates a session and runs one ordinary turn, so a checkpoint exists. */
export async function sessionWithOneTurn(h: Harness): Promise<string> {
  const { sessionId } = await h.newSession();
  await waitForCommands(h, sessionId);
  const r = await h.prompt(sessionId, "Plan the login page");
  if (r.stopReason !== "end_turn") throw new Error(`first turn ended ${r.stopReason}`);
  return sessionId;
}

/**
 * A ZCODE_BIN that claims `claimed` on --version but runs the simulator as
 * `actual`: the only way to make a method the version table believes in
 * answer -32601, as a CLI build that dropped it would.
 */
export function lyingCli(claimed: string, actual: string): string {
  const dir = mkdtempSync(join(tmpdir(), "zcode-lying-cli-"));
  const path = join(dir, "zcode");
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `if [ "$1" = "--version" ]; then echo ${claimed}; exit 0; fi`,
      `ZCODE_SIM_VERSION=${actual} exec "${SIM_BIN}" "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}

/** The simulator's session file: ZCode's own history, and its turn log. */
export interface SimFile {
  messages: { info: { role: string; synthetic?: boolean }; parts: { type: string; text?: string }[] }[];
  turnLog?: { state: string; sourceCommandId?: string }[];
}

export function simFile(h: Harness, sessionId: string): SimFile | undefined {
  const file = join(h.stateDir, `${sessionId}.json`);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as SimFile;
  } catch {
    return undefined;
  }
}

/** The user's prompts in ZCode's own history (the simulator's session file). */
export function zcodeUserTexts(h: Harness, sessionId: string): string[] | undefined {
  return simFile(h, sessionId)
    ?.messages.filter((m) => m.info.role === "user" && !m.info.synthetic)
    .map((m) => m.parts.find((p) => p.type === "text")?.text ?? "");
}

/** Waits until ZCode's history holds exactly these prompts. */
export async function expectHistory(h: Harness, sessionId: string, expected: string[]): Promise<void> {
  await h.waitFor(
    () => JSON.stringify(zcodeUserTexts(h, sessionId)) === JSON.stringify(expected),
    `ZCode's history to be ${JSON.stringify(expected)} (is ${JSON.stringify(zcodeUserTexts(h, sessionId))})`,
  );
}

/** The payloads of the v4 commands the simulator received. */
export function v4Commands(h: Harness, from = 0) {
  return simRequests(h, from)
    .filter((f) => f.method === "v4/command")
    .map((f) => f.params);
}

/** A new session whose / menu has arrived (the v4 probe has answered). */
export async function newSession(h: Harness): Promise<string> {
  const { sessionId } = await h.newSession();
  await waitForCommands(h, sessionId);
  return sessionId;
}
