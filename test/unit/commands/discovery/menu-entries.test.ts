import { describe, expect, test } from "bun:test";
import { MAX_ENTRIES, menuEntries } from "../../../../src/commands/discovery/menu-entries.ts";

const cmd = (name: string, description = `the ${name} command`) => ({ name, description, file: `/c/${name}.md` });
const skill = (name: string, description = `the ${name} skill`) => ({ name, description, file: `/s/${name}/SKILL.md` });

describe("menuEntries", () => {
  test("commands before skills; a skill gets the [task] hint unless it has its own", () => {
    expect(
      menuEntries([{ ...cmd("review"), argumentHint: "<focus>" }], [skill("pdf"), { ...skill("gen"), argumentHint: "<what>" }]),
    ).toEqual([
      { name: "review", description: "the review command", input: { hint: "<focus>" } },
      { name: "pdf", description: "the pdf skill", input: { hint: "[task]" } },
      { name: "gen", description: "the gen skill", input: { hint: "<what>" } },
    ]);
  });

  test("the first of a name wins, without regard to case; ZCode's reserved names are left out", () => {
    const out = menuEntries([cmd("deploy"), cmd("init"), cmd("plan")], [skill("Deploy"), skill("model"), skill("notes"), skill("NOTES")]);
    expect(out.map((e) => [e.name, e.description])).toEqual([
      ["deploy", "the deploy command"],
      ["notes", "the notes skill"],
    ]);
  });

  test("skill names that cannot be typed as one word are left out", () => {
    expect(menuEntries([], [skill("two words"), skill("-flag"), skill("ok.v2"), skill("plug:in")]).map((e) => e.name)).toEqual([
      "ok.v2",
      "plug:in",
    ]);
  });

  test("descriptions and hints are one line, at most 100 characters; no description says it is a skill", () => {
    const [long, empty] = menuEntries([], [skill("long", `first line\n${"x".repeat(200)}`), skill("bare", "")]);
    expect(long!.description).toHaveLength(100);
    expect(long!.description).toStartWith("first line xxx");
    expect(long!.description).toEndWith("…");
    expect(empty!.description).toBe("ZCode skill");
  });

  test(`at most ${MAX_ENTRIES} entries`, () => {
    const many = Array.from({ length: MAX_ENTRIES + 50 }, (_, i) => skill(`s${i}`));
    expect(menuEntries([], many)).toHaveLength(MAX_ENTRIES);
  });
});
