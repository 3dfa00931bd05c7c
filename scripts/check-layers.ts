// Fails when an import in src/ points up the layers. The folders and what
// each may import are the table below (docs/architecture.md draws it):
//   acp → session → commands → translate → zcode, with the leaf modules at
//   the root of src/ (config, lines, log, redact, trace, version, …) and
//   i18n usable from everywhere. Biome's noImportCycles catches cycles; it
//   cannot say which folder may import which, so this does.
// Usage: bun scripts/check-layers.ts   (exit 1 and file:line per violation)
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const SRC = path.join(import.meta.dir, "..", "src");

/** The layer of a file: its first folder under src/, or "shared" for a file at the root. */
function layerOf(rel: string): string {
  const parts = rel.split("/");
  if (parts.length === 1) return rel === "main.ts" ? "main" : "shared";
  return parts[0]!;
}

// Who may import whom (besides itself and "shared", which everyone may use).
// A `type` import counts like any other: a type that has to come from above
// is coupling all the same.
const MAY_IMPORT: Record<string, readonly string[]> = {
  main: ["cli"],
  cli: ["acp", "zcode", "quota", "app-history", "i18n"],
  acp: ["session", "translate", "zcode", "i18n"],
  session: ["commands", "translate", "zcode", "quota", "app-history", "i18n"],
  commands: ["translate", "zcode", "quota", "i18n"],
  translate: ["zcode", "i18n"],
  quota: ["zcode", "i18n"],
  "app-history": ["zcode", "i18n"],
  zcode: ["i18n"],
  i18n: [],
  shared: [],
};

// What `acp` may take from `zcode` is types only (the pre-warmed connection,
// the list answer): the wire itself is the session layer's business.
const TYPE_ONLY: Record<string, readonly string[]> = { acp: ["zcode"] };

const IMPORT_RE = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/gm;

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

export interface Violation {
  file: string;
  line: number;
  message: string;
}

export function checkLayers(srcDir = SRC): Violation[] {
  const out: Violation[] = [];
  for (const file of files(srcDir)) {
    const rel = path.relative(srcDir, file);
    const from = layerOf(rel);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[3] ?? m[4]!;
      const typeOnly = m[2] !== undefined;
      const target = path.relative(srcDir, path.resolve(path.dirname(file), spec));
      if (target.startsWith("..")) continue; // package.json and the like
      const to = layerOf(target);
      if (to === from || to === "shared") continue;
      const line = text.slice(0, m.index).split("\n").length;
      const allowed = MAY_IMPORT[from] ?? [];
      if (!allowed.includes(to)) {
        out.push({ file: `src/${rel}`, line, message: `${from} may not import ${to} (${target})` });
      } else if (!typeOnly && TYPE_ONLY[from]?.includes(to) && m[1] === "import") {
        out.push({ file: `src/${rel}`, line, message: `${from} may import only types from ${to} (${target})` });
      }
    }
  }
  return out;
}

if (import.meta.main) {
  const found = checkLayers();
  for (const v of found) console.error(`${v.file}:${v.line}: ${v.message}`);
  if (found.length > 0) {
    console.error(`layers: ${found.length} import(s) point up`);
    process.exit(1);
  }
  console.error("layers: every import points down");
}
