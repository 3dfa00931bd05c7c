import * as v from "valibot";
import {
  loose,
  maybe,
  MessageSchema,
  ProjectionSchema,
  SessionInfoSchema,
  SettingsSchema,
  str,
  num,
  bool,
  TodoSchema,
  tolerantArray,
} from "./schemas.ts";

// What ZCode's methods answer (see schemas.ts for how they are read).

const SlashCommandSchema = loose({ name: str, description: maybe(str), inputHint: maybe(str), source: maybe(str) });
export type ZCodeSlashCommand = v.InferOutput<typeof SlashCommandSchema>;

const GoalSchema = loose({ objective: str, status: maybe(str) });

/**
 * ZCode's session snapshot: create, resume, read, fork, setMode, setModel and
 * setThoughtLevel all answer one. `settings.model.available` lists every model
 * only in create/resume/fork answers (reads carry just the current one).
 * `messages` is left unread here: reads pass messageLimit:1, history comes from
 * session/messages.
 */
export const SnapshotSchema = loose({
  session: SessionInfoSchema,
  settings: maybe(SettingsSchema),
  projection: maybe(loose({ ...ProjectionSchema.entries, target: maybe(v.nullable(GoalSchema)), revision: maybe(num) })),
  runtime: maybe(loose({ eventSeq: maybe(num), stateRevision: maybe(num) })),
  todos: maybe(tolerantArray(TodoSchema)),
  slashCommands: maybe(tolerantArray(SlashCommandSchema)),
});
export type Snapshot = v.InferOutput<typeof SnapshotSchema>;

/** A snapshot whose `session` may be missing (the set* answers are only read for their settings). */
export const SettingsResultSchema = loose({
  session: maybe(SessionInfoSchema),
  settings: maybe(SettingsSchema),
});
export type SettingsResult = v.InferOutput<typeof SettingsResultSchema>;

export const ListResultSchema = loose({ sessions: tolerantArray(SessionInfoSchema) });
export type ListResult = v.InferOutput<typeof ListResultSchema>;

export const MessagesResultSchema = loose({ messages: tolerantArray(MessageSchema) });
export type MessagesResult = v.InferOutput<typeof MessagesResultSchema>;

export const SubscribeResultSchema = loose({
  eventSeq: maybe(num),
  /** Raw envelopes: each is read by the session's intake, like a live event. */
  events: maybe(v.array(v.unknown())),
});
export type SubscribeResult = v.InferOutput<typeof SubscribeResultSchema>;

export const SendResultSchema = loose({ accepted: maybe(bool) });
export type SendResult = v.InferOutput<typeof SendResultSchema>;

export const EmptyResultSchema = v.unknown();

export const ForkResultSchema = loose({
  forkedSessionId: str,
  response: maybe(str),
  snapshot: maybe(loose({ session: maybe(SessionInfoSchema) })),
});
export type ForkResult = v.InferOutput<typeof ForkResultSchema>;

export const GoalResultSchema = loose({
  /** ZCode's own words for what happened (shown as is). */
  response: maybe(str),
  startedTurn: maybe(bool),
});
export type GoalResult = v.InferOutput<typeof GoalResultSchema>;

/** session/close (ZCode's "delete": a close of the live session): `{closed}`; false when the persistence it was told did not match. */
export const CloseResultSchema = loose({ closed: maybe(bool) });

export const CompactResultSchema = loose({
  response: maybe(str),
  compact: maybe(loose({ state: maybe(str) })),
});
export type CompactResult = v.InferOutput<typeof CompactResultSchema>;

// session/steer and session/rewind exist in CLI 0.15.x only (0.16 answers -32601).

export const SteerResultSchema = loose({ accepted: maybe(bool) });
export type SteerResult = v.InferOutput<typeof SteerResultSchema>;

export const RewindResultSchema = loose({
  revision: maybe(num),
  checkpointId: maybe(v.nullable(str)),
  removedMessages: maybe(num),
});
export type RewindResult = v.InferOutput<typeof RewindResultSchema>;
