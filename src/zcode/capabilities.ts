import { MIN_ZCODE_VERSION } from "./errors.ts";
import { LEGACY_SESSION_METHODS } from "./v4/only-methods.ts";

// What the running ZCode CLI can do, from its version (the compatibility
// table of ZCODE-PROTOCOL.md and ZCODE-FIELD-NOTES.md), corrected at run time:
// any method that answers -32601 is marked unsupported for the rest of this
// child's life.

type Version = [number, number, number, number];

/** Parses "0.15.3", "v0.14.8.2", "zcode 0.16.0-beta.1" ...; undefined when there is no version. */
export function parseVersion(text: string): Version | undefined {
  const m = /(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0)];
}

export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a) ?? [0, 0, 0, 0];
  const pb = parseVersion(b) ?? [0, 0, 0, 0];
  for (let i = 0; i < 4; i++) {
    const d = pa[i]! - pb[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Extract the bare version from `zcode --version` output (first x.y.z[.w]). */
export function extractVersion(output: string): string | undefined {
  const m = /\d+\.\d+\.\d+(?:\.\d+)?/.exec(output);
  return m?.[0];
}

/** Methods that some supported versions lack. Everything else exists from 0.14.8 on. */
interface Rule {
  /** Method name, or a prefix ending in "/" for a family (workspace/). */
  method: string;
  since: string;
  /** First version without it. */
  removedIn?: string;
}

const RULES: readonly Rule[] = [
  { method: "workspace/", since: "0.15.0" },
  { method: "session/steer", since: "0.15.0", removedIn: "0.16.0" },
  { method: "session/rewind", since: "0.15.0", removedIn: "0.16.0" },
  { method: "session/fork", since: "0.14.8" },
  { method: "session/goal", since: "0.14.8" },
  { method: "session/compact", since: "0.14.8" },
  { method: "session/setMode", since: "0.14.8" },
  { method: "session/setThoughtLevel", since: "0.14.8" },
  { method: "session/subscribe", since: "0.14.8" },
];

function ruleFor(method: string): Rule | undefined {
  return RULES.find((r) => (r.method.endsWith("/") ? method.startsWith(r.method) : r.method === method));
}

/**
 * Operations the bridge offers whichever channel carries them: v4 (probed,
 * ZCODE-V4.md §2) or the legacy method of older CLIs.
 */
const OPERATIONS: Record<string, string> = {
  "op:steer": "session/steer",
  "op:rewind": "session/rewind",
};

export class CliCapabilities {
  readonly version: string;
  /** Does this child serve ZCode's v4 command channel? Unknown until probed. */
  v4: boolean | undefined;
  /**
   * This child answered a legacy session method -32601 and serves v4: it
   * speaks v4 alone (ZCode deletes the legacy file whole, zcode-protocol/index.ts
   * lines 22-33), so every session operation goes to v4 from now on.
   */
  legacyGone = false;
  /** False when the CLI is older than 0.14.8: the bridge refuses to run it. */
  readonly supported: boolean;
  private readonly unsupported = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly known: boolean;

  constructor(version: string) {
    this.version = version;
    // A version we cannot read (a dev build, a wrapper script) is given the
    // benefit of the doubt; -32601 answers correct the picture as they come.
    this.known = parseVersion(version) !== undefined;
    this.supported = !this.known || compareVersions(version, MIN_ZCODE_VERSION) >= 0;
  }

  supports(method: string): boolean {
    // A v4-only child: its -32601 answers to legacy methods say nothing of what v4 serves in their place.
    if (this.legacyGone && LEGACY_SESSION_METHODS.has(method)) return true;
    const legacy = OPERATIONS[method];
    if (legacy !== undefined) return this.v4 === true || this.supports(legacy);
    if (this.unsupported.has(method)) return false;
    if (!this.supported) return false;
    if (!this.known) return true;
    const rule = ruleFor(method);
    if (!rule) return true;
    if (compareVersions(this.version, rule.since) < 0) return false;
    if (rule.removedIn && compareVersions(this.version, rule.removedIn) >= 0) return false;
    return true;
  }

  /** The v4 probe's answer; listeners hear it when it changes what is offered. */
  setV4(available: boolean): void {
    if (this.v4 === available) return;
    this.v4 = available;
    this.changed();
  }

  /** The child speaks v4 alone (v4/only-choice.ts); listeners hear it: the menu offers what v4 serves. */
  markLegacyGone(): void {
    if (this.legacyGone) return;
    this.legacyGone = true;
    this.changed();
  }

  markUnsupported(method: string): void {
    if (this.unsupported.has(method)) return;
    this.unsupported.add(method);
    this.changed();
  }

  private changed(): void {
    for (const cb of [...this.listeners]) {
      try {
        cb();
      } catch {
        // A listener's failure is its own; the others still hear the change.
      }
    }
  }

  onChange(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
}
