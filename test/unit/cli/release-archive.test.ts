// upgrade's archive reading: the one wanted file out of a .tar.gz (Bun's own
// archives, GNU tar's long names, pax paths), bounded in what it expands to;
// a download bounded in size with its progress; a .zip's declared size.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArchiveLimitError, readBounded, tarGzEntry, zipDeclaredSize } from "../../../src/cli/release-archive.ts";

const tmp = mkdtempSync(join(tmpdir(), "release-archive-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function bunTarGz(files: Record<string, string | Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await (await new Bun.Archive(files, { compress: "gzip" }).blob()).arrayBuffer());
}

test("the wanted file from a Bun archive, whatever comes before it", async () => {
  const archive = await bunTarGz({ "README.md": "x".repeat(1000), "dir/zcode-acp-server": "#!/bin/sh\necho 1\n" });
  expect(new TextDecoder().decode(await tarGzEntry(archive, "zcode-acp-server"))).toBe("#!/bin/sh\necho 1\n");
  expect(await tarGzEntry(archive, "missing")).toBeUndefined();
});

test("GNU tar long names and pax paths", async () => {
  const deep = join(tmp, "src", "a".repeat(60), "b".repeat(60));
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(deep, "zcode-acp-server"), "binary bytes");
  for (const format of ["gnu", "pax"]) {
    const out = join(tmp, `${format}.tar.gz`);
    const p = Bun.spawnSync(["tar", `--format=${format}`, "-czf", out, "-C", join(tmp, "src"), "."]);
    expect(p.exitCode).toBe(0);
    const found = await tarGzEntry(readFileSync(out), "zcode-acp-server");
    expect(new TextDecoder().decode(found)).toBe("binary bytes");
  }
});

test("a tar.gz bomb: extraction stops at the limit, before the whole of it is expanded", async () => {
  const zeros = new Uint8Array(4 * 1024 * 1024);
  const archive = await bunTarGz({ "zcode-acp-server": zeros });
  expect(archive.length).toBeLessThan(64 * 1024);
  expect(tarGzEntry(archive, "zcode-acp-server", 1024 * 1024)).rejects.toBeInstanceOf(ArchiveLimitError);
  expect((await tarGzEntry(archive, "zcode-acp-server", 8 * 1024 * 1024))?.length).toBe(zeros.length);
});

test("a download is read up to a limit, with its progress; one announced too large is refused at once", async () => {
  const seen: Array<[number, number | undefined]> = [];
  const body = new Uint8Array(3000);
  const got = await readBounded(new Response(body, { headers: { "content-length": "3000" } }), 5000, (r, t) => seen.push([r, t]));
  expect(got.length).toBe(3000);
  expect(seen.at(-1)).toEqual([3000, 3000]);
  expect(readBounded(new Response(body), 1000)).rejects.toBeInstanceOf(ArchiveLimitError);
  expect(readBounded(new Response(body, { headers: { "content-length": "3000" } }), 1000)).rejects.toBeInstanceOf(ArchiveLimitError);
});

test("a .zip's central directory sizes, summed", async () => {
  const dir = join(tmp, "zip");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "a"), "x".repeat(1234));
  writeFileSync(join(dir, "b"), "y".repeat(10));
  const zip = join(tmp, "t.zip");
  const p = Bun.spawnSync([
    "python3",
    "-c",
    `import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\nz.write(sys.argv[2]+'/a','a')\nz.write(sys.argv[2]+'/b','b')\nz.close()`,
    zip,
    dir,
  ]);
  expect(p.exitCode).toBe(0);
  expect(zipDeclaredSize(readFileSync(zip))).toBe(1244);
  expect(zipDeclaredSize(new Uint8Array(100))).toBeUndefined();
});
