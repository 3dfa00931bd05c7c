import path from "node:path";
import { readBoundedText } from "../read-bounded.ts";

// The version of the ZCode desktop app a bundled CLI entry belongs to. The
// CLI's own `--version` cannot tell desktop builds apart (0.16.5 ships in both
// 3.11 and 3.12, which need different launch settings), so doctor reports the
// app's. Best effort: the macOS bundle's Info.plist, else an Electron app's
// package.json with a productName; undefined when neither is found.

function read(file: string): string | undefined {
  return readBoundedText(file);
}

export function desktopAppVersion(entry: string): string | undefined {
  let dir = path.dirname(entry);
  for (let i = 0; i < 4; i++) {
    const plist = read(path.join(dir, "Info.plist"));
    const m = plist && /<key>CFBundleShortVersionString<\/key>\s*<string>([^<]+)<\/string>/.exec(plist);
    if (m) return m[1]!.trim();
    for (const pkg of [path.join(dir, "app", "package.json"), path.join(dir, "package.json")]) {
      const text = read(pkg);
      if (!text) continue;
      try {
        const j = JSON.parse(text) as { productName?: unknown; version?: unknown };
        if (typeof j.productName === "string" && /zcode/i.test(j.productName) && typeof j.version === "string") return j.version;
      } catch {
        // not JSON: keep looking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}
