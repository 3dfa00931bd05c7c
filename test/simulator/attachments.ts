// session/send `attachments`, read as the CLI's mapProtocolPromptAttachment
// does (server-operations.ts): PDF wins by kind or mime type; image/video from
// localPath or dataBase64; file/audio become files (localPath, textContent, or
// base64 text of at most 64 KiB declared size); anything else, or an entry
// without usable data, is silently dropped.
import { statSync } from "node:fs";

export interface TurnAttachment {
  type: "pdf" | "image" | "video" | "file";
  path: string;
  /** data: URL or decoded text (never sent on the wire by the simulator). */
  content?: string;
  filename: string;
  mimeType?: string;
  sizeBytes?: number;
  sourceKind?: string;
  /** How the simulator saw it, for the echo (not a CLI field). */
  seen: string;
}

const TEXT_ATTACHMENT_MAX = 64 * 1024;

function describeLocal(path: string): string {
  try {
    const st = statSync(path);
    return `${st.size} bytes (localPath ${path})`;
  } catch {
    return `(localPath ${path}: not found)`;
  }
}

function b64Bytes(b64: string): number {
  try {
    return Buffer.from(b64, "base64").length;
  } catch {
    return 0;
  }
}

export function mapAttachment(a: Record<string, unknown>): TurnAttachment | undefined {
  const kind = a.kind;
  const filename = typeof a.filename === "string" ? a.filename : "attachment";
  const localPath = typeof a.localPath === "string" && a.localPath ? a.localPath : undefined;
  const mimeType = typeof a.mimeType === "string" ? a.mimeType : undefined;
  const sizeBytes = typeof a.sizeBytes === "number" ? a.sizeBytes : undefined;
  const dataBase64 = typeof a.dataBase64 === "string" && a.dataBase64 ? a.dataBase64 : undefined;
  const meta = { filename, ...(mimeType ? { mimeType } : {}), ...(sizeBytes !== undefined ? { sizeBytes } : {}) };
  const mimeBase = mimeType?.split(";")[0]?.trim().toLowerCase();
  const label = (type: string, mime: string | undefined, size: string) => `${type} ${filename}${mime ? ` ${mime}` : ""} ${size}`;

  if (kind === "pdf" || mimeBase === "application/pdf") {
    if (localPath) return { type: "pdf", path: localPath, ...meta, seen: label("pdf", mimeType, describeLocal(localPath)) };
    if (dataBase64)
      return {
        type: "pdf",
        path: filename,
        content: `data:application/pdf;base64,${dataBase64}`,
        ...meta,
        seen: label("pdf", "application/pdf", `${b64Bytes(dataBase64)} bytes`),
      };
    return undefined;
  }
  if (kind === "image" || kind === "video") {
    const dflt = kind === "image" ? "image/*" : "video/mp4";
    if (localPath) return { type: kind, path: localPath, ...meta, seen: label(kind, mimeType, describeLocal(localPath)) };
    if (dataBase64)
      return {
        type: kind,
        path: filename,
        content: `data:${mimeType ?? dflt};base64,${dataBase64}`,
        ...meta,
        seen: label(kind, mimeType ?? dflt, `${b64Bytes(dataBase64)} bytes`),
      };
    return undefined;
  }
  if (kind === "file" || kind === "audio") {
    if (localPath) {
      const sourceKind =
        kind === "file" && (a.sourceKind === "clipboard-text" || a.sourceKind === "topic-history")
          ? { sourceKind: a.sourceKind as string }
          : {};
      return { type: "file", path: localPath, ...meta, ...sourceKind, seen: label("file", mimeType, describeLocal(localPath)) };
    }
    if (typeof a.textContent === "string") {
      return {
        type: "file",
        path: filename,
        content: a.textContent,
        ...meta,
        seen: label("file", mimeType, `${Buffer.byteLength(a.textContent, "utf8")} bytes (text)`),
      };
    }
    if (!dataBase64) return undefined;
    if (sizeBytes !== undefined && Number.isFinite(sizeBytes) && sizeBytes > TEXT_ATTACHMENT_MAX) return undefined;
    const text = Buffer.from(dataBase64, "base64").toString("utf8");
    return {
      type: "file",
      path: filename,
      content: text,
      ...meta,
      seen: label("file", mimeType, `${Buffer.byteLength(text, "utf8")} bytes (base64 text)`),
    };
  }
  return undefined;
}

export function mapAttachments(list: Record<string, unknown>[] | undefined): TurnAttachment[] {
  return (list ?? []).map(mapAttachment).filter((x): x is TurnAttachment => x !== undefined);
}

/** What turn.started carries: the core attachment without its data [GUESSED: the CLI may include content]. */
export function wireAttachment(t: TurnAttachment): Record<string, unknown> {
  const o: Record<string, unknown> = { type: t.type, path: t.path, filename: t.filename };
  if (t.mimeType) o.mimeType = t.mimeType;
  if (t.sizeBytes !== undefined) o.sizeBytes = t.sizeBytes;
  if (t.sourceKind) o.sourceKind = t.sourceKind;
  return o;
}
