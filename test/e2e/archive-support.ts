// Reading the release archives back in tests: every file of a .tar.gz
// written by scripts/release/archive.ts (GNU, ustar or pax headers, regular
// files) or of a .zip written by scripts/zip.ts (local headers, no data
// descriptors, stored or deflated entries). A .tar.gz is gunzipped with
// libdeflate and read in place: half the CPU of Bun.Archive for a ~110 MB
// executable, and the release tests read seven archives. Any other kind of
// tar entry (link, directory, device) is an error, not skipped.
import { closeSync, openSync, readFileSync, readSync } from "node:fs";

const INFLATE = { library: "libdeflate" } as const;

export async function archiveEntries(path: string): Promise<Map<string, Uint8Array>> {
  const bytes = readFileSync(path);
  if (path.endsWith(".zip")) return zipEntries(bytes);
  return tarEntries(Bun.gunzipSync(bytes as Uint8Array<ArrayBuffer>, INFLATE));
}

function tarEntries(tar: Uint8Array): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const text = (from: number, len: number) => {
    const field = tar.subarray(from, from + len);
    const nul = field.indexOf(0);
    return new TextDecoder().decode(nul === -1 ? field : field.subarray(0, nul));
  };
  let at = 0;
  let paxPath: string | undefined;
  while (at + 512 <= tar.length && tar[at] !== 0) {
    const type = String.fromCharCode(tar[at + 156] ?? 0);
    // A POSIX ustar header may split a long name (prefix at 345); GNU's keeps other fields there.
    const prefix = text(at + 257, 6) === "ustar" ? text(at + 345, 155) : "";
    const name = paxPath ?? (prefix ? `${prefix}/${text(at, 100)}` : text(at, 100));
    const size = Number.parseInt(text(at + 124, 12).trim() || "0", 8);
    if (!Number.isSafeInteger(size) || at + 512 + size > tar.length) throw new Error(`${name}: bad tar size`);
    const data = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "x" || type === "g") {
      // pax extended header: "<len> key=value\n" records; only `path` matters here.
      if (type === "x") paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(new TextDecoder().decode(data))?.[1];
      continue;
    }
    if (type !== "0" && type !== "\0") throw new Error(`${name}: tar entry of type ${JSON.stringify(type)}, not a regular file`);
    out.set(name, data);
    paxPath = undefined;
  }
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

const HASH_CHUNK = new Uint8Array(1 << 20);

/**
 * SHA-256 of a file, read through one reused 1 MiB buffer: the tests hash
 * ~1.5 GB of archives and executables, and a fresh ~100 MB buffer per file
 * costs more in page faults than the hashing itself.
 */
export function sha256OfFile(path: string): string {
  const h = new Bun.CryptoHasher("sha256");
  const fd = openSync(path, "r");
  try {
    for (let n = readSync(fd, HASH_CHUNK); n > 0; n = readSync(fd, HASH_CHUNK)) h.update(HASH_CHUNK.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest("hex");
}
