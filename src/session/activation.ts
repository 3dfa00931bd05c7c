import { log } from "../log.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import type { Snapshot } from "../zcode/result-schemas.ts";
import { isNotActive } from "../translate/errors.ts";

const logger = log.withTag("activation");

/** What activation needs of its session. */
export interface ActivationOwner {
  readonly id: string;
  /** Resumes the session in the current child (session/resume with its cwd and MCP servers). */
  resume(): Promise<Snapshot>;
  /** The snapshot of a resume: settings to apply, a model choice to re-apply. */
  resumed(r: Snapshot): Promise<void>;
  /** ZCode will number the session's events afresh. */
  materializedAgain(): void;
}

/**
 * Whether ZCode has the session in memory right now. A session lives in one
 * child; after that child dies, or ZCode evicts the session (-32004 "Session
 * is not active"), the next call resumes it first, silently, and concurrent
 * callers share that one resume.
 */
export class Activation {
  /** Child generation the session was created or resumed in; 0 = must resume before use. */
  private gen = 0;
  /** Bumped whenever ZCode materializes the session anew (a subscription belongs to one materialization). */
  count = 0;
  private resuming: Promise<void> | undefined;

  /** The child generation ZCode holds the session in (0: none, resume before use). */
  get generation(): number {
    return this.gen;
  }

  constructor(
    private readonly owner: ActivationOwner,
    private readonly api: ZCodeApi,
  ) {}

  /**
   * The session was just created or resumed in child `generation`. Resuming
   * a session ZCode already holds returns the same record (same seq space,
   * same subscription), so only a change of generation is a new materialization.
   */
  activated(generation: number): void {
    if (this.gen === generation) return;
    this.gen = generation;
    this.count++;
  }

  /** Its child is gone or evicted it: resume on next use. */
  lost(): void {
    this.gen = 0;
    this.owner.materializedAgain();
  }

  /** Lost with this child generation (the child died). */
  childExited(generation: number): void {
    if (this.gen === generation) this.lost();
  }

  /** Makes sure the current child has the session (starting a child if none runs). */
  async ensure(): Promise<void> {
    const info = await this.api.conn.start();
    if (this.gen === info.generation) return;
    this.resuming ??= (async () => {
      try {
        const r = await this.owner.resume();
        this.activated(info.generation);
        logger.debug("resumed", this.owner.id, "in child generation", info.generation);
        await this.owner.resumed(r);
      } finally {
        this.resuming = undefined;
      }
    })();
    await this.resuming;
  }

  /** Runs a session call; an eviction (-32004 not active) resumes and retries once, silently. */
  async with<T>(fn: () => Promise<T>): Promise<T> {
    await this.ensure();
    try {
      return await fn();
    } catch (err) {
      if (!isNotActive(err)) throw err;
      logger.info("session", this.owner.id, "was evicted by ZCode; resuming");
      this.lost();
      await this.ensure();
      return fn();
    }
  }
}
