// Bun's allocator, mimalloc, as `npm test` runs it: with transparent huge
// pages (THP) and without returning freed memory to the OS.
//
// Bun ships mimalloc with THP off (its `allow_thp` option is 0): a process
// maps its heap 4 KiB at a time, and the first touch of each page is a page
// fault. On the 2-core VMs this project is tested on, a page fault is a trip
// to the hypervisor (`pvm_irq_enable` in a `perf record`), and `npm test`
// starts ~1,600 Bun processes (bridges, simulators, test workers, builds):
// measured over one whole run, 10.2 million faults and 160 s of the 421 s of
// CPU were system time.
// - MIMALLOC_ALLOW_THP=1: mimalloc asks for huge pages (madvise), and a 2 MiB
//   heap region faults once. The same run: 3.8 million faults, 319 s of CPU.
//   A bridge's `--version`: ~1,490 faults and ~33 ms of CPU -> ~550 and ~23 ms.
// - MIMALLOC_PURGE_DELAY=-1: mimalloc gives memory it freed back to the OS
//   100 ms later (a purge), which splits a huge page, and the next use of it
//   faults again 4 KiB at a time. Not purging at all: four e2e files,
//   231,000 -> 193,000 faults and 15.7 -> 13.6 s of CPU.
// `npm test`, back to back on one tree (A/B pairs, wall time and CPU):
//   Bun's defaults 212.9 s, 403 s / THP 175.1 s, 333 s
//   Bun's defaults 204.3 s, 388 s / THP 187.7 s, 358 s
//   THP 184.2 s, 351 s / THP and no purge 140.7 s, 264 s
//   THP 214.9 s, 412 s / THP and no purge 159.2 s, 303 s
//
// So `npm test` (scripts/test.ts) sets both for every process of the run
// (a value the caller set is kept). The price is memory: a process's RSS
// grows by whole 2 MiB pages and keeps what it freed (an idle bridge's from
// ~47 to ~73 MB). That is why the product keeps Bun's defaults, and why
// whatever measures memory (a test's RSS bound, the benchmarks) runs its
// process with the allocator as Bun ships it: AS_SHIPPED.

/** The settings, as mimalloc v3 reads them from the environment at process start. */
export const TEST_RUN_ALLOCATOR: Readonly<Record<string, string>> = {
  MIMALLOC_ALLOW_THP: "1",
  MIMALLOC_PURGE_DELAY: "-1",
};

/** Env overrides (RawAcpClient's `env`, where undefined unsets) for a process whose memory is measured. */
export const AS_SHIPPED: Readonly<Record<string, undefined>> = Object.fromEntries(
  Object.keys(TEST_RUN_ALLOCATOR).map((k) => [k, undefined]),
);

/** `process.env` without the test run's allocator settings, for a `Bun.spawn` whose memory is measured. */
export function envAsShipped(): Record<string, string | undefined> {
  const env = { ...process.env };
  for (const k of Object.keys(TEST_RUN_ALLOCATOR)) delete env[k];
  return env;
}

/** For scripts/test.ts: the settings into `env`, where it has none of its own. */
export function useTestRunAllocator(env: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(TEST_RUN_ALLOCATOR)) env[k] ??= v;
}
