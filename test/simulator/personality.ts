// What each CLI version answers. 0.16.9 (the default) is the version ZCode's
// source and the captured turn describe; the older personalities keep only
// what differs:
// - < 0.14.8: no session/subscribe, no extension methods (fork, goal,
//   compact, setMode, setThoughtLevel, steer, rewind), no workspace/*.
// - 0.14.8: no workspace/*; no steer/rewind.
// - 0.15.x: also session/steer and session/rewind (the 0.15 behaviour).
// - >= 0.16: steer and rewind removed again: -32601 "Method not found: <m>".
// - >= 0.16.5: the v4 command channel (v4.ts); older versions answer -32601.
export interface Personality {
  version: string;
  /** Methods this version answers -32601 to. */
  missing: (method: string) => boolean;
  /** turnId on the event envelope (CLI >= 0.16). */
  turnIdOnEnvelope: boolean;
}

const EXTENSIONS = new Set([
  "session/fork",
  "session/rewind",
  "session/goal",
  "session/compact",
  "session/steer",
  "session/setMode",
  "session/setThoughtLevel",
]);

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function personality(version: string): Personality {
  const at = (v: string) => compareVersions(version, v) >= 0;
  const missing = (method: string): boolean => {
    const steerRewind = method === "session/steer" || method === "session/rewind";
    // v4 from 0.16.5 on [sim: the first serving version is not in ZCode's tree; ZCODE-V4.md §2].
    if (method.startsWith("v4/")) return !at("0.16.5");
    if (!at("0.14.8")) return method === "session/subscribe" || EXTENSIONS.has(method) || method.startsWith("workspace/");
    if (!at("0.15.0")) return method.startsWith("workspace/") || steerRewind;
    if (at("0.16.0")) return steerRewind;
    return false;
  };
  return { version, missing, turnIdOnEnvelope: at("0.16.0") };
}
