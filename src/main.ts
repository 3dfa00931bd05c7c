// Entry point of the compiled binary. `--version` is answered before anything
// else loads: editors and installers call it to probe the binary.
import { VERSION } from "./version.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") {
  await Bun.write(Bun.stdout, `${VERSION}\n`);
  process.exit(0);
}

const { runCli } = await import("./cli/main.ts");
const { log } = await import("./log.ts");
let code: number;
try {
  code = await runCli(argv);
} catch (e) {
  log.error("fatal:", e);
  code = 1;
}
process.exit(code);
