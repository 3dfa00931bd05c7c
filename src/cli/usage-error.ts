/**
 * A mistake in how the bridge was invoked (unknown flag, bad value). The CLI
 * prints its message on stderr and exits with code 2, the conventional
 * "usage error" status, so scripts and editors can tell it from a crash.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const USAGE_EXIT_CODE = 2;
