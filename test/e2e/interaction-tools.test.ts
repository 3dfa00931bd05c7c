// Every tool kind through the compiled bridge and simulator: title, kind,
// locations, content; the terminal extension on and off; batches.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sharedBridge, withBridge } from "../support/acp-harness.ts";
import { byTitle, contentText, toolViews } from "./interaction-support.ts";

describe("tool calls end to end", () => {
  // One bridge per set of options the tests share (none, or the terminal extension): each reads only its own session.
  const plain = sharedBridge({});
  const terminal = sharedBridge({ clientCapabilities: { _meta: { terminal_output: true } } });

  test("each tool kind: readable title, kind, absolute locations, result content, rawInput/rawOutput", async () => {
    await plain.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:tools")).stopReason).toBe("end_turn");
      const ws = h.stateDir;
      const views = toolViews(h, sessionId);
      for (const v of views.values()) {
        expect(v.history[0]!.sessionUpdate).toBe("tool_call");
        expect(v.history.filter((u) => u.sessionUpdate === "tool_call")).toHaveLength(1);
        expect(["completed", "failed"]).toContain(v.status!);
        expect(v.rawInput).toBeDefined();
        // What a person reads, or nothing (an edit's diff needs no copy): never ZCode's result object.
        if (v.rawOutput !== undefined) expect(typeof v.rawOutput).toBe("string");
      }
      // ZCode's tools scenario has one edit that misses and one test run that fails.
      expect(
        [...views.values()]
          .filter((v) => v.status === "failed")
          .map((v) => v.title)
          .sort(),
      ).toEqual(["Edit src/greet.ts", "bun test"]);

      const bash = byTitle(views, "ls -la");
      expect(bash.kind).toBe("execute");
      expect(contentText(bash)).toContain("```console\ntotal 24\n");
      expect(contentText(bash)).toContain("exit code 0");

      const read = byTitle(views, "Read src/greet.ts");
      expect(read.kind).toBe("read");
      expect(read.locations).toEqual([{ path: join(ws, "src/greet.ts") }]);
      expect(contentText(read)).toStartWith("```typescript\nexport function greet");

      const edit = [...views.values()].find((v) => v.title === "Edit src/greet.ts" && v.status === "completed")!;
      expect(edit.kind).toBe("edit");
      // The first changed line, from ZCode's file_diff hunks.
      expect(edit.locations).toEqual([{ path: join(ws, "src/greet.ts"), line: 2 }]);
      expect(edit.content).toEqual([
        { type: "diff", path: join(ws, "src/greet.ts"), oldText: '  return "Hello, " + name;', newText: "  return `Hello, ${name}!`;" },
      ]);
      const missed = [...views.values()].find((v) => v.title === "Edit src/greet.ts" && v.status === "failed")!;
      expect(contentText(missed)).toContain("String to replace not found in file.");

      const write = byTitle(views, "Write src/farewell.ts");
      expect(write.kind).toBe("edit");
      expect(write.content?.[0]).toMatchObject({ type: "diff", path: join(ws, "src/farewell.ts"), oldText: null });

      const grep = byTitle(views, 'grep "greet\\("');
      expect(grep.kind).toBe("search");
      expect(contentText(grep)).toBe("Found 2 files\n- src/greet.ts\n- src/index.ts");

      const glob = byTitle(views, 'Find "src/**/*.ts"');
      expect(glob.kind).toBe("search");
      expect(contentText(glob)).toContain("- src/farewell.ts");

      const fetch = byTitle(views, "Fetch https://example.com/docs/greeting");
      expect(fetch.kind).toBe("fetch");
      expect(contentText(fetch)).toContain("The greeting API returns");

      const task = byTitle(views, "Find callers of greet");
      expect(task.kind).toBe("think");
      expect(contentText(task)).toContain("Found 2 callers");
      expect(contentText(task)).not.toContain("agentId");

      const todo = byTitle(views, "Update plan");
      expect(todo.kind).toBe("think");
    });
  });

  test("Bash without the terminal extension: fenced output grows with only what is new", async () => {
    // Progress paced 40 ms apart: updates the editor has not read yet are merged (update-sink.ts), so on a
    // loaded machine 5 ms apart could leave fewer than three snapshots to compare.
    await withBridge({ env: { ZCODE_SIM_DELAY_MS: "40" } }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:bash");
      const bash = byTitle(toolViews(h, sessionId), "ls -la");
      expect(JSON.stringify(bash.history)).not.toContain("terminal");
      const texts = bash.history
        .map((u) =>
          u.sessionUpdate === "tool_call_update" && u.content?.[0]?.type === "content" && u.content[0].content.type === "text"
            ? u.content[0].content.text
            : undefined,
        )
        .filter((t): t is string => t !== undefined);
      expect(texts.length).toBeGreaterThanOrEqual(3);
      // Each live snapshot extends the previous one; no line appears twice.
      const last = texts[texts.length - 1]!;
      expect(last.match(/total 24/g)).toHaveLength(1);
      expect(last).toContain("cannot access 'build'");
    });
  });

  test("Bash with the terminal extension: terminal content + info, new data only, exit in its own update", async () => {
    await terminal.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:bash");
      const bash = byTitle(toolViews(h, sessionId), "ls -la");
      const id = bash.toolCallId;
      const first = bash.history[0]!;
      expect(first.content).toEqual([{ type: "terminal", terminalId: id }]);
      expect(first._meta).toMatchObject({ terminal_info: { terminal_id: id } });
      const data = bash.history.map((u) => (u._meta as any)?.terminal_output?.data).filter((d): d is string => typeof d === "string");
      const joined = data.join("");
      expect(joined.match(/total 24/g)).toHaveLength(1);
      expect(joined.match(/package\.json/g)).toHaveLength(1);
      expect(joined).toContain("cannot access 'build'");
      const exits = bash.history.filter((u) => (u._meta as any)?.terminal_exit);
      expect(exits).toHaveLength(1);
      expect(Object.keys(exits[0]!).sort()).toEqual(["_meta", "sessionUpdate", "toolCallId"]);
      expect((exits[0]!._meta as any).terminal_exit).toEqual({ terminal_id: id, exit_code: 0, signal: null });
      expect(bash.status).toBe("completed");
      expect(bash.content).toEqual([{ type: "terminal", terminalId: id }]);
      expect(JSON.stringify(bash.history)).not.toContain("```console");
    });
  });

  test("terminal extension with a bounded, sliding tail: every line exactly once, in order", async () => {
    await terminal.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:flood-tools n=400 tail=512")).stopReason).toBe("end_turn");
      const data = h
        .updates(sessionId)
        .map((u) => ((u as { _meta?: any })._meta?.terminal_output?.data as string | undefined) ?? "")
        .join("");
      const expected = Array.from({ length: 400 }, (_, i) => `line ${i} of build output\n`).join("");
      expect(data).toBe(expected);
    });
  });

  test("a batch finishes only the unfinished tool and keeps the earlier result", async () => {
    await plain.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:batch");
      const views = toolViews(h, sessionId);
      expect(views.size).toBe(2);
      for (const v of views.values()) {
        expect(v.status).toBe("completed");
        expect(v.history.filter((u) => u.status === "completed")).toHaveLength(1);
        expect(contentText(v)).toContain("src/greet.ts");
      }
    });
  });

  test("session/load replays tool calls with results and diffs, fenced even with the terminal extension", async () => {
    await terminal.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:tools");
      const before = h.received.updates.length;
      await h.agent.request("session/load", { sessionId, cwd: h.stateDir, mcpServers: [] });
      const replayed = h.received.updates
        .slice(before)
        .filter((n) => n.sessionId === sessionId)
        .map((n) => n.update);
      const calls = replayed.filter((u) => u.sessionUpdate === "tool_call");
      expect(calls.length).toBeGreaterThanOrEqual(8);
      expect(JSON.stringify(calls)).not.toContain("terminal");
      const bash = calls.find((u) => u.sessionUpdate === "tool_call" && u.title === "ls -la")!;
      expect(bash).toMatchObject({ status: "completed", kind: "execute" });
      expect(JSON.stringify(bash)).toContain("```console");
      expect(calls.some((u) => u.sessionUpdate === "tool_call" && u.content?.some((c) => c.type === "diff" && c.oldText === null))).toBe(
        true,
      );
    });
  });
});
