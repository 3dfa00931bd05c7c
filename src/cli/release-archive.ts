// Reading a release archive with bounded memory: the download is read in
// chunks up to a limit (with progress for a person watching), and a .tar.gz
// is decompressed as a stream, keeping only the one file wanted and stopping
// past a limit of extracted bytes, so a tar.gz bomb cannot exhaust memory.

/** The largest archive accepted (releases are ~55 MB). */
export const MAX_ARCHIVE_BYTES = 300 * 1024 * 1024;
/** The most bytes a .tar.gz may expand to before extraction stops (the binary is ~115 MB). */
export const MAX_EXTRACTED_BYTES = 512 * 1024 * 1024;

export class ArchiveLimitError extends Error {
  override readonly name = "ArchiveLimitError";
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
  }
}

/**
 * The body of `res`, read chunk by chunk: refused past `max` bytes (also when
 * Content-Length announces more), `progress(received, total)` after each chunk.
 */
export async function readBounded(
  res: Response,
  max: number,
  progress?: (received: number, total: number | undefined) => void,
): Promise<Uint8Array> {
  const announced = Number(res.headers.get("content-length") ?? "");
  const total = Number.isSafeInteger(announced) && announced > 0 ? announced : undefined;
  if (total !== undefined && total > max) {
    await res.body?.cancel();
    throw new ArchiveLimitError(max);
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value.length;
      if (received > max) {
        await reader.cancel();
        throw new ArchiveLimitError(max);
      }
      chunks.push(value);
      progress?.(received, total);
    }
  }
  const out = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * The file whose last path segment is `want` in a .tar.gz, or undefined when
 * there is none. Decompressed as a stream: only that file is kept, and more
 * than `maxExtracted` bytes of tar in all is an ArchiveLimitError.
 */
export async function tarGzEntry(archive: Uint8Array, want: string, maxExtracted = MAX_EXTRACTED_BYTES): Promise<Uint8Array | undefined> {
  const stream = new Blob([archive as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream("gzip"));
  const reader = stream.getReader();
  const tar = new TarReader(want);
  let total = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxExtracted) throw new ArchiveLimitError(maxExtracted);
      if (tar.push(value)) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return tar.found;
}

const BLOCK = 512;

/** A streaming ustar/GNU/pax reader that keeps only the entry named `want`. */
class TarReader {
  found: Uint8Array | undefined;
  private buf = new Uint8Array(0);
  /** Bytes of the current entry's data (plus padding) still to pass. */
  private skip = 0;
  private collecting: { data: Uint8Array; at: number } | undefined;
  private collectingMeta: { kind: "longname" | "pax"; data: Uint8Array; at: number } | undefined;
  private nextName: string | undefined;
  private ended = false;

  constructor(private readonly want: string) {}

  /** Feed bytes; true once the wanted entry is complete or the archive ended. */
  push(chunk: Uint8Array): boolean {
    let data = this.buf.length ? concat(this.buf, chunk) : chunk;
    this.buf = new Uint8Array(0);
    while (data.length > 0 && !this.ended && !this.found) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, data.length);
        this.take(data.subarray(0, n));
        this.skip -= n;
        data = data.subarray(n);
        if (this.skip === 0) this.finishEntry();
        continue;
      }
      if (data.length < BLOCK) {
        this.buf = data.slice();
        break;
      }
      this.header(data.subarray(0, BLOCK));
      data = data.subarray(BLOCK);
    }
    return this.ended || this.found !== undefined;
  }

  private header(h: Uint8Array): void {
    if (h.every((b) => b === 0)) {
      this.ended = true;
      return;
    }
    const size = parseOctal(h.subarray(124, 136));
    const type = String.fromCharCode(h[156] ?? 0);
    const prefix = text(h.subarray(345, 500));
    const name = this.nextName ?? (prefix ? `${prefix}/${text(h.subarray(0, 100))}` : text(h.subarray(0, 100)));
    this.nextName = undefined;
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L" || type === "x") {
      this.collectingMeta = { kind: type === "L" ? "longname" : "pax", data: new Uint8Array(size), at: 0 };
    } else if ((type === "0" || type === "\0") && basename(name) === this.want) {
      this.collecting = { data: new Uint8Array(size), at: 0 };
    }
    this.skip = padded;
    if (padded === 0) this.finishEntry();
  }

  private take(part: Uint8Array): void {
    const target = this.collecting ?? this.collectingMeta;
    if (!target) return;
    const n = Math.min(part.length, target.data.length - target.at);
    target.data.set(part.subarray(0, n), target.at);
    target.at += n;
  }

  private finishEntry(): void {
    if (this.collecting) {
      this.found = this.collecting.data;
      this.collecting = undefined;
    }
    const meta = this.collectingMeta;
    this.collectingMeta = undefined;
    if (meta?.kind === "longname") this.nextName = text(meta.data);
    if (meta?.kind === "pax") {
      const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(new TextDecoder().decode(meta.data));
      if (path) this.nextName = path[1];
    }
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function text(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
}

function parseOctal(bytes: Uint8Array): number {
  // GNU base-256 for sizes past 8 GiB: far beyond any limit here.
  if ((bytes[0] ?? 0) & 0x80) return Number.MAX_SAFE_INTEGER;
  const s = text(bytes).trim();
  return s ? Number.parseInt(s, 8) : 0;
}

function basename(path: string): string {
  return path.replace(/\/+$/, "").split("/").pop() ?? "";
}

/** The sizes a .zip's central directory declares, summed (what bsdtar will write). */
export function zipDeclaredSize(zip: Uint8Array): number | undefined {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // End of central directory: signature 0x06054b50 in the last 64 KiB + 22 bytes.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 65_535); at--) {
    if (view.getUint32(at, true) !== 0x06054b50) continue;
    const entries = view.getUint16(at + 10, true);
    let p = view.getUint32(at + 16, true);
    let sum = 0;
    for (let i = 0; i < entries; i++) {
      if (p + 46 > zip.length || view.getUint32(p, true) !== 0x02014b50) return undefined;
      const size = view.getUint32(p + 24, true);
      // 0xFFFFFFFF means a ZIP64 size: larger than any limit here.
      sum += size === 0xffffffff ? Number.MAX_SAFE_INTEGER : size;
      p += 46 + view.getUint16(p + 28, true) + view.getUint16(p + 30, true) + view.getUint16(p + 32, true);
    }
    return sum;
  }
  return undefined;
}
