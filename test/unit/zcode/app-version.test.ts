// The desktop app version a bundled CLI entry belongs to (the CLI's own
// --version cannot tell 3.11 from 3.12), from app layouts in temp dirs.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { desktopAppVersion } from "../../../src/zcode/app-version.ts";

const root = mkdtempSync(path.join(tmpdir(), "app-version-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function write(rel: string, text: string): string {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const plist = (v: string) =>
  `<?xml version="1.0"?>\n<plist><dict>\n<key>CFBundleName</key>\n<string>ZCode</string>\n<key>CFBundleShortVersionString</key>\n  <string> ${v} </string>\n</dict></plist>\n`;

describe("desktopAppVersion", () => {
  test("macOS: the bundle's Info.plist, a few levels up", () => {
    const base = `mac-${++n}/ZCode.app/Contents`;
    write(`${base}/Info.plist`, plist("3.12.1"));
    const entry = write(`${base}/Resources/cli/zcode.cjs`, "");
    expect(desktopAppVersion(entry)).toBe("3.12.1");
  });

  test("Electron: app/package.json or package.json with a ZCode productName", () => {
    const base = `win-${++n}/ZCode/resources`;
    write(`${base}/app/package.json`, JSON.stringify({ name: "zcode-desktop", productName: "ZCode", version: "3.14.1" }));
    expect(desktopAppVersion(write(`${base}/cli/zcode.cjs`, ""))).toBe("3.14.1");
    const base2 = `linux-${++n}/opt/zcode`;
    write(`${base2}/package.json`, JSON.stringify({ productName: "ZCode Desktop", version: "3.11.0" }));
    expect(desktopAppVersion(write(`${base2}/cli/zcode.cjs`, ""))).toBe("3.11.0");
  });

  test("another product's package.json, broken JSON, or nothing: undefined", () => {
    const base = `none-${++n}/x/y`;
    write(`${base}/package.json`, JSON.stringify({ productName: "Something Else", version: "9.9.9" }));
    write(`${base}/cli/package.json`, "{ broken");
    expect(desktopAppVersion(write(`${base}/cli/zcode.cjs`, ""))).toBeUndefined();
  });

  test("only four levels are searched", () => {
    const base = `deep-${++n}`;
    write(`${base}/Info.plist`, plist("3.0.0"));
    expect(desktopAppVersion(write(`${base}/a/b/c/d/e/zcode.cjs`, ""))).toBeUndefined();
    expect(desktopAppVersion(write(`${base}/a/b/c/zcode.cjs`, ""))).toBe("3.0.0");
  });
});
