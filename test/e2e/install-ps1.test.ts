// install.ps1 cannot run here (no PowerShell on Linux CI; the release
// workflow runs it on Windows). These checks keep it in step with the release
// naming in src/cli/release-targets.ts and with install.sh's behaviour, and
// parse it with PowerShell's own parser when pwsh is installed.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stampInstaller } from "../../scripts/release/stamp-installers.ts";
import { assetName, RELEASE_OWNER, RELEASE_TARGETS, targetId } from "../../src/cli/release-targets.ts";
import { ROOT, run } from "./cli-support.ts";

const PS1 = join(ROOT, "install.ps1");
const text = readFileSync(PS1, "utf8");

test("picks exactly the Windows release targets: x64, x64 without AVX2 (PF_AVX2_INSTRUCTIONS_AVAILABLE), ARM64 natively", () => {
  const windows = RELEASE_TARGETS.filter((t) => t.os === "windows")
    .map(targetId)
    .sort();
  const picked = [...text.matchAll(/\$target = "(windows-[a-z0-9-]+)"/g)].map((m) => m[1]!).sort();
  expect([...new Set(picked)]).toEqual(windows);
  expect(text).toContain("IsProcessorFeaturePresent(40)");
  expect(text).toMatch(/"ARM64" \{ \$target = "windows-arm64" \}/);
  // The asset name is built the way assetName() builds it.
  expect(text).toContain('$asset = "zcode-acp-server-$target.zip"');
  for (const t of RELEASE_TARGETS.filter((x) => x.os === "windows")) expect(assetName(t)).toBe(`zcode-acp-server-${targetId(t)}.zip`);
  expect(text).toContain(`$ReleaseOwner = "${RELEASE_OWNER}"`);
});

test("version: parameter, then ZCODE_ACP_VERSION, then the version stamped at release time, then latest", () => {
  const order = ["if (-not $Version) { $Version = $env:ZCODE_ACP_VERSION }", "if (-not $Version) { $Version = $PinnedVersion }"];
  const at = order.map((line) => text.indexOf(line));
  expect(at.every((i) => i > 0)).toBe(true);
  expect(at[0]!).toBeLessThan(at[1]!);
  expect(text).toContain('$PinnedVersion = ""');
  const stamped = stampInstaller("install.ps1", text, "1.2.3");
  expect(stamped).toContain('$PinnedVersion = "1.2.3"');
  expect(stamped).not.toContain('$PinnedVersion = ""');
  expect(() => stampInstaller("install.ps1", stamped, "1.2.4")).toThrow("expected the line");
});

test("install directory: ZCODE_ACP_INSTALL_DIR, then an absolute XDG_BIN_HOME, then ~\\.local\\bin; GITHUB_PATH is appended to", () => {
  const dir = text.indexOf("$installDir = $env:ZCODE_ACP_INSTALL_DIR");
  const xdg = text.indexOf("$env:XDG_BIN_HOME -and [System.IO.Path]::IsPathRooted($env:XDG_BIN_HOME)");
  const home = text.indexOf('$installDir = Join-Path $HOME ".local\\bin"');
  expect(dir).toBeGreaterThan(0);
  expect(xdg).toBeGreaterThan(dir);
  expect(home).toBeGreaterThan(xdg);
  expect(text).toContain("$installDir | Out-File -FilePath $env:GITHUB_PATH -Encoding utf8 -Append");
});

test("PowerShell parses it (when pwsh is installed)", async () => {
  const pwsh = Bun.which("pwsh");
  if (!pwsh) {
    console.warn("SKIP install.ps1 parse: pwsh is not installed (checked as text only)");
    return;
  }
  const r = await run([
    pwsh,
    "-NoProfile",
    "-Command",
    `$e = $null; [void][System.Management.Automation.Language.Parser]::ParseFile('${PS1}', [ref]$null, [ref]$e); $e.Count`,
  ]);
  expect(r.stdout.trim()).toBe("0");
});

test("the archive download draws a progress bar (curl.exe --progress-bar) only for a console a person watches", () => {
  expect(text).toContain("Download (UrlFor $asset) $zipFile -Progress");
  expect(text).toContain('Download (UrlFor "SHA256SUMS") $sumsFile\n');
  expect(text).toContain("[Environment]::UserInteractive -and -not [Console]::IsErrorRedirected");
  expect(text).toContain("--progress-bar");
  // Invoke-WebRequest's own bar stays off: it slows the download many times over.
  expect(text).toContain('$ProgressPreference = "SilentlyContinue"');
});
