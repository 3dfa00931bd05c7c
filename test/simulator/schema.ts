// A tiny strict validator in the manner of zod v3 (which ZCode uses): every
// object is `.strict()` unless said otherwise, issues carry a path and zod's
// wording, and `paramsError` formats them the way the CLI's parseParams does:
// `Invalid params — <path or (root)>: <msg>[; … at most 5][ (+N more)]`.
// The exact wording of each issue is zod v3's as far as we know it [GUESSED:
// ZCode's zod major version was not confirmed]; the prefix and paths are the
// CLI's.

export interface Issue {
  path: (string | number)[];
  message: string;
}

export interface Schema<T = unknown> {
  /** Checks `v` (pushing issues) and returns the parsed value (defaults applied). */
  check(v: unknown, path: (string | number)[], issues: Issue[]): T;
  optional?: boolean;
  dflt?: () => unknown;
}

function typeName(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number" && Number.isNaN(v)) return "nan";
  return typeof v;
}

function typeIssue(expected: string, v: unknown, path: (string | number)[], issues: Issue[]): void {
  issues.push({ path, message: v === undefined ? "Required" : `Expected ${expected}, received ${typeName(v)}` });
}

export const unknown = (): Schema => ({ check: (v) => v });

export function str(o: { min?: number; max?: number; trim?: boolean; regex?: RegExp } = {}): Schema<string> {
  return {
    check(v, path, issues) {
      if (typeof v !== "string") {
        typeIssue("string", v, path, issues);
        return "";
      }
      const s = o.trim ? v.trim() : v;
      if (o.min !== undefined && s.length < o.min) issues.push({ path, message: `String must contain at least ${o.min} character(s)` });
      if (o.max !== undefined && s.length > o.max) issues.push({ path, message: `String must contain at most ${o.max} character(s)` });
      if (o.regex && !o.regex.test(s)) issues.push({ path, message: "Invalid" });
      return s;
    },
  };
}

/** ZCode's `nonEmptyString`: `z.string().trim().min(1)`. */
export const nonEmpty = (): Schema<string> => str({ trim: true, min: 1 });

export function num(o: { int?: boolean; min?: number; max?: number; positive?: boolean } = {}): Schema<number> {
  return {
    check(v, path, issues) {
      if (typeof v !== "number" || Number.isNaN(v)) {
        typeIssue("number", v, path, issues);
        return 0;
      }
      if (o.int && !Number.isInteger(v)) issues.push({ path, message: "Expected integer, received float" });
      if (o.positive && !(v > 0)) issues.push({ path, message: "Number must be greater than 0" });
      if (o.min !== undefined && v < o.min) issues.push({ path, message: `Number must be greater than or equal to ${o.min}` });
      if (o.max !== undefined && v > o.max) issues.push({ path, message: `Number must be less than or equal to ${o.max}` });
      return v;
    },
  };
}

export const int = (o: { min?: number; max?: number; positive?: boolean } = {}) => num({ ...o, int: true });
export const nonNegInt = () => int({ min: 0 });

export const bool = (): Schema<boolean> => ({
  check(v, path, issues) {
    if (typeof v !== "boolean") typeIssue("boolean", v, path, issues);
    return v as boolean;
  },
});

export function lit<T extends string | number | boolean>(value: T): Schema<T> {
  return {
    check(v, path, issues) {
      if (v !== value) issues.push({ path, message: `Invalid literal value, expected ${JSON.stringify(value)}` });
      return value;
    },
  };
}

export function enm<T extends string>(values: readonly T[]): Schema<T> {
  return {
    check(v, path, issues) {
      if (typeof v !== "string" || !values.includes(v as T)) {
        if (v === undefined) issues.push({ path, message: "Required" });
        else
          issues.push({
            path,
            message: `Invalid enum value. Expected ${values.map((x) => `'${x}'`).join(" | ")}, received ${typeof v === "string" ? `'${v}'` : typeName(v)}`,
          });
      }
      return v as T;
    },
  };
}

export function arr<T>(item: Schema<T>, o: { min?: number; max?: number } = {}): Schema<T[]> {
  return {
    check(v, path, issues) {
      if (!Array.isArray(v)) {
        typeIssue("array", v, path, issues);
        return [];
      }
      if (o.min !== undefined && v.length < o.min) issues.push({ path, message: `Array must contain at least ${o.min} element(s)` });
      if (o.max !== undefined && v.length > o.max) issues.push({ path, message: `Array must contain at most ${o.max} element(s)` });
      return v.map((x, i) => item.check(x, [...path, i], issues));
    },
  };
}

/** `z.record(z.string(), value)` — ZCode's `jsonObjectSchema` is `record(unknown())`. */
export function record(value: Schema = unknown()): Schema<Record<string, unknown>> {
  return {
    check(v, path, issues) {
      if (!v || typeof v !== "object" || Array.isArray(v)) {
        typeIssue("object", v, path, issues);
        return {};
      }
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = value.check(x, [...path, k], issues);
      return out;
    },
  };
}

export const jsonObject = () => record();

export type Shape = Record<string, Schema>;

/** `z.object(shape).strict()` (pass `strict:false` for a plain zod object, which strips unknown keys). */
export function obj(
  shape: Shape,
  o: { strict?: boolean; refine?: (v: Record<string, unknown>, issues: Issue[], path: (string | number)[]) => void } = {},
): Schema<Record<string, unknown>> & { shape: Shape } {
  const strict = o.strict !== false;
  return {
    shape,
    check(v, path, issues) {
      if (!v || typeof v !== "object" || Array.isArray(v)) {
        typeIssue("object", v, path, issues);
        return {};
      }
      const input = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      const before = issues.length;
      for (const [k, s] of Object.entries(shape)) {
        const x = input[k];
        if (x === undefined) {
          if (s.dflt) out[k] = s.dflt();
          else if (!s.optional) issues.push({ path: [...path, k], message: "Required" });
          continue;
        }
        out[k] = s.check(x, [...path, k], issues);
      }
      if (strict) {
        const extra = Object.keys(input).filter((k) => !Object.hasOwn(shape, k));
        if (extra.length) issues.push({ path, message: `Unrecognized key(s) in object: ${extra.map((k) => `'${k}'`).join(", ")}` });
      }
      // zod runs refinements only on an object that parsed.
      if (o.refine && before === issues.length) o.refine(out, issues, path);
      return out;
    },
  };
}

export function opt<T>(s: Schema<T>): Schema<T | undefined> {
  return { ...s, check: s.check, optional: true };
}

export function withDefault<T>(s: Schema<T>, d: T): Schema<T> {
  return { ...s, check: s.check, optional: true, dflt: () => structuredClone(d) };
}

export function nullable<T>(s: Schema<T>): Schema<T | null> {
  return { ...s, check: (v, path, issues) => (v === null ? null : s.check(v, path, issues)) };
}

/** `z.union([...])`: the first member that parses; "Invalid input" otherwise. */
export function union(members: Schema[]): Schema {
  return {
    check(v, path, issues) {
      for (const m of members) {
        const mine: Issue[] = [];
        const r = m.check(v, path, mine);
        if (mine.length === 0) return r;
      }
      issues.push({ path, message: "Invalid input" });
      return v;
    },
  };
}

/** `z.discriminatedUnion(key, [...])`. */
export function discriminated(key: string, members: Record<string, Schema>): Schema {
  const keys = Object.keys(members);
  return {
    check(v, path, issues) {
      if (!v || typeof v !== "object" || Array.isArray(v)) {
        typeIssue("object", v, path, issues);
        return v;
      }
      const d = (v as Record<string, unknown>)[key];
      const m = members[String(d)];
      if (!m || typeof d === "object") {
        issues.push({ path: [...path, key], message: `Invalid discriminator value. Expected ${keys.map((k) => `'${k}'`).join(" | ")}` });
        return v;
      }
      return m.check(v, path, issues);
    },
  };
}

export function validate<T>(s: Schema<T>, v: unknown): { ok: true; value: T } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  const value = s.check(v, [], issues);
  return issues.length ? { ok: false, issues } : { ok: true, value };
}

export function formatIssues(issues: Issue[]): string {
  const shown = issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`);
  return `${shown.join("; ")}${issues.length > 5 ? ` (+${issues.length - 5} more)` : ""}`;
}

/** The CLI's -32602 message for a params schema failure. */
export function paramsMessage(issues: Issue[]): string {
  return `Invalid params — ${formatIssues(issues)}`;
}
