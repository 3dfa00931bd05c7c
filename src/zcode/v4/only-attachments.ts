import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import * as v from "valibot";
import type { ZCodeAttachment } from "../api-types.ts";
import type { ZCodeConnection } from "../connection.ts";
import { LOCAL_ERR, ZCodeError } from "../errors.ts";
import { loose, str } from "../schemas.ts";
import { CONNECTION_ID } from "./only-ids.ts";
import { uuidv7 } from "./uuid7.ts";

// A prompt's files on a v4-only child: ZCode takes no file data in a command
// ("附件事务：禁止 full-data RPC", transport.ts V4_METHODS): each file is
// uploaded with v4/attachment/begin, chunk (<= 512 KiB decoded each), commit,
// and sendText carries the refs commit answered (attachment-ref.ts
// attachmentRefSchema, strict: ref, fileName, mime, bytes). Limits are
// core.ts PROTOCOL_V4_LIMITS: 20 MiB a file, 64 chunks.

export const ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024;
const CHUNK_BYTES = 512 * 1024;
const TIMEOUT_MS = 30_000;

/** attachment-ref.ts attachmentRefSchema (strict: nothing else may be sent). */
export interface AttachmentRef {
  ref: string;
  fileName: string;
  mime: string;
  bytes: number;
}

const BeginResultSchema = loose({ state: str, ref: v.optional(str) });
const CommitResultSchema = loose({ ref: str });

/** The bytes of one attachment: its data, or the file it names. */
async function bytesOf(a: ZCodeAttachment): Promise<Buffer> {
  if (a.dataBase64 !== undefined) return Buffer.from(a.dataBase64, "base64");
  if (a.localPath !== undefined) return readFile(a.localPath);
  return Buffer.alloc(0);
}

/** transport.ts v4AttachmentBeginParamsSchema: fileName without NUL/CR/LF, a mime of type/subtype. */
function safeName(name: string): string {
  const clean = name.replace(/[\0\r\n]/g, " ").slice(0, 255);
  return clean.trim() === "" ? "attachment" : clean;
}
function safeMime(mime: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/.test(mime) && mime.length <= 255
    ? mime
    : "application/octet-stream";
}

/** Uploads one attachment of `sessionId` and answers its ref. */
export async function uploadAttachment(conn: ZCodeConnection, sessionId: string, a: ZCodeAttachment): Promise<AttachmentRef> {
  const data = await bytesOf(a);
  const fileName = safeName(a.filename);
  if (data.length > ATTACHMENT_MAX_BYTES) {
    throw new ZCodeError((e) => e.v4Cannot.attachmentTooBig(fileName, ATTACHMENT_MAX_BYTES), {
      code: LOCAL_ERR.unsupported,
      method: "v4/attachment/begin",
    });
  }
  const mime = safeMime(a.mimeType);
  const uploadId = `up-${uuidv7()}`;
  const key = { connectionId: CONNECTION_ID, uploadId, sessionId };
  const totalChunks = Math.ceil(data.length / CHUNK_BYTES);
  const checksum = `sha256:${createHash("sha256").update(data).digest("hex")}`;
  const opts = { timeoutMs: TIMEOUT_MS };
  const begun = await conn.request(
    "v4/attachment/begin",
    { ...key, fileName, mime, totalBytes: data.length, totalChunks, checksum },
    { ...opts, schema: BeginResultSchema },
  );
  // The same bytes committed before (a retried prompt): ZCode answers the ref at once.
  if (begun.state === "committed" && begun.ref) return { ref: begun.ref, fileName, mime, bytes: data.length };
  try {
    for (let i = 0; i < totalChunks; i++) {
      const dataBase64 = data.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES).toString("base64");
      await conn.request("v4/attachment/chunk", { ...key, chunkIndex: i, dataBase64 }, opts);
    }
    const committed = await conn.request("v4/attachment/commit", key, { ...opts, schema: CommitResultSchema });
    return { ref: committed.ref, fileName, mime, bytes: data.length };
  } catch (err) {
    // Staged bytes count against ZCode's 64 MiB: give them back.
    conn.request("v4/attachment/abort", key, opts).catch(() => {});
    throw err;
  }
}

/** Every attachment, in order. */
export async function uploadAll(conn: ZCodeConnection, sessionId: string, list: readonly ZCodeAttachment[]): Promise<AttachmentRef[]> {
  const refs: AttachmentRef[] = [];
  for (const a of list) refs.push(await uploadAttachment(conn, sessionId, a));
  return refs;
}
