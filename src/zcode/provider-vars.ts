// The environment variables through which the ZCode CLI finds the app's
// provider tables. Apart from launch-env.ts so that errors.ts can name one in
// its hint without importing the launch code (which imports errors.ts).

export const BUILTIN_PROVIDER_VAR = "ZCODE_BUILTIN_PROVIDER_CONFIG_FILE";
export const PERSONAL_PROVIDER_VAR = "ZCODE_PERSONAL_PROVIDER_CONFIG_FILE";
