// Release archives: one executable per archive, no build-machine metadata
// (owner 0, fixed mode; the zip has a fixed timestamp).
import { readFileSync } from "node:fs";
import { writeZip } from "../zip.ts";

export async function tarGz(out: string, dir: string, file: string): Promise<void> {
  const args = ["tar", "-czf", out, "-C", dir];
  const gnu = Bun.spawnSync(["tar", "--version"]).stdout.toString().includes("GNU");
  if (gnu) args.push("--owner=0", "--group=0", "--numeric-owner");
  args.push(file);
  const p = Bun.spawn(args, { stdout: "ignore", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`tar failed: ${err}`);
}

export function zipOne(out: string, path: string, name: string): void {
  writeZip(out, [{ name, data: readFileSync(path), mode: 0o755 }]);
}

export async function sha256File(path: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  h.update(await Bun.file(path).arrayBuffer());
  return h.digest("hex");
}
