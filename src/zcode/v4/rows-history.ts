import type { MessagesResult } from "../result-schemas.ts";
import type { Row } from "./schemas.ts";

/** Rows (rowsRange pages or a snapshot window, rowId ascending) → legacy `session/messages` messages. */
export function rowsToMessages(rows: Row[]): MessagesResult["messages"] {
  throw new Error(`not implemented yet: ${rows.length}`);
}
