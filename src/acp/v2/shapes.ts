import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { isAbsolute } from "node:path";

// The v1 shapes the session layer produces, in the v2 shapes ACP v2 names
// them by (schema/v2 in the SDK). Pure functions; the stateful part (message
// ids, the plan's id, the foreground state) is in updates.ts.
//
// What differs, and how it maps:
// - a tool call is one upsert, `tool_call_update`, from its first sight on;
// - a diff is a list of changes plus a git patch, not old and new text;
// - a location's line counts from 1 and its path is absolute;
// - a config option is named by `configId` (v1 `id`), a group by `groupId`;
// - a slash command is `{ type: "command", … }` and its input `{ type: "text", hint }`;
// - a permission request names its subject and has a title of its own;
// - an elicitation form's schema states its `type` and `properties`.

type Dict = Record<string, unknown>;

const withoutUndefined = <T extends Dict>(o: T): T => {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
};

/** A whole-file patch in git's format (every path absolute, no a/ b/ prefixes, as ACP v2 asks). */
export function gitPatch(path: string, oldText: string | null | undefined, newText: string): string {
  const lines = (s: string) => {
    if (s === "") return [];
    const l = s.split("\n");
    if (l[l.length - 1] === "") l.pop();
    return l;
  };
  const before = oldText == null ? [] : lines(oldText);
  const after = lines(newText);
  const range = (n: number) => (n === 0 ? "0,0" : `1,${n}`);
  const out = [`diff --git ${path} ${path}`];
  if (oldText == null) out.push("new file mode 100644");
  out.push(oldText == null ? "--- /dev/null" : `--- ${path}`, `+++ ${path}`);
  if (before.length || after.length) {
    out.push(`@@ -${range(before.length)} +${range(after.length)} @@`);
    for (const l of before) out.push(`-${l}`);
    for (const l of after) out.push(`+${l}`);
    // git marks a last line without its newline.
    if (after.length && !newText.endsWith("\n")) out.push("\\ No newline at end of file");
  }
  return `${out.join("\n")}\n`;
}

export function toolCallContent(c: v1.ToolCallContent): v2.ToolCallContent {
  if (c.type !== "diff") return c as v2.ToolCallContent;
  const { path, oldText, newText, _meta } = c;
  return withoutUndefined({
    type: "diff" as const,
    changes: [{ operation: oldText == null ? ("add" as const) : ("modify" as const), path }],
    // A patch only for a path git can name as ACP v2 asks (absolute).
    patch: isAbsolute(path) ? { format: "git_patch", text: gitPatch(path, oldText, newText) } : undefined,
    _meta,
  }) as v2.ToolCallContent;
}

export function toolCallLocation(l: v1.ToolCallLocation): v2.ToolCallLocation | undefined {
  if (!isAbsolute(l.path)) return undefined;
  const { line, ...rest } = l;
  // v1 lines may be 0; v2 counts from 1 (a 0 is "a line not known").
  return typeof line === "number" && line >= 1 ? { ...rest, line } : rest;
}

/** A v1 tool_call or tool_call_update as v2's tool_call_update (its fields keep their patch meaning). */
export function toolCallUpdate(u: v1.ToolCallUpdate | v1.ToolCall): v2.ToolCallUpdate {
  const { content, locations, ...rest } = u as v1.ToolCallUpdate & { sessionUpdate?: string };
  delete (rest as { sessionUpdate?: string }).sessionUpdate;
  const out: Dict = { ...rest };
  if (content !== undefined) out.content = content === null ? null : content.map(toolCallContent);
  if (locations !== undefined) out.locations = locations === null ? null : locations.map(toolCallLocation).filter((l) => l !== undefined);
  return out as v2.ToolCallUpdate;
}

export function configOption(o: v1.SessionConfigOption): v2.SessionConfigOption {
  const { id, ...rest } = o as v1.SessionConfigOption & { options?: unknown[] };
  const out: Dict = { configId: id, ...rest };
  if (o.type === "select") {
    out.options = (o.options as unknown as Dict[]).map((x) => {
      if (!("group" in x)) return x;
      const { group, ...g } = x;
      return { groupId: group, ...g };
    });
  }
  return out as v2.SessionConfigOption;
}

export const configOptions = (os: readonly v1.SessionConfigOption[]): v2.SessionConfigOption[] => os.map(configOption);

export function availableCommand(c: v1.AvailableCommand): v2.AvailableCommand {
  const { input, ...rest } = c;
  const hint = (input as { hint?: unknown } | null | undefined)?.hint;
  return withoutUndefined({
    type: "command" as const,
    ...rest,
    input: typeof hint === "string" ? { type: "text" as const, hint } : undefined,
  }) as v2.AvailableCommand;
}

/** session/request_permission: the tool call becomes the request's subject; the title is its own. */
export function permissionRequest(r: v1.RequestPermissionRequest): v2.RequestPermissionRequest {
  const toolCall = toolCallUpdate(r.toolCall);
  const title = typeof r.toolCall.title === "string" && r.toolCall.title.trim() ? r.toolCall.title : r.toolCall.toolCallId;
  return withoutUndefined({
    sessionId: r.sessionId,
    title,
    subject: { type: "tool_call" as const, toolCall },
    options: r.options,
    _meta: r._meta,
  }) as v2.RequestPermissionRequest;
}

/** elicitation/create: v2 requires a form's `type` and `properties` (v1 let them default). */
export function elicitationRequest(r: v1.CreateElicitationRequest): v2.CreateElicitationRequest {
  if (r.mode !== "form") return r as unknown as v2.CreateElicitationRequest;
  const s = (r as { requestedSchema?: Dict }).requestedSchema ?? {};
  return { ...r, requestedSchema: { ...s, type: s.type ?? "object", properties: s.properties ?? {} } } as v2.CreateElicitationRequest;
}
