// Reading the release archives back in tests: every file of a .tar.gz (via
// Bun.Archive) or of a .zip written by scripts/zip.ts (local headers, no data
// descriptors, stored or deflated entries).
import { readFileSync } from "node:fs";

export async function archiveEntries(path: string): Promise<Map<string, Uint8Array>> {
  const bytes = readFileSync(path);
  if (path.endsWith(".zip")) return zipEntries(bytes);
  const out = new Map<string, Uint8Array>();
  for (const [name, file] of await new Bun.Archive(bytes).files()) out.set(name, new Uint8Array(await file.arrayBuffer()));
  return out;
}

function zipEntries(bytes: Uint8Array): Map<string, Uint8Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Map<string, Uint8Array>();
  let at = 0;
  while (at + 30 <= bytes.length && view.getUint32(at, true) === 0x04034b50) {
    const method = view.getUint16(at + 8, true);
    const size = view.getUint32(at + 18, true);
    const nameLen = view.getUint16(at + 26, true);
    const extraLen = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 30, at + 30 + nameLen));
    const start = at + 30 + nameLen + extraLen;
    const data = bytes.subarray(start, start + size);
    if (method === 0) out.set(name, data);
    else if (method === 8) out.set(name, Bun.inflateSync(data as Uint8Array<ArrayBuffer>));
    else throw new Error(`${name}: unsupported zip method ${method}`);
    at = start + size;
  }
  return out;
}
