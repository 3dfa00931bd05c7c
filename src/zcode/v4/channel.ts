import { log } from "../../log.ts";
import type { ZCodeConnection } from "../connection.ts";
import { ZCODE_ERR, ZCodeError } from "../errors.ts";
import { type Ack, AckSchema, QueryResultSchema, type Row, type RowsRange, RowsRangeSchema } from "./schemas.ts";
import { reasonSay } from "./reasons.ts";
import { uuidv7 } from "./uuid7.ts";

// ZCode's v4 command channel (ZCODE-V4.md §1-§4): one envelope per command,
// answered by its final ACK. The commandId is the idempotency key: a command
// sent again (after a `stale` ACK and a fresh read of the rows) keeps it.
// Decisions are made on `status` and `reasonCode`, never on `message` (zod's
// wording, not a contract).
//
// `v4/command` waits in the CLI's request queue behind every earlier request
// of this connection (legacy session/stop does not): its timeout allows for
// that, and for commands that stop a running turn first (up to ~5 s).

const logger = log.withTag("v4");

/** One per bridge process: ZCode records it on the rows a command made. */
export const CLIENT_ID = `zcode-acp-${uuidv7()}`;

/** ZCode's row window is 1..200 (core.ts rowsRangeMaxLimit). */
const ROWS_LIMIT = 200;
/** How far back a target is looked for: pages of ROWS_LIMIT rows (a long turn has hundreds). */
const MAX_PAGES = 10;

/**
 * ZCode ends a command that runs 60 s with a `failed` ACK of its own
 * (core.ts commandExecuteTimeoutMs): the bridge waits a little longer, so
 * that ACK and its reason arrive instead of a local timeout.
 */
export const V4_TIMEOUTS = { command: 70_000, query: 30_000, probe: 10_000 } as const;

/** What the probe learnt: v4 served, not served (-32601), or nothing (an error, a timeout, a garbled answer). */
export type ProbeAnswer = "yes" | "no" | "unknown";

/** The command types the bridge sends; CAS ones carry baseRevision/baseLogEpoch (command.ts). */
export type CommandType =
  | "sendText"
  | "stop"
  | "applyFileRewind"
  | "editUserQuery"
  | "retryTurn"
  | "deleteSession"
  | "deleteQueueItem"
  // What a v4-only child needs besides (only-*.ts).
  | "createSession"
  | "switchModelConfig"
  | "switchCollaborationMode"
  | "forkAssistant"
  | "compact"
  | "sendGoalCommand"
  | "pauseGoal"
  | "resumeGoal"
  | "resolveInteraction";

/** A command ZCode refused or could not carry out; `reasonCode` says why (reasons.ts words it). */
export class V4CommandError extends ZCodeError {
  override name = "V4CommandError";
  readonly ack: Ack;

  constructor(type: CommandType, ack: Ack, opts: { staleTwice?: boolean } = {}) {
    super(reasonSay(ack.reasonCode, ack.status, opts), {
      code: LOCAL_V4_ERR,
      method: `v4/command ${type}`,
      data: { status: ack.status, reasonCode: ack.reasonCode },
    });
    this.ack = ack;
  }

  get status(): Ack["status"] {
    return this.ack.status;
  }
  get reasonCode(): string | undefined {
    return this.ack.reasonCode;
  }
}

/** The code a V4CommandError carries: ZCode answered, as an ACK, that it did not do it. */
export const LOCAL_V4_ERR = -32095;

export interface Envelope {
  commandId: string;
  clientId: string;
  sessionId: string | null;
  type: CommandType;
  payload: Record<string, unknown>;
  issuedAt: number;
  baseRevision?: number;
  baseLogEpoch?: string;
}

/** What a row-targeting command is built from: its type, the target and the rest of its payload. */
export type Pick = { type: CommandType; target: { rowId: number; entityId: string }; payload?: Record<string, unknown> } | undefined;

/**
 * How a command finds its row: `pick` chooses from the rows read, `enough`
 * says whether they hold what `pick` needs (else older rows are read first).
 */
export interface Targeting {
  pick(rows: readonly Row[]): Pick;
  enough(rows: readonly Row[]): boolean;
}

/** A targeted command ZCode carried out: its ACK, id, type and the payload sent beside the target. */
export interface Targeted {
  ack: Ack;
  commandId: string;
  type: CommandType;
  payload: Record<string, unknown>;
}

export class V4Channel {
  constructor(private readonly conn: ZCodeConnection) {}

  /**
   * Does this CLI serve v4 (§2)? The probe query answers on a CLI that has
   * it, -32601 on one that does not. Anything else (an error, a timeout, an
   * answer that is not a query result) says nothing: "unknown".
   */
  async probe(): Promise<ProbeAnswer> {
    try {
      await this.conn.request(
        "v4/commands/query",
        { commands: [{ sessionId: null, commandId: "probe" }] },
        { timeoutMs: V4_TIMEOUTS.probe, schema: QueryResultSchema },
      );
      return "yes";
    } catch (err) {
      if (err instanceof ZCodeError && err.code === ZCODE_ERR.methodNotFound) return "no";
      logger.debug("v4 probe failed:", err);
      return "unknown";
    }
  }

  /**
   * One page (transport.ts rowsRange; rowId ascending): the newest `limit`
   * rows, or those before `beforeRowId`; `clientMode` as a live desktop reads.
   */
  rows(sessionId: string, page: { beforeRowId?: number; clientMode?: "desktop-continuous"; limit?: number } = {}): Promise<RowsRange> {
    const { beforeRowId, clientMode, limit = ROWS_LIMIT } = page;
    return this.conn.request(
      "v4/conversation/rowsRange",
      { sessionId, ...(clientMode ? { clientMode } : {}), ...(beforeRowId !== undefined ? { beforeRowId } : {}), limit },
      { timeoutMs: V4_TIMEOUTS.query, schema: RowsRangeSchema },
    );
  }

  /**
   * The newest rows, paged back (`beforeRowId` = the oldest row read, while
   * `hasMore`, at most MAX_PAGES) until `enough` holds: a long turn pushes
   * its own header and prompt out of the newest page. Revision and logEpoch
   * are the newest page's: if anything moved since, the command is `stale`.
   */
  async rowsUntil(sessionId: string, enough: (rows: readonly Row[]) => boolean): Promise<RowsRange> {
    const newest = await this.rows(sessionId);
    let rows = newest.rows;
    let more = newest.hasMore === true;
    for (let page = 1; more && page < MAX_PAGES && rows.length > 0 && !enough(rows); page++) {
      const older = await this.rows(sessionId, { beforeRowId: Math.min(...rows.map((r) => r.rowId)) });
      rows = [...older.rows, ...rows];
      more = older.hasMore === true && older.rows.length > 0;
    }
    return { ...newest, rows };
  }

  /**
   * The newest rows of a conversation (before `beforeRowId` when paging
   * back), as a desktop that follows it live reads them (clientMode
   * desktop-continuous, v4-gateway.ts rowsRange).
   */
  liveRows(sessionId: string, beforeRowId?: number): Promise<RowsRange> {
    return this.rows(sessionId, { beforeRowId, clientMode: "desktop-continuous" });
  }

  /** Sends one envelope; resolves with its ACK whatever the status. */
  async send(env: Envelope, timeoutMs: number = V4_TIMEOUTS.command): Promise<Ack> {
    const ack = await this.conn.request("v4/command", env, { timeoutMs, schema: AckSchema });
    if (ack.commandId !== env.commandId && ack.commandId !== "") logger.debug(`ACK for ${ack.commandId}, sent ${env.commandId}`);
    return ack;
  }

  /** A command that is not CAS (sendText, stop, deleteSession; createSession with a null sessionId); `timeoutMs` bounds the wait for its ACK. */
  async plain(sessionId: string | null, type: CommandType, payload: Record<string, unknown>, timeoutMs?: number): Promise<Ack> {
    const ack = await this.send({ commandId: uuidv7(), clientId: CLIENT_ID, sessionId, type, payload, issuedAt: Date.now() }, timeoutMs);
    return settle(type, ack);
  }

  /**
   * A CAS command that targets no row (deleteQueueItem): sent with the
   * revision and logEpoch of a fresh read; a `stale` ACK (the conversation
   * moved meanwhile, as it does while a turn winds down) reads again and
   * sends once more, same commandId, up to three times in all.
   */
  async cas(sessionId: string, type: CommandType, payload: Record<string, unknown>): Promise<Ack> {
    const commandId = uuidv7();
    for (let attempt = 0; ; attempt++) {
      // Only the revision is wanted: one row is the smallest read ZCode allows.
      const range = await this.rows(sessionId, { limit: 1 });
      const ack = await this.send({
        commandId,
        clientId: CLIENT_ID,
        sessionId,
        type,
        payload,
        baseRevision: range.atRevision,
        baseLogEpoch: range.atLogEpoch,
        issuedAt: Date.now(),
      });
      if (ack.status !== "stale" || attempt >= 2) return settle(type, ack);
      logger.debug(`${type} stale (${ack.reasonCode ?? "no reason"}); reading rows again`);
    }
  }

  /**
   * A row-targeting CAS command (§3, §4): rows are read, `pick` chooses the
   * target (undefined: nothing to act on), and the command goes out with the
   * read's revision and logEpoch. A `stale` ACK (the conversation moved
   * since the read) re-reads and sends once more, same commandId.
   * Undefined: nothing to act on.
   */
  async targeted(sessionId: string, how: Targeting): Promise<Targeted | undefined> {
    const commandId = uuidv7();
    for (let attempt = 0; ; attempt++) {
      const range = await this.rowsUntil(sessionId, how.enough);
      const picked = how.pick(range.rows);
      if (!picked) return undefined;
      const type = picked.type;
      const ack = await this.send({
        commandId,
        clientId: CLIENT_ID,
        sessionId,
        type,
        payload: { target: picked.target, ...picked.payload },
        baseRevision: range.atRevision,
        baseLogEpoch: range.atLogEpoch,
        issuedAt: Date.now(),
      });
      if (ack.status === "stale" && attempt === 0) {
        logger.debug(`${type} stale (${ack.reasonCode ?? "no reason"}); reading rows again`);
        continue;
      }
      return { ack: settle(type, ack, { staleTwice: attempt > 0 }), commandId, type, payload: picked.payload ?? {} };
    }
  }
}

/**
 * accepted, duplicate (ZCode already did it: its settled ACK) and noop pass;
 * rejected, failed and a second stale throw with ZCode's reason.
 */
export function settle(type: CommandType, ack: Ack, opts: { staleTwice?: boolean } = {}): Ack {
  switch (ack.status) {
    case "accepted":
    case "duplicate":
    case "noop":
      return ack;
    default:
      throw new V4CommandError(type, ack, opts);
  }
}

/** A row's target, copied as ZCode gave it (never built). */
export function targetOf(row: Row): { rowId: number; entityId: string } | undefined {
  return row.entityId ? { rowId: row.rowId, entityId: row.entityId } : undefined;
}

export type { Ack, Row };
