// A build plugin that makes the ACP SDK build its zod schemas on first use.
//
// The SDK's generated `zod.gen.js` builds every schema of the protocol at
// import: ~250 top-level `export const zX = z.object(...)`, of which the
// bridge parses a dozen. That is most of the cost of loading the agent (tens
// of ms and ~6 MB of resident memory, measured by the startup bench), all of
// it before the first session can be answered. Each top-level schema becomes
// `z.lazy(() => <the same expression>)`: zod builds it when it first parses
// (and keeps it), schemas still refer to each other, and parsing gives the
// same results. Marked pure, the ones nobody uses are dropped from the bundle.
//
// The dependency is unchanged; only how its module is evaluated is. If a new
// SDK version lays the file out differently, the build fails here (every
// `export const` must be wrapped), rather than shipping a half-lazy module.
import type { BunPlugin } from "bun";

/** zod.gen.js of any protocol version inside the SDK's dist/. */
export const SDK_SCHEMA_FILE = /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/].*[\\/]zod\.gen\.js$/;

const EXPORT = /^export const (z\w+) = ([\s\S]*);$/;

/**
 * Schemas the SDK reads at import, so they stay as the SDK builds them: the
 * v2 agent (dist/v2/acp.js) lists `Object.keys(zMcpCapabilities.shape)` at
 * load, and a z.lazy has no `.shape`. What they refer to is defined above
 * them in the file (lazy or not, usable at once).
 */
export const EAGER_SCHEMAS = new Set(["zMcpCapabilities"]);

export function lazifySchemas(source: string, file = "zod.gen.js"): { code: string; wrapped: number; eager: number } {
  if (!/^import \* as z from "zod(\/v4)?";$/m.test(source))
    throw new Error(`${file}: no \`import * as z from "zod/v4"\`; update scripts/lazy-schemas.ts`);
  // Top-level statements start at column 0; a schema's own lines (fields,
  // their doc comments) are indented.
  const chunks = source.split(/^(?=\/\*\*|\/\/|export |import )/m);
  let wrapped = 0;
  let eager = 0;
  const out = chunks.map((chunk) => {
    if (!chunk.startsWith("export const ")) return chunk;
    const m = EXPORT.exec(chunk.trimEnd());
    if (!m) throw new Error(`${file}: cannot read the statement \`${chunk.slice(0, 80)}…\`; update scripts/lazy-schemas.ts`);
    if (EAGER_SCHEMAS.has(m[1]!)) {
      eager++;
      return chunk;
    }
    wrapped++;
    return `export const ${m[1]} = /* @__PURE__ */ z.lazy(() => ${m[2]});\n`;
  });
  const exports = source.match(/^export /gm)?.length ?? 0;
  if (wrapped === 0 || wrapped + eager !== exports) {
    throw new Error(`${file}: ${wrapped} of ${exports} exports made lazy; update scripts/lazy-schemas.ts`);
  }
  return { code: out.join(""), wrapped, eager };
}

export const lazySdkSchemas: BunPlugin = {
  name: "lazy-sdk-schemas",
  setup(build) {
    build.onLoad({ filter: SDK_SCHEMA_FILE }, async (args) => ({
      contents: lazifySchemas(await Bun.file(args.path).text(), args.path).code,
      loader: "js",
    }));
  },
};
