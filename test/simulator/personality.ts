// What each CLI version answers, per the compatibility table of the spec.
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
    if (!at("0.14.8")) return method === "session/subscribe" || EXTENSIONS.has(method) || method.startsWith("workspace/");
    if (!at("0.15.0")) return method.startsWith("workspace/") || method === "session/steer" || method === "session/rewind";
    if (at("0.16.0")) return method === "session/steer" || method === "session/rewind";
    return false;
  };
  return { version, missing, turnIdOnEnvelope: at("0.16.0") };
}
