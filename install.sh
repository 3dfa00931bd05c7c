#!/bin/sh
# Installer for zcode-acp-server, the ACP bridge for the ZCode coding agent.
#
#   curl -fsSL https://github.com/zcode-acp/zcode-acp-server/releases/latest/download/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- 0.2.0        # a given version
#
# It picks the build for this machine (OS, CPU, Rosetta, musl, AVX2), downloads
# it with curl or wget, verifies its SHA-256 against the release's SHA256SUMS,
# and installs it atomically into $XDG_BIN_HOME, else ~/.local/bin (or
# $ZCODE_ACP_INSTALL_DIR). The copy attached to release vX installs vX by
# default; the one in the repository installs the latest release.
#
# Environment:
#   ZCODE_ACP_VERSION        version to install (default: this release, or latest); an argument wins
#   ZCODE_ACP_INSTALL_DIR    where to put the binary (default: $XDG_BIN_HOME, else ~/.local/bin)
#   ZCODE_ACP_DOWNLOAD_BASE  release base URL, for mirrors (default: GitHub releases)
#   GITHUB_PATH              when set (GitHub Actions), the install directory is appended to it
#
# Everything runs inside main(), called on the last line, so a download cut
# short runs nothing.

# Keep in sync with RELEASE_OWNER in src/cli/release-targets.ts.
RELEASE_OWNER="zcode-acp"
DEFAULT_DOWNLOAD_BASE="https://github.com/${RELEASE_OWNER}/zcode-acp-server/releases"
BIN_NAME="zcode-acp-server"
# Stamped by scripts/release.ts into the copy attached to a release.
PINNED_VERSION=""

say() {
  printf '%s\n' "$*"
}

die() {
  printf 'zcode-acp-server install: error: %s\n' "$*" >&2
  exit 1
}

has() {
  command -v "$1" >/dev/null 2>&1
}

detect_os() {
  os_kernel=$(uname -s 2>/dev/null) || die "cannot run uname to detect the operating system"
  case "$os_kernel" in
    Linux) OS=linux ;;
    Darwin) OS=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT)
      die "this is Windows: use install.ps1 instead (see the README, 'Install')" ;;
    *) die "unsupported operating system '$os_kernel' (builds exist for Linux, macOS and Windows)" ;;
  esac
}

detect_arch() {
  arch_machine=$(uname -m 2>/dev/null) || die "cannot run uname to detect the CPU architecture"
  case "$arch_machine" in
    x86_64 | amd64) ARCH=x64 ;;
    aarch64 | arm64 | armv8*) ARCH=arm64 ;;
    *) die "unsupported CPU architecture '$arch_machine' (builds exist for x86_64 and arm64)" ;;
  esac
  # An x64 shell on Apple Silicon runs under Rosetta: the native build is better.
  if [ "$OS" = darwin ] && [ "$ARCH" = x64 ]; then
    if [ "$(sysctl -n sysctl.proc_translated 2>/dev/null)" = 1 ]; then
      ARCH=arm64
    fi
  fi
}

is_musl() {
  if has ldd; then
    # musl's ldd prints "musl libc" (on stderr, with exit code 1).
    case "$(ldd --version 2>&1)" in
      *musl*) return 0 ;;
      *) return 1 ;;
    esac
  fi
  for musl_loader in /lib/ld-musl-*.so.1; do
    [ -e "$musl_loader" ] && return 0
  done
  return 1
}

# x64 CPUs without AVX2 get the -baseline build, the one meant for them (Bun
# before 1.4 built its default x64 runtime for AVX2; see RELEASE_TARGETS).
# ZCODE_ACP_CPUINFO lets the tests stand in another CPU's /proc/cpuinfo.
has_avx2() {
  if [ "$OS" = darwin ]; then
    # 1 on Intel Macs with AVX2; 0 (or missing) on older ones.
    [ "$(sysctl -n hw.optional.avx2_0 2>/dev/null)" = 1 ]
    return
  fi
  avx_cpuinfo=${ZCODE_ACP_CPUINFO:-/proc/cpuinfo}
  [ -r "$avx_cpuinfo" ] || return 0
  grep -qw avx2 "$avx_cpuinfo"
}

detect_target() {
  detect_os
  detect_arch
  VARIANT=""
  if [ "$OS" = linux ] && is_musl; then
    VARIANT="-musl"
  fi
  if [ "$ARCH" = x64 ] && ! has_avx2; then
    VARIANT="${VARIANT}-baseline"
  fi
  TARGET="${OS}-${ARCH}${VARIANT}"
  ASSET="${BIN_NAME}-${TARGET}.tar.gz"
}

resolve_version() {
  VERSION=${1:-${ZCODE_ACP_VERSION:-${PINNED_VERSION:-latest}}}
  if [ "$VERSION" = latest ]; then
    TAG=latest
    return
  fi
  VERSION=${VERSION#v}
  case "$VERSION" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) die "'$VERSION' is not a version (expected e.g. 0.2.0 or v0.2.0)" ;;
  esac
  case "$VERSION" in
    *[!0-9A-Za-z.-]*) die "'$VERSION' is not a version (expected e.g. 0.2.0 or v0.2.0)" ;;
  esac
  TAG="v$VERSION"
}

# ZCODE_ACP_INSTALL_DIR, then XDG_BIN_HOME (the XDG base directory for user
# executables, honoured like uv and others do), then ~/.local/bin. A relative
# XDG_BIN_HOME is invalid per the spec and ignored.
resolve_install_dir() {
  if [ -n "${ZCODE_ACP_INSTALL_DIR:-}" ]; then
    INSTALL_DIR=$ZCODE_ACP_INSTALL_DIR
    return
  fi
  case "${XDG_BIN_HOME:-}" in
    /*)
      INSTALL_DIR=$XDG_BIN_HOME
      return
      ;;
  esac
  INSTALL_DIR=${HOME:?HOME is not set; set ZCODE_ACP_INSTALL_DIR}/.local/bin
}

url_for() {
  if [ "$TAG" = latest ]; then
    printf '%s/latest/download/%s' "$BASE" "$1"
  else
    printf '%s/download/%s/%s' "$BASE" "$TAG" "$1"
  fi
}

pick_downloader() {
  if has curl; then
    DOWNLOADER=curl
  elif has wget; then
    DOWNLOADER=wget
  else
    die "neither curl nor wget is installed; install one of them and run this again"
  fi
}

# download URL FILE [progress]: with "progress", a progress bar on stderr
# when stderr is a terminal (the archive is ~50 MB); silent otherwise.
download() {
  dl_url=$1
  dl_out=$2
  dl_bar=
  if [ "${3:-}" = progress ] && [ -t 2 ]; then dl_bar=1; fi
  if [ "$DOWNLOADER" = curl ]; then
    if [ -n "$dl_bar" ]; then
      curl -fSL --progress-bar --retry 2 --connect-timeout 20 -o "$dl_out" "$dl_url"
    else
      curl -fsSL --retry 2 --connect-timeout 20 -o "$dl_out" "$dl_url"
    fi
  elif [ -n "$dl_bar" ]; then
    # GNU wget draws a bar with --show-progress; BusyBox wget draws one unless -q.
    if wget --help 2>&1 | grep -q -- --show-progress; then
      wget -q --show-progress -T 20 -O "$dl_out" "$dl_url"
    else
      wget -T 20 -O "$dl_out" "$dl_url"
    fi
  else
    wget -q -T 20 -O "$dl_out" "$dl_url"
  fi || {
    if [ "$TAG" = latest ]; then
      die "download failed: $dl_url (is there a release for $TARGET? is the network up?)"
    fi
    die "download failed: $dl_url (does version $VERSION exist for $TARGET?)"
  }
}

sha256_of() {
  if has sha256sum; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif has shasum; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif has openssl; then
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else
    die "no SHA-256 tool found (sha256sum, shasum or openssl); cannot verify the download"
  fi
}

verify() {
  expected=$(awk -v f="$ASSET" '$2 == f || $2 == "*" f { print $1; exit }' "$TMP/SHA256SUMS")
  [ -n "$expected" ] || die "SHA256SUMS has no entry for $ASSET; refusing to install an unverified file"
  actual=$(sha256_of "$TMP/$ASSET")
  if [ "$actual" != "$expected" ]; then
    die "checksum mismatch for $ASSET: expected $expected, got $actual. The download is corrupt or was tampered with; nothing was installed"
  fi
  say "Verified SHA-256 of $ASSET"
}

install_binary() {
  mkdir -p "$TMP/unpacked"
  tar -xzf "$TMP/$ASSET" -C "$TMP/unpacked" || die "could not unpack $ASSET"
  [ -f "$TMP/unpacked/$BIN_NAME" ] || die "$ASSET does not contain $BIN_NAME"

  mkdir -p "$INSTALL_DIR" || die "cannot create $INSTALL_DIR (set ZCODE_ACP_INSTALL_DIR to a writable directory)"
  # Stage next to the target, then rename: the rename is atomic, and an editor
  # still running the old binary keeps it open undisturbed.
  staged="$INSTALL_DIR/.$BIN_NAME.new.$$"
  cp "$TMP/unpacked/$BIN_NAME" "$staged" || die "cannot write to $INSTALL_DIR (set ZCODE_ACP_INSTALL_DIR to a writable directory)"
  chmod 755 "$staged"
  if ! new_version=$("$staged" --version 2>/dev/null); then
    rm -f "$staged"
    case "$TARGET" in
      *-musl*)
        # Alpine's base image has no C++ runtime; the musl build links it.
        die "the downloaded binary does not run on this machine ($TARGET); nothing was installed. The musl build needs the C++ runtime: run 'apk add libstdc++ libgcc' (as root) and run this again" ;;
    esac
    die "the downloaded binary does not run on this machine ($TARGET); nothing was installed"
  fi
  mv -f "$staged" "$INSTALL_DIR/$BIN_NAME" || {
    rm -f "$staged"
    die "cannot replace $INSTALL_DIR/$BIN_NAME"
  }
  installed_version=$("$INSTALL_DIR/$BIN_NAME" --version) || die "$INSTALL_DIR/$BIN_NAME --version failed after install"
  [ "$installed_version" = "$new_version" ] || die "installed binary reports $installed_version, expected $new_version"
  say "Installed $BIN_NAME $installed_version to $INSTALL_DIR/$BIN_NAME"
}

# The user's login shell by name (from $SHELL): its start-up file is where PATH goes.
login_shell_name() {
  case "${SHELL:-}" in
    */zsh | zsh) echo zsh ;;
    */bash | bash) echo bash ;;
    */fish | fish) echo fish ;;
    *) echo "your shell (${SHELL:-sh})" ;;
  esac
}

# One line that adds INSTALL_DIR to PATH in the file that shell reads: zsh
# never reads ~/.profile; bash reads ~/.bashrc for a terminal on Linux but
# ~/.bash_profile for the login shells macOS terminals start.
path_hint() {
  export_line="export PATH=\"$INSTALL_DIR:\$PATH\""
  case "$(login_shell_name)" in
    zsh) echo "echo '$export_line' >> ~/.zshrc" ;;
    bash)
      if [ "$(uname -s 2>/dev/null)" = Darwin ]; then
        echo "echo '$export_line' >> ~/.bash_profile"
      else
        echo "echo '$export_line' >> ~/.bashrc"
      fi
      ;;
    fish) echo "echo 'fish_add_path $INSTALL_DIR' >> ~/.config/fish/config.fish" ;;
    *) echo "echo '$export_line' >> ~/.profile" ;;
  esac
}

print_next_steps() {
  # GitHub Actions reads directories to add to PATH for later steps from $GITHUB_PATH.
  if [ -n "${GITHUB_PATH:-}" ]; then
    printf '%s\n' "$INSTALL_DIR" >>"$GITHUB_PATH" || die "cannot append to GITHUB_PATH ($GITHUB_PATH)"
    say "Added $INSTALL_DIR to GITHUB_PATH for the next steps"
  fi
  case ":${PATH:-}:" in
    *":$INSTALL_DIR:"*) ;;
    *)
      say ""
      say "$INSTALL_DIR is not on your PATH. Add it for $(login_shell_name) (then open a new terminal):"
      say "  $(path_hint)"
      say "(Editors only need the full path below, PATH or not.)"
      ;;
  esac
  say ""
  say "Zed: add to ~/.config/zed/settings.json:"
  say "  \"agent_servers\": {"
  say "    \"ZCode\": { \"type\": \"custom\", \"command\": \"$INSTALL_DIR/$BIN_NAME\", \"args\": [], \"env\": {} }"
  say "  }"
  say "Other editors (JetBrains, Neovim, Emacs): see the README, 'Editor setup'."
  say "Check your setup:  $INSTALL_DIR/$BIN_NAME doctor"
  say "Upgrade later:     $INSTALL_DIR/$BIN_NAME upgrade"
  say "Uninstall:         rm $INSTALL_DIR/$BIN_NAME"
}

main() {
  if [ "$#" -gt 1 ]; then
    die "usage: install.sh [version]"
  fi
  case "${1:-}" in
    -h | --help)
      say "usage: install.sh [version]   (env: ZCODE_ACP_VERSION, ZCODE_ACP_INSTALL_DIR, ZCODE_ACP_DOWNLOAD_BASE, XDG_BIN_HOME)"
      return 0
      ;;
  esac
  BASE=${ZCODE_ACP_DOWNLOAD_BASE:-$DEFAULT_DOWNLOAD_BASE}
  BASE=${BASE%/}
  resolve_install_dir

  detect_target
  resolve_version "${1:-}"
  pick_downloader
  has tar || die "tar is needed to unpack the download; install it and run this again"

  TMP=$(mktemp -d 2>/dev/null || mktemp -d -t zcode-acp-install) || die "cannot create a temporary directory"
  trap 'rm -rf "$TMP"' EXIT
  trap 'rm -rf "$TMP"; exit 130' INT TERM

  say "Installing $BIN_NAME ($TAG) for $TARGET from $BASE"
  download "$(url_for SHA256SUMS)" "$TMP/SHA256SUMS"
  download "$(url_for "$ASSET")" "$TMP/$ASSET" progress
  verify
  install_binary
  print_next_steps
}

main "$@"
