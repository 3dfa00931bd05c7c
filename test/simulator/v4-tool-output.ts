// What a toolCall row carries once its tool is done, built from the tool part
// the simulator stores (the same content and display its legacy `tool.updated`
// result carried), as ZCode's CLI builds it from the ToolCallResult payload.
import type { ToolState } from "./types.ts";

/** packages/shared/src/zcode-protocol-v4 PROTOCOL_V4_LIMITS.toolOutputFinalHeadBytes / toolOutputFinalTailBytes. */
const FINAL_HEAD_BYTES = 32 * 1024;
const FINAL_TAIL_BYTES = 32 * 1024;

/**
 * toProtocolToolCallDisplay (the CLI's zcode-protocol-v4 projection helpers, used by onToolCallResult): the kinds toolCallDisplaySchema (toolDisplay.ts) admits on
 * ToolCallRow.display; every other kind (bash_output, file_diff, …) stays only in output.display.
 */
const ROW_DISPLAY_KINDS = new Set([
  "node_repl_images",
  "task_output",
  "respond_to_coordinator",
  "mcp_tool",
  "create_workflow",
  "get_workflow_run",
  "list_workflow_runs",
  "eval_workflow_snippet",
  "saved_workflow_list",
  "list_models",
  "resume_workflow_run",
]);

export interface ToolOutput {
  text: string;
  display?: Record<string, unknown>;
  truncated?: { totalBytes: number; ref: string };
}

function displayOf(metadata: Record<string, unknown>): Record<string, unknown> | undefined {
  const d = metadata.display;
  return d && typeof d === "object" && !Array.isArray(d) ? (d as Record<string, unknown>) : undefined;
}

/**
 * projection-rows.ts buildToolOutput(result, toolCallId): text is the result's content, cut to 32 KiB head +
 * "\n…\n" + 32 KiB tail (byte offsets, as Buffer.subarray cuts them) with truncated {totalBytes, ref}; display is
 * the result's display except node_repl_images (which goes to ToolCallRow.display).
 */
export function buildToolOutput(content: string, display: Record<string, unknown> | undefined, toolCallId: string): ToolOutput {
  const d = display?.kind === "node_repl_images" ? undefined : display;
  const totalBytes = Buffer.byteLength(content, "utf8");
  if (totalBytes <= FINAL_HEAD_BYTES + FINAL_TAIL_BYTES) return { text: content, ...(d ? { display: d } : {}) };
  const buffer = Buffer.from(content, "utf8");
  const head = buffer.subarray(0, FINAL_HEAD_BYTES).toString("utf8");
  const tail = buffer.subarray(buffer.length - FINAL_TAIL_BYTES).toString("utf8");
  return { text: `${head}\n…\n${tail}`, ...(d ? { display: d } : {}), truncated: { totalBytes, ref: `tool-output/${toolCallId}` } };
}

/**
 * product-projection.ts onToolCallResult: a finished tool's row gets `output: buildToolOutput(result, id)` and,
 * when toProtocolToolCallDisplay admits its display kind, `display`. A tool the simulator failed has no result
 * (legacy tool.updated `error`, not a `result` with success false): its row keeps only `error`, no output.
 */
export function toolRowResult(state: ToolState, toolCallId: string): { output?: ToolOutput; display?: Record<string, unknown> } {
  if (state.status !== "completed") return {};
  const display = displayOf(state.metadata);
  const rowDisplay = display && ROW_DISPLAY_KINDS.has(String(display.kind)) ? display : undefined;
  return { output: buildToolOutput(state.output, display, toolCallId), ...(rowDisplay ? { display: rowDisplay } : {}) };
}
