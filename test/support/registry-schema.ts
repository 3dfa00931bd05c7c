// Validation against the ACP registry's own agent schema (vendored in
// registry/vendor/), as the registry's CI does before accepting an entry.
import Ajv from "ajv";
import schema from "../../registry/vendor/agent.schema.json" with { type: "json" };

const ajv = new Ajv({ allErrors: true, strict: true });
// The registry validates with Python's jsonschema; "uri" means an absolute URI.
ajv.addFormat("uri", (s: string) => /^[a-z][a-z0-9+.-]*:/i.test(s) && URL.canParse(s));
const validate = ajv.compile(schema);

/** The schema errors of `entry`, as readable lines (empty when valid). */
export function registrySchemaErrors(entry: unknown): string[] {
  if (validate(entry)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
}
