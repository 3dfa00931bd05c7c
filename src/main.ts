// Entry point of the compiled binary. (Placeholder: the CLI lands in src/cli/.)
import { VERSION } from "./version.ts";

if (process.argv.includes("--version")) {
  process.stdout.write(`${VERSION}\n`);
} else {
  process.stderr.write("zcode-acp-server: not implemented yet\n");
  process.exit(1);
}
