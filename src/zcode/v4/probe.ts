import { log } from "../../log.ts";
import type { CliCapabilities } from "../capabilities.ts";
import type { ProbeAnswer } from "./channel.ts";

// Whether a child serves the v4 command channel (ZCODE-V4.md §2), asked
// once per child. Only "method not found" (-32601) means no v4: any other
// failure (an error, a timeout, a garbled answer) says nothing, so v4 is
// off for now and the probe is tried again later, a bounded number of
// times. A session's first request waits for the probe only briefly; the
// capabilities hear the answer whenever it comes, and the slash menu with
// them.

const logger = log.withTag("v4");

/** After a probe that said nothing: the waits before each new try. */
export const PROBE_RETRY_MS = [2_000, 10_000, 30_000] as const;
/** How long a session's first request waits for the probe. */
export const PROBE_BESIDE_MS = 1_500;

interface ChildProbe {
  /** The probe under way. */
  pending?: Promise<boolean>;
  /** Probes sent so far. */
  tries: number;
  /** ZCode answered yes or -32601: never asked again. */
  final: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export class V4Probe {
  /** One entry per child (a child's capabilities object lives as long as it does). */
  private readonly children = new WeakMap<CliCapabilities, ChildProbe>();

  constructor(
    private readonly channel: { probe(): Promise<ProbeAnswer> },
    private readonly current: () => CliCapabilities | undefined,
  ) {}

  /**
   * Does this child serve v4? The probe's answer (waited for when one is
   * under way); false while it is unknown. A caller who asks after an
   * unknown answer, with tries left, has the next try made now.
   */
  ask(caps: CliCapabilities): Promise<boolean> {
    let p = this.children.get(caps);
    if (!p) this.children.set(caps, (p = { tries: 0, final: false }));
    if (p.pending) return p.pending;
    if (p.final || p.tries > PROBE_RETRY_MS.length) return Promise.resolve(caps.v4 === true);
    return this.send(caps, p);
  }

  /** `probe`, waited for at most PROBE_BESIDE_MS; never fails. */
  async briefly(probe: Promise<boolean>): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, PROBE_BESIDE_MS);
    });
    await Promise.race([probe.catch(() => false), bound]);
    clearTimeout(timer);
  }

  private send(caps: CliCapabilities, p: ChildProbe): Promise<boolean> {
    if (p.timer) clearTimeout(p.timer);
    p.timer = undefined;
    p.tries++;
    const pending = this.channel.probe().then((answer) => {
      p.pending = undefined;
      if (answer !== "unknown") p.final = true;
      caps.setV4(answer === "yes");
      if (answer === "unknown") this.later(caps, p);
      return answer === "yes";
    });
    p.pending = pending;
    return pending;
  }

  /** The next try after an unknown answer, unless the child is gone or the tries are spent. */
  private later(caps: CliCapabilities, p: ChildProbe): void {
    const wait = PROBE_RETRY_MS[p.tries - 1];
    if (wait === undefined) {
      logger.warn("ZCode never answered the v4 probe; /steer and /rewind <new prompt> stay off for this ZCode process");
      return;
    }
    p.timer = setTimeout(() => {
      p.timer = undefined;
      if (this.current() === caps && !p.pending) void this.send(caps, p);
    }, wait);
    p.timer.unref?.();
  }
}
