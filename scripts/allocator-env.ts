// Bun's allocator, mimalloc, and transparent huge pages (THP).
//
// Bun ships mimalloc with THP off (its `allow_thp` option is 0): a process
// maps its heap 4 KiB at a time, and the first touch of each page is a page
// fault. On the 2-core VMs this project is tested on, a page fault is a trip
// to the hypervisor (`pvm_irq_enable` in a `perf record`), and `npm test`
// starts ~1,600 Bun processes (bridges, simulators, test workers, builds):
// measured over one whole run, 10.2 million faults and 160 s of the 421 s of
// CPU were system time. With MIMALLOC_ALLOW_THP=1, mimalloc asks for huge
// pages (madvise) and a 2 MiB heap region faults once: 3.8 million faults,
// 319 s of CPU, and 237 s -> 184 s of wall time for the same run. A bridge's
// `--version` goes from ~1,490 faults and ~33 ms of CPU to ~550 and ~23 ms.
//
// So `npm test` (scripts/test.ts) turns it on for every process of the run.
// The price is memory: a process's RSS grows by whole 2 MiB pages (an idle
// bridge's from ~51 to ~58 MB, a busy one's by up to ~30 MB), which is why
// the product keeps Bun's default, and
// why whatever measures memory (a test's RSS bound, the benchmarks) runs its
// process with the allocator as Bun ships it: AS_SHIPPED.

/** mimalloc's option for transparent huge pages (mimalloc v3, read at process start). */
export const HUGE_PAGES_ENV = "MIMALLOC_ALLOW_THP";

/** Env overrides (RawAcpClient's `env`, where undefined unsets) for a process whose memory is measured. */
export const AS_SHIPPED: Record<string, undefined> = { [HUGE_PAGES_ENV]: undefined };

/** `process.env` without the test run's allocator setting, for a `Bun.spawn` whose memory is measured. */
export function envAsShipped(): Record<string, string | undefined> {
  const env = { ...process.env };
  delete env[HUGE_PAGES_ENV];
  return env;
}
