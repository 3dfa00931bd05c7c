// What English is left in a text meant to be Chinese: words of Latin
// letters outside code spans, paths, URLs, ids and the names that stay as they
// are in Chinese too (product names, protocol and file-format names). Used by
// the tests that prove a zh run says nothing in English.

/** Names kept untranslated in Chinese text. */
const KEPT = new Set(
  [
    "ZCode",
    "GLM",
    "Coding",
    "Plan",
    "Z.ai",
    "BigModel",
    "MCP",
    "ACP",
    "API",
    "URL",
    "PDF",
    "PNG",
    "JPEG",
    "WebP",
    "GIF",
    "JSON",
    "HTTP",
    "HTTPS",
    "Node",
    "Node.js",
    "Zed",
    "JetBrains",
    "Neovim",
    "Emacs",
    "Bash",
    "CLI",
    "SDK",
    "ID",
    "Pro",
    "Max",
    "Lite",
    "MiB",
    "KiB",
    "GiB",
    "MB",
    "KB",
    "GB",
    "ms",
    "Windows",
    "macOS",
    "Linux",
    "Homebrew",
    "npm",
    "PATH",
    "HOME",
    "Bun",
    "Token",
    "checkpoint",
    "SKILL.md",
    "stdin",
    "stdout",
    "stderr",
    "zcode",
    "zcode-acp-server",
    "doctor",
    "login",
    "logout",
    "upgrade",
    "app-server",
  ].map((w) => w.toLowerCase()),
);

/** Latin-letter words of `text` that are neither code, paths, URLs, ids, flags, env names nor kept names. */
export function englishLeft(text: string): string[] {
  const stripped = text
    // Full-width punctuation separates like a space (`：/tmp/x` is a path).
    .replace(/[\u3000-\u303f\uff00-\uffef]/g, " ")
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/`[^`]*`/g, " ")
    .replace(/\bhttps?:\/\/\S+/g, " ")
    .replace(/(?:^|\s)[~.]?\/\S*/g, " ")
    .replace(/--?[a-z][\w-]*/gi, " ")
    .replace(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g, " ")
    .replace(/\b[\w.-]*\d[\w.-]*\b/g, " ")
    .replace(/\b\w+[/:]\S+/g, " ");
  const words = stripped.match(/[A-Za-z][A-Za-z.'-]*[A-Za-z]|[A-Za-z]/g) ?? [];
  return words.filter((w) => !KEPT.has(w.toLowerCase()) && w.length > 1);
}
