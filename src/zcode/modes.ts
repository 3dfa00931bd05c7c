// The modes ZCode's session schema accepts (its `mode` enum, as
// test/simulator/zcode-schemas.ts MODES reads it from ZCode's source).
// --mode / ZCODE_ACP_MODE are checked against these at start, so a typo names
// the flag instead of failing at the first session/new with ZCode's zod text.
export const ZCODE_MODES = ["plan", "build", "edit", "yolo", "guarded", "auto"] as const;
export type ZCodeMode = (typeof ZCODE_MODES)[number];

export function isZCodeMode(value: string): value is ZCodeMode {
  return (ZCODE_MODES as readonly string[]).includes(value);
}
