import { describe, expect, test } from "bun:test";
import { allCommands, availableCommands, matchCommand } from "../../../src/commands/registry.ts";
import { CliCapabilities } from "../../../src/zcode/capabilities.ts";
import { checkSessionUpdate } from "../../support/schema.ts";
import { FakeCaps, FakeZCodeError, fakeApi, fakeContext } from "../support/commands-fakes.ts";

describe("matchCommand", () => {
  test("a registered name at the start is a command, with its args", () => {
    expect(matchCommand("/fork")?.command.name).toBe("fork");
    expect(matchCommand("/fork")?.args).toBe("");
    const m = matchCommand("/goal   Ship the login page  ");
    expect(m?.command.name).toBe("goal");
    expect(m?.args).toBe("Ship the login page");
  });

  test("leading whitespace is ignored; multi-line args are kept whole", () => {
    expect(matchCommand("  \n\t/compact keep the API notes")?.args).toBe("keep the API notes");
    expect(matchCommand("/steer use TypeScript\nand add tests")?.args).toBe("use TypeScript\nand add tests");
    expect(matchCommand("/help\n")?.command.name).toBe("help");
  });

  test("paths, unknown words and commands mid-sentence are ordinary prompts", () => {
    for (const text of [
      "/usr/lib/foo",
      "/usr/lib",
      "/usr",
      "/forks",
      "/fork-bomb",
      "/fork/child",
      "please /fork this",
      "fork",
      "/",
      "",
      "   ",
      "//fork",
      "/ fork",
      "/tmp/x.txt is missing",
    ]) {
      expect(matchCommand(text)).toBeUndefined();
    }
  });

  test("a name typed in another case is still the command, never a prompt", () => {
    expect(matchCommand("/FORK")?.command.name).toBe("fork");
    expect(matchCommand("/Goal Ship it")).toMatchObject({ command: { name: "goal" }, args: "Ship it" });
  });

  test("every registered command matches by its own name", () => {
    for (const c of allCommands()) expect(matchCommand(`/${c.name} x`)?.command).toBe(c);
  });

  test("an unsupported command still matches (typed by hand it must say 'not supported', not reach the model)", () => {
    const caps = new FakeCaps("0.16.2", ["session/steer", "session/rewind"]).asCaps();
    expect(availableCommands(caps).map((c) => c.name)).not.toContain("steer");
    expect(matchCommand("/steer go faster")?.command.name).toBe("steer");
  });

  test("only steer runs beside a turn", () => {
    expect(
      allCommands()
        .filter((c) => c.runsBesideTurn)
        .map((c) => c.name),
    ).toEqual(["steer"]);
  });

  test("only quota runs without ZCode, and it needs no ZCode method", () => {
    expect(
      allCommands()
        .filter((c) => c.bridgeOnly)
        .map((c) => c.name),
    ).toEqual(["quota"]);
    expect(matchCommand("/quota")?.command.requires).toBeUndefined();
  });
});

describe("availableCommands", () => {
  const names = (caps?: FakeCaps) => availableCommands(caps?.asCaps()).map((c) => c.name);

  test("full CLI (0.15.x): everything", () => {
    expect(names(new FakeCaps("0.15.3"))).toEqual([
      "fork",
      "rewind",
      "goal",
      "compact",
      "steer",
      "mode",
      "model",
      "thought",
      "quota",
      "help",
    ]);
  });

  test("0.14.8 and 0.16.x, as the real capabilities table says (no steer, no rewind)", () => {
    for (const version of ["0.14.8", "0.16.9"]) {
      expect(availableCommands(new CliCapabilities(version)).map((c) => c.name)).toEqual([
        "fork",
        "goal",
        "compact",
        "mode",
        "model",
        "thought",
        "quota",
        "help",
      ]);
    }
    expect(availableCommands(new CliCapabilities("0.15.3")).map((c) => c.name)).toHaveLength(10);
  });

  test("0.14.8 and 0.16.x with the fake capabilities", () => {
    const expected = ["fork", "goal", "compact", "mode", "model", "thought", "quota", "help"];
    expect(names(new FakeCaps("0.14.8", ["session/steer", "session/rewind"]))).toEqual(expected);
    expect(names(new FakeCaps("0.16.2", ["session/steer", "session/rewind"]))).toEqual(expected);
  });

  test("mode, model, thought, quota and help are always there", () => {
    const none = new FakeCaps("9.9.9", [
      "session/fork",
      "session/rewind",
      "session/goal",
      "session/compact",
      "session/steer",
      "session/setMode",
      "session/setThoughtLevel",
    ]);
    expect(names(none)).toEqual(["mode", "model", "thought", "quota", "help"]);
  });

  test("no CLI detected yet: nothing is known missing", () => {
    expect(names()).toHaveLength(allCommands().length);
  });

  test("a method marked unsupported leaves the list", () => {
    const caps = new FakeCaps("0.15.3");
    expect(names(caps)).toContain("compact");
    caps.markUnsupported("session/compact");
    expect(names(caps)).not.toContain("compact");
  });

  test("entries carry description and input hint, and form a valid available_commands_update", () => {
    const list = availableCommands();
    for (const c of list) expect(c.description.length).toBeGreaterThan(10);
    expect(list.find((c) => c.name === "goal")?.input).toEqual({
      hint: "[objective | replace <objective> | clear | pause | resume]",
    });
    expect(list.find((c) => c.name === "steer")?.input).toEqual({ hint: "<instructions>" });
    expect(list.find((c) => c.name === "fork")?.input).toBeUndefined();
    expect(checkSessionUpdate({ sessionUpdate: "available_commands_update", availableCommands: list })).toEqual([]);
  });
});

describe("shared handling", () => {
  test("a command the CLI lacks answers 'not supported' without calling ZCode", async () => {
    const caps = new FakeCaps("0.16.2", ["session/steer", "session/rewind"]);
    const { api, calls } = fakeApi({}, caps);
    const f = fakeContext(api, { args: "use tabs", turnRunning: true, version: "0.16.2" });
    await matchCommand("/steer use tabs")!.command.run(f.ctx);
    expect(f.said).toEqual(["`/steer` is not supported by ZCode CLI 0.16.2"]);
    expect(calls).toEqual([]);
  });

  test("-32601 from the method: 'not supported', and the capability is marked off", async () => {
    const caps = new FakeCaps("0.15.3");
    const { api, calls } = fakeApi({ compact: new FakeZCodeError(-32601, "Method not found: session/compact", "session/compact") }, caps);
    const f = fakeContext(api, { version: "0.15.3" });
    await matchCommand("/compact")!.command.run(f.ctx);
    expect(calls.map((c) => c.method)).toEqual(["session/compact"]);
    expect(f.said).toEqual(["`/compact` is not supported by ZCode CLI 0.15.3"]);
    expect(caps.supports("session/compact")).toBe(false);
    expect(caps.changes).toBe(1);
    expect(availableCommands(caps.asCaps()).map((c) => c.name)).not.toContain("compact");
  });

  test("an error nobody can explain propagates (the agent maps it to an ACP error)", async () => {
    const { api } = fakeApi({ fork: new FakeZCodeError(-32004, "Session not found: sess_1", "session/fork") });
    const f = fakeContext(api);
    await expect(matchCommand("/fork")!.command.run(f.ctx)).rejects.toThrow("Session not found");
    expect(f.said).toEqual([]);
  });
});
