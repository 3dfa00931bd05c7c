// Conversations persisted as one JSON file each in ZCODE_SIM_STATE_DIR, so
// another simulator process (a restarted CLI) can list and resume them, as the
// real CLI keeps them in its session database. Events are NOT persisted: the
// real CLI numbers protocol events per in-memory materialization of a session
// (see sim.ts), so a restarted process starts a fresh seq space.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MODEL, type ModelSel } from "./catalog.ts";
import type { SessionRecord, Workspace } from "./types.ts";
import { log } from "./wire.ts";

export function uuid(): string {
  return crypto.randomUUID();
}

/** `<prefix>_<uuid>`, the CLI's id style (sess_…, turn_…, perm_…). */
export function newId(prefix: string): string {
  return `${prefix}_${uuid()}`;
}

export class Store {
  private readonly cache = new Map<string, SessionRecord>();
  private readonly dirty = new Set<string>();
  private readonly deleted = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly dir: string,
    private readonly defaultModel: ModelSel = DEFAULT_MODEL,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  private file(id: string): string {
    return join(this.dir, `${id.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  }

  create(workspace: Workspace, mode: string, opts: { persistence?: "immediate" | "deferred"; id?: string } = {}): SessionRecord {
    const now = Date.now();
    const s: SessionRecord = {
      id: opts.id ?? newId("sess"),
      traceId: uuid(),
      workspace,
      title: "",
      mode,
      model: structuredClone(this.defaultModel),
      todos: [],
      messages: [],
      checkpoints: [],
      goal: null,
      createdAt: now,
      updatedAt: now,
      turnCount: 0,
      totalTokens: 0,
      contextUsed: 0,
      promptCounts: {},
      persistence: opts.persistence ?? "immediate",
      mcpServerNames: [],
      permissionRules: [],
    };
    this.cache.set(s.id, s);
    if (s.persistence === "immediate") this.saveNow(s);
    return s;
  }

  /** The conversation from memory, else from disk (another process wrote it). */
  get(id: string): SessionRecord | undefined {
    if (this.deleted.has(id)) return undefined;
    const hit = this.cache.get(id);
    if (hit) return hit;
    const s = this.load(this.file(id));
    if (!s || s.id !== id) return undefined;
    this.cache.set(id, s);
    return s;
  }

  private load(path: string): SessionRecord | undefined {
    try {
      const s = JSON.parse(readFileSync(path, "utf8")) as SessionRecord;
      return typeof s.id === "string" && Array.isArray(s.messages) ? s : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every persisted conversation, this process's in-memory copies taking precedence. */
  all(): SessionRecord[] {
    const out = new Map<string, SessionRecord>();
    let names: string[] = [];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith(".json"));
    } catch {}
    for (const n of names) {
      const s = this.load(join(this.dir, n));
      if (s && !this.deleted.has(s.id)) out.set(s.id, s);
    }
    for (const [id, s] of this.cache) if (!this.deleted.has(id)) out.set(id, s);
    return [...out.values()];
  }

  /** Removes the conversation for good (a create that failed, a closed draft: never in ZCode's store). */
  delete(s: SessionRecord): void {
    this.deleted.add(s.id);
    this.cache.delete(s.id);
    this.dirty.delete(s.id);
    try {
      rmSync(this.file(s.id), { force: true });
    } catch (e) {
      log(`cannot delete session ${s.id}: ${(e as Error).message}`);
    }
  }

  /** Records that `s` changed: bumps updatedAt and schedules a save. */
  touch(s: SessionRecord, opts: { activity?: boolean } = {}): void {
    if (opts.activity !== false) s.updatedAt = Math.max(Date.now(), s.updatedAt + 1);
    this.markDirty(s);
  }

  markDirty(s: SessionRecord): void {
    if (this.deleted.has(s.id)) return;
    this.dirty.add(s.id);
    this.timer ??= setTimeout(() => this.flush(), 20);
  }

  saveNow(s: SessionRecord): void {
    if (this.deleted.has(s.id) || s.persistence === "deferred") return;
    const path = this.file(s.id);
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify(s));
      renameSync(tmp, path);
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
