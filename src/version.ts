import pkg from "../package.json" with { type: "json" };

// The compiled binary gets the version from `--define __VERSION__` at build
// time; running from source falls back to package.json.
declare const __VERSION__: string | undefined;

export const VERSION: string = typeof __VERSION__ === "string" ? __VERSION__ : pkg.version;
