// Prompts with images, PDFs and files through the compiled bridge: what
// reaches ZCode's session/send `attachments` (recorded by the simulator, which
// also echoes what it took: "Attachments: …"), the private staging of other
// files, and the limits. Broken base64 and image types outside PNG/JPEG/
// WebP/GIF are in agent-sessions.test.ts.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rejection, sharedBridge, withBridge, type Harness } from "../support/acp-harness.ts";

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PNG_BYTES = Buffer.from(PNG, "base64").length;
const PDF_TEXT = "%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";
const PDF = Buffer.from(PDF_TEXT).toString("base64");

/** The session/send requests the simulator received; with `sessionId`, only that session's. */
const sends = (h: Harness, sessionId?: string) =>
  h.simFrames().filter((f) => f.method === "session/send" && (sessionId === undefined || f.params?.sessionId === sessionId));

/** A private cache home for the staged files of one test. */
function cacheHome(): string {
  return mkdtempSync(join(tmpdir(), "zcode-acp-cache-"));
}

// One bridge for the tests without an env of their own, across the describes:
// each reads only its own session's frames.
const bridge = sharedBridge({ record: true });

describe("attachments reach ZCode", () => {
  test("an image block: inline, named from its uri (else image-N.png), with its size", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, [
        { type: "text", text: "what is in these?" },
        { type: "image", data: PNG, mimeType: "image/png", uri: "file:///home/me/shot.png" },
        { type: "image", data: PNG, mimeType: "image/png" },
      ]);
      expect(r.stopReason).toBe("end_turn");
      const send = sends(h).at(-1)!;
      expect(send.params.content).toBe("what is in these?");
      expect(send.params.attachments).toEqual([
        { kind: "image", filename: "shot.png", mimeType: "image/png", sizeBytes: PNG_BYTES, dataBase64: PNG },
        { kind: "image", filename: "image-2.png", mimeType: "image/png", sizeBytes: PNG_BYTES, dataBase64: PNG },
      ]);
      expect(h.text(sessionId)).toContain(
        `Attachments: image shot.png image/png ${PNG_BYTES} bytes; image image-2.png image/png ${PNG_BYTES} bytes`,
      );
    });
  });

  test("resource blobs: image/* as an image, application/pdf as a pdf", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, [
        { type: "text", text: "compare" },
        { type: "resource", resource: { uri: "file:///home/me/diagram.webp", mimeType: "image/webp", blob: PNG } },
        { type: "resource", resource: { uri: "file:///home/me/spec.pdf", mimeType: "application/pdf", blob: PDF } },
      ]);
      expect(r.stopReason).toBe("end_turn");
      expect(sends(h).at(-1)!.params.attachments).toEqual([
        { kind: "image", filename: "diagram.webp", mimeType: "image/webp", sizeBytes: PNG_BYTES, dataBase64: PNG },
        { kind: "pdf", filename: "spec.pdf", mimeType: "application/pdf", sizeBytes: PDF_TEXT.length, dataBase64: PDF },
      ]);
      expect(h.text(sessionId)).toContain(`pdf spec.pdf application/pdf ${PDF_TEXT.length} bytes`);
    });
  });

  test("another file is staged privately (0700 directory, 0600 file) and sent by path", async () => {
    if (process.platform === "win32") return;
    const cache = cacheHome();
    try {
      await withBridge({ record: true, env: { XDG_CACHE_HOME: cache } }, async (h) => {
        const { sessionId } = await h.newSession();
        const bytes = Buffer.from([0, 1, 2, 3, 250, 251, 252, 253, 10]);
        const r = await h.prompt(sessionId, [
          { type: "text", text: "read this dump" },
          {
            type: "resource",
            resource: { uri: "file:///home/me/core.bin", mimeType: "application/octet-stream", blob: bytes.toString("base64") },
          },
        ]);
        expect(r.stopReason).toBe("end_turn");
        const [att] = sends(h).at(-1)!.params.attachments as Array<Record<string, unknown>>;
        expect(att).toMatchObject({ kind: "file", filename: "core.bin", mimeType: "application/octet-stream", sizeBytes: bytes.length });
        expect(att!.dataBase64).toBeUndefined();
        const path = String(att!.localPath);
        expect(dirname(path)).toBe(join(cache, `zcode-acp-server-${process.getuid!()}`, "attachments"));
        expect(existsSync(path)).toBe(true);
        expect(readFileSync(path)).toEqual(bytes);
        expect(statSync(path).mode & 0o777).toBe(0o600);
        expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
        expect(h.text(sessionId)).toContain(`file core.bin application/octet-stream ${bytes.length} bytes (localPath ${path})`);
      });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test("a prompt may be attachments only", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, [{ type: "image", data: PNG, mimeType: "image/png" }]);
      expect(r.stopReason).toBe("end_turn");
      const send = sends(h).at(-1)!;
      expect(send.params.content).toBe("");
      expect(send.params.attachments).toHaveLength(1);
      expect(h.text(sessionId)).toContain("Attachments: image image-1.png image/png");
    });
  });
});

describe("what is refused, with a reason", () => {
  test("audio, an image over 10 MiB, more than 100 blocks: -32602 naming the limit; nothing reaches ZCode", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const audio = await rejection(
        h.prompt(sessionId, [
          { type: "text", text: "listen" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        ]),
      );
      expect(audio.code).toBe(-32602);
      expect(audio.message).toContain("ZCode cannot take audio in a prompt");
      const big = Buffer.alloc(10 * 1024 * 1024 + 1, 1).toString("base64");
      const image = await rejection(h.prompt(sessionId, [{ type: "image", data: big, mimeType: "image/png" }]));
      expect(image.code).toBe(-32602);
      expect(image.message).toContain("Images can be at most 10 MiB each");
      const blocks = Array.from({ length: 101 }, (_, i) => ({ type: "text" as const, text: `part ${i} ` }));
      const many = await rejection(h.prompt(sessionId, blocks));
      expect(many.code).toBe(-32602);
      expect(many.message).toContain("at most 100 content blocks");
      expect(sends(h, sessionId)).toEqual([]);
      expect((await h.prompt(sessionId, "still fine")).stopReason).toBe("end_turn");
    });
  }, 30_000);
});

describe("slash commands come from the typed text only", () => {
  test("a command inside an attached file's text goes to ZCode as part of the prompt, and is not run", async () => {
    await bridge.run(async (h) => {
      const { sessionId, modes } = await h.newSession();
      expect(modes?.currentModeId).toBe("build");
      const r = await h.prompt(sessionId, [
        { type: "resource", resource: { uri: "file:///home/me/notes.md", mimeType: "text/markdown", text: "/mode plan" } },
      ]);
      expect(r.stopReason).toBe("end_turn");
      const send = sends(h, sessionId).at(-1)!;
      expect(send.params.content).toBe('<context uri="file:///home/me/notes.md">\n/mode plan\n</context>');
      expect(h.simMethods(sessionId)).not.toContain("session/setMode");
      expect(h.updatesOfKind(sessionId, "current_mode_update")).toEqual([]);
      // Typed, the same words are the command.
      await h.prompt(sessionId, [{ type: "text", text: "/mode plan" }]);
      expect(h.simMethods(sessionId)).toContain("session/setMode");
    });
  });
});

describe("attachment names", () => {
  test("bidi, DEL and zero-width characters are dropped, NEL and LS read as a space; a 10 MB name is bounded and keeps its extension", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const hostile =
        "file:///home/me/" + ["invoice", "%E2%80%AE", "gnp", "%7F", "%C2%85", "%E2%80%A8", "%E2%80%8B", "%E2%81%A6", ".exe.png"].join("");
      const long = `file:///home/me/${"a".repeat(10 * 1024 * 1024)}.png`;
      const r = await h.prompt(sessionId, [
        { type: "text", text: "look" },
        { type: "image", data: PNG, mimeType: "image/png", uri: hostile },
        { type: "image", data: PNG, mimeType: "image/png", uri: long },
        { type: "image", data: PNG, mimeType: "image/png", uri: "file:///home/me/%E2%80%AE%E2%80%8B" },
      ]);
      expect(r.stopReason).toBe("end_turn");
      const names = (sends(h, sessionId).at(-1)!.params.attachments as Array<{ filename: string }>).map((a) => a.filename);
      // The overrides and invisible characters gone; NEL and LS part words like a space.
      expect(names[0]).toBe("invoicegnp .exe.png");
      expect(Array.from(names[1]!).length).toBeLessThanOrEqual(120);
      expect(names[1]).toMatch(/^a+…\.png$/);
      // Nothing readable left: the generated name.
      expect(names[2]).toBe("image-3.png");
    });
  }, 60_000);
});

describe("staged files live only as long as they are of use", () => {
  const blob = (name: string, bytes = Buffer.from("core dump\n")) => ({
    type: "resource" as const,
    resource: { uri: `file:///home/me/${name}`, mimeType: "application/octet-stream", blob: bytes.toString("base64") },
  });
  const files = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
  const sharedDir = (cache: string) => join(cache, `zcode-acp-server-${process.getuid!()}`, "attachments");

  test("a slash command with an attachment stages nothing that stays", async () => {
    if (process.platform === "win32") return;
    const cache = cacheHome();
    try {
      await withBridge({ record: true, env: { XDG_CACHE_HOME: cache } }, async (h) => {
        const { sessionId } = await h.newSession();
        const r = await h.prompt(sessionId, [{ type: "text", text: "/mode plan" }, blob("core.bin")]);
        expect(r.stopReason).toBe("end_turn");
        expect(h.simMethods()).toContain("session/setMode");
        expect(files(sharedDir(cache))).toEqual([]);
      });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test("a prompt withdrawn by $/cancel_request before it reached ZCode leaves nothing", async () => {
    if (process.platform === "win32") return;
    const cache = cacheHome();
    try {
      await withBridge({ record: true, env: { XDG_CACHE_HOME: cache } }, async (h) => {
        const { sessionId } = await h.newSession();
        const running = h.prompt(sessionId, "#scenario:slow n=400");
        await h.waitFor(() => h.text(sessionId).includes("chunk 2 "), "streaming");
        const ac = new AbortController();
        const queued = h.agent.request(
          acp.methods.agent.session.prompt,
          { sessionId, prompt: [{ type: "text", text: "look" }, blob("queued.bin")] },
          { cancellationSignal: ac.signal },
        );
        await h.waitFor(() => files(sharedDir(cache)).length === 1, "the queued prompt's file");
        ac.abort();
        expect(
          await queued.then(
            (r) => (r as acp.PromptResponse).stopReason,
            (e: acp.RequestError) => `error ${e.code}`,
          ),
        ).toMatch(/cancelled|error -32800/);
        await h.cancel(sessionId);
        expect((await running).stopReason).toBe("cancelled");
        // The queued prompt's turn never ran: its file is gone once the queue moved past it.
        expect((await h.prompt(sessionId, "after")).stopReason).toBe("end_turn");
        expect(files(sharedDir(cache))).toEqual([]);
        expect(sends(h).map((s) => s.params.content)).not.toContain("look");
      });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test("a write that fails (file size limit) leaves no partial file, and the prompt is refused saying why", async () => {
    if (process.platform === "win32") return;
    const cache = cacheHome();
    try {
      // RLIMIT_FSIZE of 1 MiB, its signal ignored: the write fails with EFBIG as on a full disk.
      await withBridge(
        { record: true, env: { XDG_CACHE_HOME: cache }, wrap: ["/bin/sh", "-c", 'trap "" XFSZ; ulimit -f 2048; exec "$0" "$@"'] },
        async (h) => {
          const { sessionId } = await h.newSession();
          const err = await rejection(
            h.prompt(sessionId, [{ type: "text", text: "look" }, blob("big.bin", Buffer.alloc(3 * 1024 * 1024, 7))]),
          );
          expect(err.message).toContain("Could not stage the attachment big.bin");
          expect(files(sharedDir(cache))).toEqual([]);
          expect(sends(h)).toEqual([]);
        },
      );
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test("a sent file stays while its session is open, and goes with session/close or the editor leaving; a dead bridge's leftovers are pruned", async () => {
    if (process.platform === "win32") return;
    const cache = cacheHome();
    try {
      const dir = sharedDir(cache);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dirname(dir), 0o700);
      const stale = join(dir, "00000000-0000-0000-0000-000000000000-left.bin");
      writeFileSync(stale, "from a bridge killed two days ago");
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
      utimesSync(stale, twoDaysAgo, twoDaysAgo);
      let kept = "";
      await withBridge({ record: true, env: { XDG_CACHE_HOME: cache } }, async (h) => {
        const a = await h.newSession();
        const b = await h.newSession();
        expect((await h.prompt(a.sessionId, [{ type: "text", text: "read it" }, blob("a.bin")])).stopReason).toBe("end_turn");
        expect((await h.prompt(b.sessionId, [{ type: "text", text: "read it" }, blob("b.bin")])).stopReason).toBe("end_turn");
        expect(existsSync(stale)).toBe(false);
        const [pa, pb] = sends(h).map((s) => String(s.params.attachments[0].localPath));
        // ZCode may read them again in a later turn of their session.
        expect(existsSync(pa!) && existsSync(pb!)).toBe(true);
        await h.agent.request(acp.methods.agent.session.close, { sessionId: a.sessionId });
        expect(existsSync(pa!)).toBe(false);
        expect(existsSync(pb!)).toBe(true);
        kept = pb!;
      });
      // The editor left (stdin EOF): the open session's files went with it.
      expect(existsSync(kept)).toBe(false);
      expect(files(dir)).toEqual([]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test("a staging parent that is not private (0777) is never used: a private folder of our own instead", async () => {
    if (process.platform === "win32") return;
    const cache = cacheHome();
    try {
      const parent = dirname(sharedDir(cache));
      mkdirSync(parent, { mode: 0o777 });
      chmodSync(parent, 0o777);
      let staged = "";
      await withBridge({ record: true, env: { XDG_CACHE_HOME: cache } }, async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, [{ type: "text", text: "read it" }, blob("core.bin")])).stopReason).toBe("end_turn");
        staged = String(sends(h).at(-1)!.params.attachments[0].localPath);
        expect(staged.startsWith(`${parent}/`)).toBe(false);
        expect(readFileSync(staged, "utf8")).toBe("core dump\n");
        const own = statSync(dirname(staged));
        expect(own.uid).toBe(process.getuid!());
        expect(own.mode & 0o777).toBe(0o700);
        expect(h.stderr).toContain("is not private to this user");
      });
      expect(existsSync(staged)).toBe(false);
      expect(existsSync(dirname(staged))).toBe(false);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
