// UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits.
// ZCode's own clients mint their v4 commandIds this way; time-ordered ids
// also read well in traces.

/** A new UUIDv7; `now` and `random` are injectable for tests. */
export function uuidv7(
  now: number = Date.now(),
  random: (n: number) => Uint8Array = (n) => crypto.getRandomValues(new Uint8Array(n)),
): string {
  const b = random(16);
  const ms = Math.max(0, Math.floor(now));
  // 48-bit big-endian timestamp (ms fits in 2^48 until the year 10889).
  b[0] = Math.floor(ms / 2 ** 40) & 0xff;
  b[1] = Math.floor(ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
