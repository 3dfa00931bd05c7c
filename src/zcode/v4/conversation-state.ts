import type {
  Config,
  Control,
  Delta,
  Goal,
  Meta,
  PendingInteraction,
  Plan,
  Queue,
  Snapshot,
  StatePatch,
  Subagents,
  UsageState,
} from "./frame-schemas.ts";
import type { Row } from "./schemas.ts";

// A conversation as ZCode's snapshot + deltas describe it, applied with the
// semantics of ZCode's packages/shared/src/zcode-protocol-v4/apply.ts
// `applyConversationDelta`: row.appended adds at the tail, row.upserted
// replaces a loaded row (an unloaded one is a no-op), row.removed cuts every
// row with rowId >= fromRowId, row.delta appends to a streaming row's path,
// state.updated replaces whole keys (never a deep merge). Unlike ZCode's
// client store, only a bounded number of rows is kept (the newest): the feed
// needs the rows of the live turn, never the whole history.

/** What the projector knows of a conversation: the state keys and a bounded set of rows. */
export interface ConversationStateView {
  logEpoch: string | undefined;
  revision: number;
  control: Control | undefined;
  config: Config | undefined;
  meta: Meta | undefined;
  usage: UsageState | undefined;
  queue: Queue | undefined;
  pendingInteractions: readonly PendingInteraction[];
  plan: Plan | null | undefined;
  goal: Goal | null | undefined;
  subagents: Subagents | undefined;
  /** rowId ascending, at most maxRows (the newest). */
  rows: readonly Row[];
  /** The conversation's row count and first rowId, as ZCode counts them (apply.ts). */
  totalCount: number;
  firstRowId: number | null;
}

/** The state keys a patch may replace (delta.ts `statePatchSchema`, the ones the feed reads). */
export const STATE_KEYS = ["control", "meta", "config", "usage", "queue", "pendingInteractions", "subagents", "goal", "plan"] as const;
export type StateKey = (typeof STATE_KEYS)[number];
export type StateValues = Pick<ConversationStateView, StateKey>;

/** What one delta changed (undefined: nothing). */
export type Change =
  | { op: "row"; row: Row; previous: Row | undefined }
  | { op: "removed"; fromRowId: number; removed: Row[] }
  | { op: "delta"; row: Row; path: string; append: string }
  | { op: "state"; keys: StateKey[]; previous: Partial<StateValues> };

export const DEFAULT_MAX_ROWS = 2000;

export class ConversationState {
  private readonly rows = new Map<number, Row>();
  private values_: StateValues = emptyState();
  private epoch: string | undefined;
  private rev = 0;
  private total = 0;
  private first: number | null = null;
  private readonly maxRows: number;

  constructor(maxRows = DEFAULT_MAX_ROWS) {
    this.maxRows = Math.max(1, Math.floor(maxRows));
  }

  /** Replaces everything with a snapshot's view; returns the state it had before. */
  applySnapshot(s: Snapshot): ConversationStateView {
    const before = this.view;
    this.rows.clear();
    const window = s.rows.window;
    for (const row of window.length > this.maxRows ? window.slice(-this.maxRows) : window) this.rows.set(row.rowId, row);
    this.values_ = emptyState();
    for (const key of STATE_KEYS) if (s[key] !== undefined) (this.values_ as Record<string, unknown>)[key] = s[key];
    this.values_.pendingInteractions ??= [];
    this.epoch = s.logEpoch;
    this.rev = s.revision;
    this.total = s.rows.totalCount ?? window.length;
    this.first = s.rows.firstRowId ?? window[0]?.rowId ?? null;
    return before;
  }

  /** One delta; returns what changed, or undefined for an op that changes nothing here. */
  applyDelta(d: Delta): Change | undefined {
    switch (d.op) {
      case "row.appended": {
        const row = (d as { row: Row }).row;
        const previous = this.rows.get(row.rowId);
        this.rows.set(row.rowId, row);
        this.total += 1;
        this.first ??= row.rowId;
        this.evict();
        return { op: "row", row, previous };
      }
      case "row.upserted": {
        const row = (d as { row: Row }).row;
        const previous = this.rows.get(row.rowId);
        // apply.ts: an unloaded rowId is a no-op for the state; the projector still hears of it (a live row we evicted).
        if (previous) this.rows.set(row.rowId, row);
        return { op: "row", row, previous };
      }
      case "row.removed":
        return this.remove((d as { fromRowId: number }).fromRowId);
      case "row.delta": {
        const { rowId, path, append } = d as { rowId: number; path: string; append: string };
        const target = this.rows.get(rowId);
        if (!target) return undefined;
        const row = appendToRow(target, path, append);
        if (row === target) return undefined;
        this.rows.set(rowId, row);
        return { op: "delta", row, path, append };
      }
      case "state.updated":
        return this.patch((d as { patch: StatePatch }).patch);
      default:
        // pluginUi.* (live-only), workflowRun.* (asked for only by capable clients): nothing the feed shows.
        return undefined;
    }
  }

  get revision(): number {
    return this.rev;
  }
  get logEpoch(): string | undefined {
    return this.epoch;
  }
  row(rowId: number): Row | undefined {
    return this.rows.get(rowId);
  }

  /** The state keys alone (no copy of the rows). */
  get values(): Readonly<StateValues> {
    return this.values_;
  }

  /** The newest row matching, without copying the rows. */
  findRow(match: (row: Row) => boolean): Row | undefined {
    for (const row of this.rows.values()) if (match(row)) return row;
    return undefined;
  }

  get view(): ConversationStateView {
    return {
      logEpoch: this.epoch,
      revision: this.rev,
      ...this.values_,
      rows: [...this.rows.values()],
      totalCount: this.total,
      firstRowId: this.first,
    };
  }

  private remove(fromRowId: number): Change {
    const removed: Row[] = [];
    for (const [id, row] of this.rows) {
      if (id >= fromRowId) {
        removed.push(row);
        this.rows.delete(id);
      }
    }
    // apply.ts: cutting from the first row empties the active branch's count and anchor.
    const entireBranch = this.first !== null && fromRowId <= this.first;
    this.total = entireBranch ? 0 : Math.max(0, this.total - removed.length);
    if (entireBranch) this.first = null;
    return { op: "removed", fromRowId, removed };
  }

  private patch(p: StatePatch): Change | undefined {
    const keys: StateKey[] = [];
    const previous: Partial<StateValues> = {};
    for (const key of STATE_KEYS) {
      if (!Object.hasOwn(p, key)) continue;
      keys.push(key);
      (previous as Record<string, unknown>)[key] = this.values_[key];
      (this.values_ as Record<string, unknown>)[key] = key === "pendingInteractions" ? (p[key] ?? []) : p[key];
    }
    if (typeof p.revision === "number") this.rev = p.revision;
    return keys.length > 0 ? { op: "state", keys, previous } : undefined;
  }

  /** Keeps the newest rows only (Map order is rowId order: rows only ever join at the tail). */
  private evict(): void {
    while (this.rows.size > this.maxRows) {
      const oldest = this.rows.keys().next().value as number;
      this.rows.delete(oldest);
    }
  }
}

function emptyState(): StateValues {
  return {
    control: undefined,
    config: undefined,
    meta: undefined,
    usage: undefined,
    queue: undefined,
    pendingInteractions: [],
    subagents: undefined,
    goal: undefined,
    plan: undefined,
  };
}

/** apply.ts `appendToRow`: a path the row does not stream is a no-op. */
function appendToRow(row: Row, path: string, append: string): Row {
  switch (path) {
    case "text":
      return row.kind === "assistantText" || row.kind === "reasoning" ? { ...row, text: (row.text ?? "") + append } : row;
    case "inputText":
      return row.kind === "toolCall" ? { ...row, inputText: (row.inputText ?? "") + append } : row;
    case "output.text":
      return row.kind === "toolCall" && row.output ? { ...row, output: { ...row.output, text: (row.output.text ?? "") + append } } : row;
    case "summaryText":
      return row.kind === "subagent" ? { ...row, summaryText: (row.summaryText ?? "") + append } : row;
    default:
      return row;
  }
}
