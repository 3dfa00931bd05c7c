# Installer for zcode-acp-server on Windows, the ACP bridge for the ZCode coding agent.
#
#   irm https://github.com/zcode-acp/zcode-acp-server/releases/latest/download/install.ps1 | iex
#   $env:ZCODE_ACP_VERSION = "0.2.0"; irm .../install.ps1 | iex       # a given version
#   powershell -ExecutionPolicy Bypass -File install.ps1 -Version 0.2.0
#
# Same steps as install.sh: pick the build (x64, x64 without AVX2, ARM64),
# download it, verify its SHA-256 against the release's SHA256SUMS (refusing on
# a mismatch or a missing entry), install atomically into $env:XDG_BIN_HOME,
# else ~\.local\bin (or $env:ZCODE_ACP_INSTALL_DIR), run its --version, put the
# directory on the user PATH (and on $env:GITHUB_PATH in GitHub Actions),
# print the editor snippet. The copy attached to release vX installs vX by
# default; the one in the repository installs the latest release.
#
# Environment: ZCODE_ACP_VERSION, ZCODE_ACP_INSTALL_DIR, ZCODE_ACP_DOWNLOAD_BASE,
# XDG_BIN_HOME, GITHUB_PATH.
# Everything runs inside Install-ZCodeAcpServer, called on the last line, so a
# download cut short runs nothing.

param([string]$Version = "")

function Install-ZCodeAcpServer {
  param([string]$Version)

  Set-StrictMode -Version Latest
  $ErrorActionPreference = "Stop"
  $ProgressPreference = "SilentlyContinue"  # Invoke-WebRequest is very slow with the progress bar

  # Keep in sync with RELEASE_OWNER in src/cli/release-targets.ts.
  $ReleaseOwner = "zcode-acp"
  $BinName = "zcode-acp-server.exe"
  # Stamped by scripts/release.ts into the copy attached to a release.
  $PinnedVersion = ""

  function Fail([string]$Message) {
    Write-Host "zcode-acp-server install: error: $Message" -ForegroundColor Red
    throw "zcode-acp-server install failed: $Message"
  }

  # x64 CPUs without AVX2 (older ones, VMs that hide it) get the -baseline
  # build, the one meant for them (Bun before 1.4 built its default x64
  # runtime for AVX2). Ask the kernel: PF_AVX2_INSTRUCTIONS_AVAILABLE is 40.
  # A probe that fails picks the baseline build too.
  function Test-Avx2 {
    try {
      if (-not ('ZCodeAcpInstall.Cpu' -as [type])) {
        Add-Type -Namespace 'ZCodeAcpInstall' -Name 'Cpu' -MemberDefinition '[DllImport("kernel32.dll")] public static extern bool IsProcessorFeaturePresent(int ProcessorFeature);'
      }
      return [bool](('ZCodeAcpInstall.Cpu' -as [type])::IsProcessorFeaturePresent(40))
    } catch {
      return $false
    }
  }

  # Platform: x64 (with or without AVX2) or ARM64, from the OS's own view
  # (PROCESSOR_ARCHITEW6432 is set in a 32-bit or emulated shell).
  $arch = $env:PROCESSOR_ARCHITECTURE
  if ($env:PROCESSOR_ARCHITEW6432) { $arch = $env:PROCESSOR_ARCHITEW6432 }
  switch ($arch) {
    "AMD64" {
      $target = "windows-x64"
      if (-not (Test-Avx2)) {
        $target = "windows-x64-baseline"
        Write-Host "This CPU has no AVX2: installing the baseline build."
      }
    }
    "ARM64" { $target = "windows-arm64" }
    default { Fail "unsupported CPU architecture '$arch' (builds exist for x64 and ARM64)" }
  }
  $asset = "zcode-acp-server-$target.zip"

  # Version: the parameter, then ZCODE_ACP_VERSION, then the stamped release, then latest.
  if (-not $Version) { $Version = $env:ZCODE_ACP_VERSION }
  if (-not $Version) { $Version = $PinnedVersion }
  if (-not $Version -or $Version -eq "latest") {
    $tag = "latest"
  } else {
    $Version = $Version.TrimStart("v")
    if ($Version -notmatch '^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$') {
      Fail "'$Version' is not a version (expected e.g. 0.2.0 or v0.2.0)"
    }
    $tag = "v$Version"
  }

  $base = $env:ZCODE_ACP_DOWNLOAD_BASE
  if (-not $base) { $base = "https://github.com/$ReleaseOwner/zcode-acp-server/releases" }
  $base = $base.TrimEnd("/")
  function UrlFor([string]$File) {
    if ($tag -eq "latest") { return "$base/latest/download/$File" }
    return "$base/download/$tag/$File"
  }

  $installDir = $env:ZCODE_ACP_INSTALL_DIR
  if (-not $installDir -and $env:XDG_BIN_HOME -and [System.IO.Path]::IsPathRooted($env:XDG_BIN_HOME)) { $installDir = $env:XDG_BIN_HOME }
  if (-not $installDir) { $installDir = Join-Path $HOME ".local\bin" }

  $tmp = Join-Path ([System.IO.Path]::GetTempPath()) ("zcode-acp-install-" + [System.Guid]::NewGuid().ToString("N"))
  New-Item -ItemType Directory -Path $tmp -Force | Out-Null
  try {
    Write-Host "Installing zcode-acp-server ($tag) for $target from $base"
    [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12

    # With -Progress, a progress bar when a person watches a console: curl.exe
    # (Windows 10 1803+) draws one cheaply; Invoke-WebRequest's own bar would
    # slow the download many times over, so it stays off.
    function Download([string]$Url, [string]$Out, [switch]$Progress) {
      $curl = Get-Command curl.exe -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
      $watched = [Environment]::UserInteractive -and -not [Console]::IsErrorRedirected
      try {
        if ($Progress -and $watched -and $curl) {
          & $curl.Source -fL --progress-bar --retry 2 --connect-timeout 20 -o $Out $Url
          if ($LASTEXITCODE -ne 0) { throw "curl.exe exited with code $LASTEXITCODE" }
        } else {
          Invoke-WebRequest -Uri $Url -OutFile $Out -UseBasicParsing
        }
      } catch {
        if ($tag -eq "latest") { Fail "download failed: $Url ($($_.Exception.Message))" }
        Fail "download failed: $Url (does version $Version exist for $target?) ($($_.Exception.Message))"
      }
    }
    $sumsFile = Join-Path $tmp "SHA256SUMS"
    $zipFile = Join-Path $tmp $asset
    Download (UrlFor "SHA256SUMS") $sumsFile
    Download (UrlFor $asset) $zipFile -Progress

    # Verify before anything is unpacked or installed.
    $expected = $null
    foreach ($line in Get-Content -LiteralPath $sumsFile) {
      $parts = $line -split '\s+', 2
      if ($parts.Count -eq 2 -and $parts[1].TrimStart("*") -eq $asset) { $expected = $parts[0].ToLowerInvariant(); break }
    }
    if (-not $expected) { Fail "SHA256SUMS has no entry for $asset; refusing to install an unverified file" }
    $actual = (Get-FileHash -Algorithm SHA256 -LiteralPath $zipFile).Hash.ToLowerInvariant()
    if ($actual -ne $expected) {
      Fail "checksum mismatch for ${asset}: expected $expected, got $actual. The download is corrupt or was tampered with; nothing was installed"
    }
    Write-Host "Verified SHA-256 of $asset"

    $unpacked = Join-Path $tmp "unpacked"
    Expand-Archive -LiteralPath $zipFile -DestinationPath $unpacked -Force
    $newExe = Join-Path $unpacked $BinName
    if (-not (Test-Path -LiteralPath $newExe)) { Fail "$asset does not contain $BinName" }

    New-Item -ItemType Directory -Path $installDir -Force | Out-Null
    $final = Join-Path $installDir $BinName
    $staged = Join-Path $installDir ".zcode-acp-server.new.exe"
    Copy-Item -LiteralPath $newExe -Destination $staged -Force
    $newVersion = (& $staged --version 2>$null | Out-String).Trim()
    if ($LASTEXITCODE -ne 0 -or -not $newVersion) {
      Remove-Item -LiteralPath $staged -Force -ErrorAction SilentlyContinue
      Fail "the downloaded binary does not run on this machine; nothing was installed"
    }
    # A running .exe cannot be overwritten but can be renamed: move the old
    # one aside (an editor using it keeps running), then move the new one in.
    if (Test-Path -LiteralPath $final) {
      $old = "$final.old"
      Remove-Item -LiteralPath $old -Force -ErrorAction SilentlyContinue
      Move-Item -LiteralPath $final -Destination $old -Force
    }
    Move-Item -LiteralPath $staged -Destination $final -Force
    $installed = (& $final --version | Out-String).Trim()
    if ($installed -ne $newVersion) { Fail "installed binary reports '$installed', expected '$newVersion'" }
    Write-Host "Installed zcode-acp-server $installed to $final"

    # User PATH (persistent) and this session's PATH.
    $userPath = [Environment]::GetEnvironmentVariable("Path", "User")
    if (-not $userPath) { $userPath = "" }
    if (($userPath -split ";") -notcontains $installDir) {
      $newPath = if ($userPath) { "$userPath;$installDir" } else { $installDir }
      [Environment]::SetEnvironmentVariable("Path", $newPath, "User")
      Write-Host "Added $installDir to your user PATH (new terminals will see it)."
    }
    if (($env:Path -split ";") -notcontains $installDir) { $env:Path = "$env:Path;$installDir" }
    # GitHub Actions adds the directories listed in $env:GITHUB_PATH to PATH for later steps.
    if ($env:GITHUB_PATH) {
      # The form GitHub documents for Windows PowerShell 5.1 and pwsh alike.
      $installDir | Out-File -FilePath $env:GITHUB_PATH -Encoding utf8 -Append
      Write-Host "Added $installDir to GITHUB_PATH for the next steps."
    }

    $cmdJson = $final.Replace("\", "\\")
    Write-Host ""
    Write-Host "Zed: add to %APPDATA%\Zed\settings.json:"
    Write-Host "  `"agent_servers`": {"
    Write-Host "    `"ZCode`": { `"type`": `"custom`", `"command`": `"$cmdJson`", `"args`": [], `"env`": {} }"
    Write-Host "  }"
    Write-Host "Other editors (JetBrains, Neovim, Emacs): see the README, 'Editor setup'."
    Write-Host "Check your setup:  zcode-acp-server doctor"
    Write-Host "Upgrade later:     zcode-acp-server upgrade"
    Write-Host "Uninstall:         Remove-Item '$final'  (and remove $installDir from your user PATH if you like)"
  } finally {
    Remove-Item -LiteralPath $tmp -Recurse -Force -ErrorAction SilentlyContinue
  }
}

Install-ZCodeAcpServer -Version $Version
