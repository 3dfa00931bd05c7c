// Validates every message the bridge sends to the editor against the ACP
// SDK's own JSON schema. The SDK does not validate what an agent sends, and an
// editor silently drops an invalid session/update, so this is the only place
// such a bug shows.
//
// Compiling the schema with ajv costs ~1 s of CPU, and every e2e file (a
// process of its own) needs it: ~1 min of the suite. So the validators ajv
// generates are written once as a module (ajv's standalone code) under
// node_modules/.cache/, named by a hash of the schema and of ajv's version,
// and every later process loads that (~30 ms). Same validators, same errors.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type { ValidateFunction } from "ajv";
import stable from "@agentclientprotocol/sdk/schema/v1/schema.json" with { type: "json" };
import unstable from "@agentclientprotocol/sdk/schema/v1/schema.unstable.json" with { type: "json" };
import stableV2 from "@agentclientprotocol/sdk/schema/v2/schema.json" with { type: "json" };
import unstableV2 from "@agentclientprotocol/sdk/schema/v2/schema.unstable.json" with { type: "json" };

/** The ACP version a connection speaks: its messages are checked against that version's schema. */
export type AcpVersion = 1 | 2;

type Defs = Record<string, { "x-method"?: string; "x-side"?: string }>;
type Kind = "request" | "response" | "notification";

interface Compiled {
  byKey: Map<string, ValidateFunction>;
  error: ValidateFunction;
}

const require = createRequire(import.meta.url);
const CACHE_DIR = resolve(import.meta.dir, "../../node_modules/.cache/zcode-acp-test");
/** Bump when the generated module's shape changes. */
const CACHE_FORMAT = 1;

/** The definitions the agent sends, by `<kind> <method>`: the plan of what to compile. */
function agentSentDefs(schema: { $defs: Defs }): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def["x-method"];
    if (!method) continue;
    const kind: Kind | undefined = name.endsWith("Response")
      ? "response"
      : name.endsWith("Request")
        ? "request"
        : name.endsWith("Notification")
          ? "notification"
          : undefined;
    if (!kind) continue;
    // What the agent sends: its responses (x-side agent), its requests and
    // notifications to the client (x-side client), and protocol-level ones.
    const side = def["x-side"];
    const sentByAgent = kind === "response" ? side === "agent" : side === "client" || side === "protocol";
    if (!sentByAgent) continue;
    byKey.set(`${kind} ${method}`, name);
  }
  return byKey;
}

/** ajv's standalone module for `names` (exported as v0, v1, …) and Error (exported as error), written once. */
function standaloneModule(schema: { $defs: Defs }, names: string[]): Record<string, ValidateFunction> {
  const ajvVersion = (require("ajv/package.json") as { version: string }).version;
  const hash = createHash("sha256")
    .update(JSON.stringify([CACHE_FORMAT, ajvVersion, names, schema]))
    .digest("hex")
    .slice(0, 16);
  const file = join(CACHE_DIR, `acp-schema-${hash}.cjs`);
  if (!existsSync(file)) {
    const Ajv2020 = require("ajv/dist/2020.js").default as typeof import("ajv/dist/2020.js").default;
    const standaloneCode = require("ajv/dist/standalone").default as typeof import("ajv/dist/standalone").default;
    // strict:false: the SDK schema carries x-* annotations ajv does not know.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, code: { source: true } });
    ajv.addSchema(schema as object, "acp");
    const refs: Record<string, string> = { error: "acp#/$defs/Error" };
    names.forEach((name, i) => {
      refs[`v${i}`] = `acp#/$defs/${name}`;
    });
    try {
      mkdirSync(CACHE_DIR, { recursive: true });
      // Parallel test processes may write it at once: each writes its own file and renames it into place.
      const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
      writeFileSync(tmp, standaloneCode(ajv, refs));
      renameSync(tmp, file);
    } catch {
      // No writable cache (a read-only node_modules): this process uses what it compiled.
      return Object.fromEntries(Object.entries(refs).map(([k, ref]) => [k, ajv.getSchema(ref)!]));
    }
  }
  return require(file) as Record<string, ValidateFunction>;
}

function compile(schema: { $defs: Defs }): Compiled {
  const plan = agentSentDefs(schema);
  const names = [...new Set(plan.values())];
  const mod = standaloneModule(schema, names);
  const byKey = new Map<string, ValidateFunction>();
  for (const [key, name] of plan) byKey.set(key, mod[`v${names.indexOf(name)}`]!);
  return { byKey, error: mod.error! };
}

interface VersionSchemas {
  stable: Compiled;
  unstable: () => Compiled;
  /** The session/update kinds the stable schema has (plan_update, subagent_update … are unstable only). */
  stableUpdateKinds: Set<string>;
}

type SchemaDoc = { $defs: Defs & { SessionUpdate: { oneOf?: UpdateVariant[]; anyOf?: UpdateVariant[] } } };
type UpdateVariant = { properties?: { sessionUpdate?: { const?: string } } };

function schemasOf(stableDoc: unknown, unstableDoc: unknown): VersionSchemas {
  const doc = stableDoc as SchemaDoc;
  let unstableCompiled: Compiled | undefined;
  const variants = doc.$defs.SessionUpdate.oneOf ?? doc.$defs.SessionUpdate.anyOf ?? [];
  return {
    stable: compile(doc),
    unstable: () => (unstableCompiled ??= compile(unstableDoc as SchemaDoc)),
    stableUpdateKinds: new Set(variants.map((o) => o.properties?.sessionUpdate?.const).filter((k): k is string => !!k)),
  };
}

const V1 = schemasOf(stable, unstable);
let V2: VersionSchemas | undefined;
const schemas = (version: AcpVersion): VersionSchemas => (version === 2 ? (V2 ??= schemasOf(stableV2, unstableV2)) : V1);

function validatorFor(kind: Kind, method: string, params: unknown, version: AcpVersion): ValidateFunction | undefined {
  const key = `${kind} ${method}`;
  const s = schemas(version);
  // A session/update of a kind only the unstable schema has is checked against that one, strictly.
  const update = method === "session/update" ? (params as { update?: { sessionUpdate?: unknown } } | undefined)?.update : undefined;
  if (update && typeof update.sessionUpdate === "string" && !s.stableUpdateKinds.has(update.sessionUpdate))
    return s.unstable().byKey.get(key);
  const v = s.stable.byKey.get(key);
  if (v) return v;
  // Only methods the stable schema lacks (session/fork) use the unstable one.
  return s.unstable().byKey.get(key);
}

function describe(v: ValidateFunction): string {
  return (v.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || "/"} ${e.message}`)
    .join("; ");
}

/**
 * Checks one message the bridge sent. `methodOfId` resolves the id of a
 * response to the method of the client's request it answers. Returns a list
 * of problems (empty when valid).
 */
export function checkAgentMessage(
  msg: unknown,
  methodOfId: (id: string | number) => string | undefined,
  version: AcpVersion = 1,
): string[] {
  const STABLE = schemas(version).stable;
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return ["not a JSON object"];
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return [`jsonrpc must be "2.0", got ${JSON.stringify(m.jsonrpc)}`];
  const id = m.id as string | number | undefined;
  if (typeof m.method === "string") {
    const kind: Kind = id === undefined ? "notification" : "request";
    const v = validatorFor(kind, m.method, m.params, version);
    if (!v) return [`agent sent unknown ${kind} ${m.method}`];
    return v(m.params) ? [] : [`${kind} ${m.method}: ${describe(v)}`];
  }
  if (id === undefined || id === null) {
    // Only an answer to an unparseable message may carry id null.
    if ("error" in m && STABLE.error(m.error)) return [];
    return ["response without id"];
  }
  if ("error" in m) return STABLE.error(m.error) ? [] : [`error response: ${describe(STABLE.error)}`];
  const method = methodOfId(id);
  if (!method) return [`response to unknown request id ${JSON.stringify(id)}`];
  // Extension methods (`_session/goal`, …) have no schema: their result must be an object.
  if (method.startsWith("_"))
    return typeof m.result === "object" && m.result !== null && !Array.isArray(m.result) ? [] : [`response to ${method}: not an object`];
  const v = validatorFor("response", method, undefined, version);
  if (!v) return [`no schema for the response to ${method}`];
  return v(m.result) ? [] : [`response to ${method}: ${describe(v)}`];
}

/** Validates one session/update `update` payload alone (for unit tests). */
export function checkSessionUpdate(update: unknown, version: AcpVersion = 1): string[] {
  return checkAgentMessage({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } }, () => undefined, version);
}
