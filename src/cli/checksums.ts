import { createHash } from "node:crypto";

/** `sha256sum` output: `<64 hex>  <name>` (or ` *<name>` for binary mode). */
export function parseSha256Sums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-fA-F]{64}) [ *](.+?)\r?$/.exec(line);
    if (m) sums.set(m[2] as string, (m[1] as string).toLowerCase());
  }
  return sums;
}

export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
