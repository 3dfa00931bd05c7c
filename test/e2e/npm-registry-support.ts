// A minimal npm registry on 127.0.0.1 for the npm packaging tests: packuments
// and tarballs for packages packed from local directories with `npm pack`,
// 404 for anything else. npm resolves, filters by os/cpu/libc and installs
// from it exactly as from registry.npmjs.org, and nothing leaves this
// machine (no request ever reaches a real registry, where someone else may
// own a name).
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "./cli-support.ts";

export interface PackedPackage {
  name: string;
  version: string;
  tarball: string;
  manifest: Record<string, unknown>;
}

/** `npm pack` a package directory into `dest`; returns the tarball path and its package.json. */
export async function npmPack(dir: string, dest: string, env: Record<string, string | undefined>): Promise<PackedPackage> {
  const r = await run(["npm", "pack", "--json", "--pack-destination", dest, dir], { env, timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`npm pack ${dir} failed: ${r.stderr}`);
  const info = JSON.parse(r.stdout) as Array<{ filename: string }>;
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  return {
    name: manifest.name as string,
    version: manifest.version as string,
    tarball: join(dest, info[0]!.filename.replace(/^@/, "").replace(/\//g, "-")),
    manifest,
  };
}

export function serveRegistry(packages: PackedPackage[]) {
  const requests: string[] = [];
  const byName = new Map<string, PackedPackage[]>();
  for (const p of packages) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  const tarballs = new Map<string, PackedPackage>();
  // A platform tarball is ~50 MB: hashed once, not on every packument request
  // (each npm install asks for every platform package's packument).
  const digests = new Map<string, { shasum: string; integrity: string }>();
  const digestOf = (tarball: string) => {
    let d = digests.get(tarball);
    if (!d) {
      const bytes = readFileSync(tarball);
      d = {
        shasum: createHash("sha1").update(bytes).digest("hex"),
        integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
      };
      digests.set(tarball, d);
    }
    return d;
  };
  let base = "";

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req): Response {
      const path = decodeURIComponent(new URL(req.url).pathname);
      requests.push(path);
      const tgz = tarballs.get(path);
      if (tgz) return new Response(Bun.file(tgz.tarball));
      const versions = byName.get(path.slice(1));
      if (!versions) return Response.json({ error: "Not found" }, { status: 404 });
      const packument = {
        name: path.slice(1),
        "dist-tags": { latest: versions.at(-1)!.version },
        versions: Object.fromEntries(
          versions.map((p) => {
            const file = `/-/${p.name}-${p.version}.tgz`;
            tarballs.set(file, p);
            return [
              p.version,
              {
                ...p.manifest,
                _id: `${p.name}@${p.version}`,
                dist: { tarball: `${base}${encodeURI(file)}`, ...digestOf(p.tarball) },
              },
            ];
          }),
        ),
      };
      return Response.json(packument);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  return { server, requests, url: `${base}/` };
}

/** An npm environment that sees only `registryUrl`, with its own cache and no user config. */
export function isolatedNpmEnv(tmp: string, registryUrl: string): Record<string, string | undefined> {
  const home = mkdtempSync(join(tmp, "npm-home-"));
  return {
    PATH: process.env.PATH,
    HOME: home,
    npm_config_registry: registryUrl,
    npm_config_cache: join(home, "cache"),
    npm_config_userconfig: join(home, "npmrc"),
    npm_config_globalconfig: join(home, "npmrc-global"),
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
  };
}
