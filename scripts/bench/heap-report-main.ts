// The bridge as shipped, plus one thing for the startup bench: on SIGUSR2 it
// prints its JS heap figures on stderr (`HEAP {"used":MB,"total":MB}`), so the
// bench can split the resident memory it reads from /proc into the JS heap
// and the rest. Only the bench builds this entry; the shipped binary has no
// such handler.
import { writeSync } from "node:fs";

process.on("SIGUSR2", () => {
  const m = process.memoryUsage();
  const mb = (b: number) => Math.round((b / 1048576) * 10) / 10;
  writeSync(2, `HEAP ${JSON.stringify({ used: mb(m.heapUsed), total: mb(m.heapTotal) })}\n`);
});

await import("../../src/main.ts");
