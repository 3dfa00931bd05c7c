import { fileURLToPath } from "node:url";
import { RequestError, type ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { displayPath } from "./tool-format.ts";

// ACP prompt content → the one text ZCode's session/send takes. ZCode has no
// field for images, audio or binary data, so those are refused with a message
// saying so (initialize does not advertise them either).

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

function refuse(what: string): never {
  throw RequestError.invalidParams(
    undefined,
    `ZCode cannot take ${what} in a prompt; send text, file links (resource_link) or embedded text resources`,
  );
}

/**
 * Joins the blocks into one prompt. Text is kept as is; a link is inline, with
 * a space between it and a word it would otherwise touch; embedded resources
 * are blocks of their own, separated by blank lines.
 */
export function promptToText(blocks: readonly ContentBlock[], opts: { cwd?: string } = {}): string {
  const pieces: Array<{ text: string; kind: "text" | "link" | "block" }> = [];
  for (const b of blocks) {
    switch (b.type) {
      case "text":
        pieces.push({ text: b.text, kind: "text" });
        break;
      case "resource_link":
        pieces.push({ text: mention(b.uri, b.name, opts.cwd), kind: "link" });
        break;
      case "resource": {
        const r = b.resource;
        if ("text" in r && typeof r.text === "string") pieces.push({ text: contextBlock(r.uri, r.text), kind: "block" });
        else refuse(`binary resources (${r.uri})`);
        break;
      }
      case "image":
        refuse("images");
        break;
      case "audio":
        refuse("audio");
        break;
      default:
        refuse(`content of type ${JSON.stringify((b as { type?: unknown }).type)}`);
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
  return out;
}
