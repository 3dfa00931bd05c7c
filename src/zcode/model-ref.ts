// A model selection as ZCode itself writes one: `providerId/modelId`. The
// provider id never holds a slash (model ids may), so the split is at the
// first slash. Lives with the wire because both the session options and
// /quota read it.

export function modelValue(providerId: string, modelId: string): string {
  return `${providerId}/${modelId}`;
}

export function parseModelValue(value: string): { providerId: string; modelId: string } | undefined {
  const at = value.indexOf("/");
  if (at <= 0 || at === value.length - 1) return undefined;
  return { providerId: value.slice(0, at), modelId: value.slice(at + 1) };
}
