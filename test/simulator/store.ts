// Sessions persisted as one JSON file each in ZCODE_SIM_STATE_DIR, so another
// simulator process (a restarted CLI) can list and resume them. Events are
// also appended to `<id>.events.jsonl` before they reach stdout, so a CLI
// killed mid-turn never reuses a seq the bridge has already seen (the real CLI
// keeps its events in a database); a snapshot write empties that log.
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { log } from "./wire.ts";
import type { SessionRecord, Workspace } from "./types.ts";
import { MODELS } from "./types.ts";

/** Events kept in memory per session (for afterSeq), and on disk. */
const MAX_EVENTS_MEMORY = 20_000;
const MAX_EVENTS_DISK = 10_000;

export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class Store {
  private readonly cache = new Map<string, SessionRecord>();
  private readonly dirty = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Event lines not yet appended to their session's log. */
  private readonly pendingEvents = new Map<string, string[]>();

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  private file(id: string): string {
    return join(this.dir, `${id.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  }

  private eventsFile(id: string): string {
    return join(this.dir, `${id.replace(/[^A-Za-z0-9_.-]/g, "_")}.events.jsonl`);
  }

  /** Queues an event (already serialized) for the session's log. */
  appendEvent(id: string, json: string): void {
    let q = this.pendingEvents.get(id);
    if (!q) this.pendingEvents.set(id, (q = []));
    q.push(json, "\n");
  }

  /** Writes queued events; called before every stdout write. */
  flushEvents(): void {
    for (const [id, q] of this.pendingEvents) {
      try {
        appendFileSync(this.eventsFile(id), q.join(""));
      } catch (e) {
        log(`cannot append events of ${id}: ${(e as Error).message}`);
      }
    }
    this.pendingEvents.clear();
  }

  create(workspace: Workspace, mode: string): SessionRecord {
    const now = Date.now();
    const s: SessionRecord = {
      id: newId("sess"),
      traceId: newId("trace"),
      workspace,
      title: "",
      mode,
      projectionMode: mode,
      thoughtLevel: MODELS[0]!.defaultLevel,
      model: { providerId: MODELS[0]!.providerId, modelId: MODELS[0]!.modelId },
      todos: [],
      messages: [],
      events: [],
      seq: 0,
      checkpoints: [],
      revision: 1,
      goal: null,
      createdAt: now,
      updatedAt: now,
      status: "idle",
      turnCount: 0,
      currentTurnId: null,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      contextUsed: 0,
      promptCounts: {},
    };
    this.cache.set(s.id, s);
    this.saveNow(s);
    return s;
  }

  /** The session from memory, else from disk (another process wrote it). */
  get(id: string): SessionRecord | undefined {
    const hit = this.cache.get(id);
    if (hit) return hit;
    const s = this.load(this.file(id));
    if (!s || s.id !== id) return undefined;
    this.replayEventLog(s);
    // Taken over by this process: whatever turn another process ran is not running here.
    s.status = "idle";
    s.currentTurnId = null;
    this.cache.set(id, s);
    return s;
  }

  private load(path: string): SessionRecord | undefined {
    try {
      const s = JSON.parse(readFileSync(path, "utf8")) as SessionRecord & { ownerPid?: number };
      // A turn that was running when its process died (crash) is over.
      if (s.status === "running" && !(s.ownerPid && alive(s.ownerPid))) {
        s.status = "idle";
        s.currentTurnId = null;
      }
      delete s.ownerPid;
      return s;
    } catch {
      return undefined;
    }
  }

  /** Adds the events logged after the snapshot was written (a process killed mid-turn). */
  private replayEventLog(s: SessionRecord): void {
    let text = "";
    try {
      text = readFileSync(this.eventsFile(s.id), "utf8");
    } catch {
      return;
    }
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const e = JSON.parse(line) as SessionRecord["events"][number];
        if (typeof e.seq === "number" && e.seq > s.seq) {
          s.events.push(e);
          s.seq = e.seq;
        }
      } catch {
        // A line cut short by the kill.
      }
    }
  }

  /** Every session on disk, with this process's in-memory copies taking precedence. */
  all(): SessionRecord[] {
    const out = new Map<string, SessionRecord>();
    let names: string[] = [];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith(".json"));
    } catch {}
    for (const n of names) {
      const s = this.load(join(this.dir, n));
      if (s && typeof s.id === "string") out.set(s.id, s);
    }
    for (const [id, s] of this.cache) out.set(id, s);
    return [...out.values()];
  }

  /** Records that `s` changed: bumps revision/updatedAt and schedules a save. */
  touch(s: SessionRecord, opts: { revision?: boolean } = {}): void {
    s.updatedAt = Math.max(Date.now(), s.updatedAt + 1);
    if (opts.revision !== false) s.revision++;
    this.markDirty(s);
  }

  markDirty(s: SessionRecord): void {
    this.dirty.add(s.id);
    this.timer ??= setTimeout(() => this.flush(), 20);
  }

  trimEvents(s: SessionRecord): void {
    if (s.events.length > MAX_EVENTS_MEMORY * 1.1) s.events.splice(0, s.events.length - MAX_EVENTS_MEMORY);
  }

  saveNow(s: SessionRecord): void {
    this.flushEvents();
    const path = this.file(s.id);
    const tmp = `${path}.${process.pid}.tmp`;
    const events = s.events.length > MAX_EVENTS_DISK ? s.events.slice(-MAX_EVENTS_DISK) : s.events;
    try {
      writeFileSync(tmp, JSON.stringify({ ...s, events, ownerPid: process.pid }));
      renameSync(tmp, path);
      writeFileSync(this.eventsFile(s.id), "");
    } catch (e) {
      log(`cannot save session ${s.id}: ${(e as Error).message}`);
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const id of this.dirty) {
      const s = this.cache.get(id);
      if (s) this.saveNow(s);
    }
    this.dirty.clear();
  }
}
