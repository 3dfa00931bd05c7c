import type { MessagesResult } from "../result-schemas.ts";
import type { Message, MessagePart } from "../schemas.ts";
import type { Row } from "./schemas.ts";

// Rows (rowsRange pages or a snapshot window; rows.ts) → the legacy
// `session/messages` messages that translate/history.ts replays: a user
// message per userInput row, one assistant message per run of assistantText,
// reasoning and toolCall rows (parts in row order), a compaction part per
// finished compact marker. Rows of other kinds (turnHeader, subagent,
// hookInvocation, artifact, other markers) show nothing in the legacy replay.

type Messages = MessagesResult["messages"];

/** toolCall status (rows.ts) → the legacy tool part status history.ts reads. */
const TOOL_STATUS: Record<string, string> = {
  inputStreaming: "pending",
  pendingApproval: "pending",
  running: "running",
  success: "completed",
  error: "error",
  cancelled: "error",
};

/** Rows, rowId ascending → legacy messages, oldest first. */
export function rowsToMessages(rows: Row[]): Messages {
  const out: Messages = [];
  let assistant: Message | undefined;
  const info = (row: Row, role: string, extra: Partial<Message["info"]> = {}): Message["info"] => ({
    messageId: `row-${row.rowId}`,
    role,
    ...(typeof row.createdAt === "number" ? { time: { created: row.createdAt } } : {}),
    ...extra,
  });
  const push = (row: Row, part: MessagePart) => {
    if (!assistant) out.push((assistant = { info: info(row, "assistant"), parts: [] }));
    assistant.parts.push(part);
  };
  for (const row of rows) {
    switch (row.kind) {
      case "userInput": {
        assistant = undefined;
        // Only what the user typed (a steer included) is theirs; ZCode's own inputs (background results, goal turns) are synthetic.
        const synthetic = row.origin !== undefined && row.origin !== "realUser";
        out.push({ info: info(row, "user", synthetic ? { synthetic: true } : {}), parts: [{ type: "text", text: row.text ?? "" }] });
        break;
      }
      case "assistantText":
        if (row.text) push(row, { type: "text", text: row.text });
        break;
      case "reasoning":
        if (row.text) push(row, { type: "reasoning", text: row.text });
        break;
      case "toolCall":
        if (row.toolCallId) push(row, toolPart(row));
        break;
      case "timelineMarker": {
        const m = row.marker as { type?: string; status?: string; origin?: string } | undefined;
        if (m?.type === "compact" && m.status === "success") {
          assistant = undefined;
          out.push({ info: info(row, "assistant"), parts: [{ type: "compaction", auto: m.origin === "auto" }] });
        }
        break;
      }
    }
  }
  return out;
}

function toolPart(row: Row): MessagePart {
  const status = TOOL_STATUS[row.status ?? ""] ?? "completed";
  const input = row.input ?? parseInput(row.inputText);
  const state: Extract<MessagePart, { type: "tool" }>["state"] = { status };
  if (input !== undefined) state.input = input;
  if (row.output?.text !== undefined) state.output = row.output.text;
  if (status === "error") state.error = row.error?.message ?? row.error?.code ?? row.status;
  // The legacy part's metadata.display: output.display, or row.display for node_repl_images (row-memory.ts resultOf).
  const display = row.output?.display ?? row.display;
  if (display !== undefined && display !== null) state.metadata = { display };
  return { type: "tool", callId: row.toolCallId ?? "", tool: row.toolName ?? "", state };
}

/** A tool's input as streamed text, when the row has no parsed input (inputStreaming). */
function parseInput(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
