import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import type { ZCodeAttachment } from "../zcode/api.ts";
import { readableName } from "./attachment-name.ts";
import { invalidParams } from "./errors.ts";
import { displayPath } from "./tools/format.ts";

// ACP prompt content → what ZCode's session/send takes: one text (typed text,
// file links as @mentions, embedded text resources as context blocks) and
// attachments (images, PDFs, other files). Limits keep one prompt from
// swamping ZCode or our memory; whatever is refused is refused with a reason.

/** The limits are the files' own sizes (what a user sees in a file manager), not their base64 on the wire. */
export const PROMPT_LIMITS = {
  blocks: 100,
  imageBytes: 10 * 1024 * 1024,
  promptBytes: 50 * 1024 * 1024,
} as const;

/** Image types ZCode's models take. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);
const EXT_BY_TYPE: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif" };

export interface PromptInput {
  /** What goes to ZCode as `content`. */
  text: string;
  /** Only what the user typed (text blocks): a slash command is recognised from this alone, never from an attachment. */
  typed: string;
  attachments: ZCodeAttachment[];
}

function filePathOf(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** A file link as the `@path` mention ZCode understands; other links as markdown. */
function mention(uri: string, name: string, cwd: string | undefined): string {
  const path = filePathOf(uri);
  if (path !== undefined) {
    const shown = cwd ? displayPath(path, cwd) : path;
    if (!/\s/.test(shown)) return `@${shown}`;
  }
  return `[${name || uri}](${uri})`;
}

function escapeAttr(v: string): string {
  return v.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

function contextBlock(uri: string, text: string): string {
  const body = text.endsWith("\n") ? text : `${text}\n`;
  return `<context uri="${escapeAttr(uri)}">\n${body}</context>`;
}

function invalid(message: string): never {
  throw invalidParams(message);
}

/** Decoded size of base64 data, or a clear refusal when it is not base64. */
function base64Size(data: string, what: string): number {
  const clean = data.replace(/\s+/g, "");
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) invalid(t().errors.notBase64(what));
  const pad = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return (clean.length / 4) * 3 - pad;
}

/** A name for the attachment: the uri's last segment when it has one, else `<stem>-<n>.<ext>`. */
function nameFor(uri: string | undefined | null, stem: string, n: number, ext: string): string {
  const last = uri ? basename(filePathOf(uri) ?? uri.replace(/[?#].*$/, "")) : "";
  return readableName(last) || `${stem}-${n}${ext ? `.${ext}` : ""}`;
}

function mimeOf(mimeType: string | undefined | null): string {
  return (mimeType ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Builds ZCode's prompt from ACP content blocks. Throws -32602 for what
 * ZCode cannot take (audio), for broken data, and past the limits.
 */
/** Writes a file ZCode takes by path somewhere it can read it; returns the path. The session owns where. */
export type StageFile = (filename: string, bytes: Uint8Array) => string;

/** MiB with one decimal, as the limits are stated. */
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, "");
/** A size a user can compare with what a file manager shows: MiB, and the exact bytes (grouped the same in every language). */
const size = (bytes: number): [string, string] => [mib(bytes), bytes.toLocaleString("en-US")];

/** Bytes of the prompt as session/send carries it: the text as JSON, images and PDFs in base64, each attachment's fields. */
function wireBytes(text: string, attachments: ZCodeAttachment[]): number {
  let n = Buffer.byteLength(JSON.stringify(text));
  for (const a of attachments) n += (a.dataBase64?.length ?? 0) + Buffer.byteLength(JSON.stringify(a.filename)) + 256;
  return n;
}

/**
 * maxWireBytes: the most the prompt may be as sent to ZCode (config.ts
 * promptWireLimit); a larger one is refused before anything is staged.
 */
export function promptToInput(
  blocks: readonly ContentBlock[],
  opts: { cwd?: string; stage?: StageFile; maxWireBytes?: number } = {},
): PromptInput {
  if (blocks.length > PROMPT_LIMITS.blocks) invalid(t().errors.tooManyBlocks(PROMPT_LIMITS.blocks, blocks.length));
  const pieces: Array<{ text: string; kind: "text" | "link" | "block" }> = [];
  const typed: string[] = [];
  const attachments: ZCodeAttachment[] = [];
  /** Files are written only once the whole prompt passed its checks. */
  const toStage: Array<{ index: number; data: string }> = [];
  let total = 0;
  const count = (bytes: number) => {
    total += bytes;
    if (total > PROMPT_LIMITS.promptBytes) invalid(t().errors.attachmentsTooBig(mib(PROMPT_LIMITS.promptBytes), ...size(total)));
  };
  const image = (data: string, mimeType: string, uri: string | undefined | null) => {
    const sizeBytes = base64Size(data, t().errors.anImage);
    if (sizeBytes > PROMPT_LIMITS.imageBytes) invalid(t().errors.imageTooBig(mib(PROMPT_LIMITS.imageBytes), ...size(sizeBytes)));
    count(sizeBytes);
    const n = attachments.length + 1;
    attachments.push({
      kind: "image",
      filename: nameFor(uri, "image", n, EXT_BY_TYPE[mimeType] ?? ""),
      mimeType,
      sizeBytes,
      dataBase64: data.replace(/\s+/g, ""),
    });
  };
  for (const b of blocks) {
    switch (b.type) {
      case "text":
        pieces.push({ text: b.text, kind: "text" });
        typed.push(b.text);
        break;
      case "resource_link":
        pieces.push({ text: mention(b.uri, b.name, opts.cwd), kind: "link" });
        break;
      case "image": {
        const mime = mimeOf(b.mimeType);
        if (!IMAGE_TYPES.has(mime)) invalid(t().errors.imageType(JSON.stringify(b.mimeType)));
        image(b.data, mime, b.uri);
        break;
      }
      case "resource": {
        const r = b.resource;
        if ("text" in r && typeof r.text === "string") {
          pieces.push({ text: contextBlock(r.uri, r.text), kind: "block" });
          break;
        }
        if (!("blob" in r) || typeof r.blob !== "string") invalid(t().errors.emptyResource(r.uri));
        const mime = mimeOf(r.mimeType) || "application/octet-stream";
        if (IMAGE_TYPES.has(mime)) {
          image(r.blob, mime, r.uri);
        } else if (mime === "application/pdf") {
          const sizeBytes = base64Size(r.blob, t().errors.thePdf(r.uri));
          count(sizeBytes);
          attachments.push({
            kind: "pdf",
            filename: nameFor(r.uri, "document", attachments.length + 1, "pdf"),
            mimeType: mime,
            sizeBytes,
            dataBase64: r.blob.replace(/\s+/g, ""),
          });
        } else {
          const sizeBytes = base64Size(r.blob, t().errors.theFile(r.uri));
          count(sizeBytes);
          if (!opts.stage) invalid(t().errors.binaryNotHere);
          toStage.push({ index: attachments.length, data: r.blob });
          attachments.push({ kind: "file", filename: nameFor(r.uri, "file", attachments.length + 1, ""), mimeType: mime, sizeBytes });
        }
        break;
      }
      case "audio":
        invalid(t().errors.audio);
        break;
      default:
        invalid(t().errors.unsupportedContent(JSON.stringify((b as { type?: unknown }).type)));
    }
  }
  let out = "";
  let prev: "text" | "link" | "block" | undefined;
  for (const p of pieces) {
    if (prev === undefined) out = p.text;
    else if (p.kind === "block" || prev === "block") out = `${out.replace(/\s+$/, "")}\n\n${p.text.replace(/^\s+/, "")}`;
    else if ((p.kind === "link" || prev === "link") && !/\s$/.test(out) && !/^\s/.test(p.text) && p.text !== "") out += ` ${p.text}`;
    else out += p.text;
    prev = p.kind;
  }
  if (opts.maxWireBytes !== undefined) {
    const bytes = wireBytes(out, attachments);
    if (bytes > opts.maxWireBytes) invalid(t().errors.promptTooBig(...size(bytes), ...size(opts.maxWireBytes)));
  }
  for (const { index, data } of toStage) {
    const a = attachments[index]!;
    a.localPath = opts.stage!(a.filename, Buffer.from(data.replace(/\s+/g, ""), "base64"));
  }
  return { text: out, typed: typed.join(""), attachments };
}
