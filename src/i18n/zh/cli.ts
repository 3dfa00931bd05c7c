import type { cli as en } from "../en/cli.ts";

export const cli: typeof en = {
  flags: {
    lang: "桥接程序使用的语言：zh 或 en（环境变量 ZCODE_ACP_LANG；默认依次取 ZCode 应用的语言设置、系统区域设置）",
  },
};
