// The command line: --help descriptions, doctor.

export const cli = {
  /** `--help` descriptions by flag name (a flag missing here keeps its built-in English). */
  flags: {
    lang: "Language of what the bridge says: zh or en (env ZCODE_ACP_LANG; default: the ZCode app's language, then the locale)",
  } as Record<string, string>,
};
