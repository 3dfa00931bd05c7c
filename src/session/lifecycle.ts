import { sessionNotFound } from "../translate/errors.ts";
import type { Tombstones } from "./tombstones.ts";

// Who wins when the editor opens (session/load, session/resume), closes and
// deletes the same session at once. A close or a delete wins over an open
// still under way: that open adopts nothing, replays nothing, and answers
// session-not-found. A delete waits for an open under way (its resume is
// the one the delete uses, never a second one). A deleted id is never opened
// again: the bridge's tombstones remember it across restarts.

/** Whether `p` resolved (rather than rejected). */
export function succeeded(p: Promise<unknown>): Promise<boolean> {
  return p.then(
    () => true,
    () => false,
  );
}

/** A resume of ZCode's under way for a load or resume of the editor's. */
interface Opening {
  /** A close or delete came while it ran. */
  overruled: boolean;
  done: Promise<unknown>;
}

export class Lifecycle {
  private readonly openings = new Map<string, Set<Opening>>();
  /** Deletes under way, by id (a second delete of the same id shares the first). */
  private readonly deletes = new Map<string, Promise<void>>();

  constructor(readonly tombstones: Tombstones) {}

  /** Deleted by the editor, or being deleted now. */
  isDeleted(id: string): boolean {
    return this.deletes.has(id) || this.tombstones.has(id);
  }

  /** Whether session/list shows `id`: nothing deleted or being deleted. */
  listed(): (id: string) => boolean {
    const gone = this.tombstones.current();
    return (id) => !gone.has(id) && !this.deletes.has(id);
  }

  /**
   * Runs `resume` (ZCode's resume for a load or resume of the editor's) as an
   * opening of `id`: refused at once for a deleted id; when a close or delete
   * of `id` came while it ran, its result is dropped and the editor is told
   * the session is not found. The caller adopts the result before its next await.
   */
  async open<T>(id: string, resume: () => Promise<T>): Promise<T> {
    if (this.isDeleted(id)) throw sessionNotFound(id);
    const done = resume();
    const o: Opening = { overruled: false, done };
    let set = this.openings.get(id);
    if (!set) this.openings.set(id, (set = new Set()));
    set.add(o);
    try {
      const value = await done;
      if (o.overruled || this.isDeleted(id)) throw sessionNotFound(id);
      return value;
    } finally {
      set.delete(o);
      if (set.size === 0 && this.openings.get(id) === set) this.openings.delete(id);
    }
  }

  /** A close or delete of `id`: every opening under way loses. True when there was one. */
  overrule(id: string): boolean {
    const set = this.openings.get(id);
    if (!set?.size) return false;
    for (const o of set) o.overruled = true;
    return true;
  }

  /** Resolves once every opening of `id` under way has ended (however). */
  async openingsEnded(id: string): Promise<void> {
    const set = this.openings.get(id);
    if (set) await Promise.allSettled([...set].map((o) => o.done));
  }

  /** The delete of `id` under way, if any. */
  deleting(id: string): Promise<void> | undefined {
    return this.deletes.get(id);
  }

  /**
   * Runs the delete of `id`: from this moment (before any await) `id` is
   * deleted for every open and list; once `run` resolved it stays so, in
   * the tombstones. When `run` fails, the id is as it was.
   */
  delete(id: string, run: () => Promise<void>): Promise<void> {
    this.overrule(id);
    const p = (async () => {
      try {
        await run();
        this.tombstones.add(id);
      } finally {
        this.deletes.delete(id);
      }
    })();
    this.deletes.set(id, p);
    return p;
  }
}
