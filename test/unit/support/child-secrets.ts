// What a crashing ZCode CLI (or a wrapper echoing its environment) may print,
// and the secrets in it: shared by the tests that check text from the child
// is redacted where it enters the bridge (its stderr, its error messages, the
// stderr of its --version probe). Errors built from that text go to the
// editor and into --trace files, which the log's own redaction never sees.
import { expect } from "bun:test";

export const SECRET_LINES = [
  "starting with OPENAI_API_KEY=sk-live-0123456789abcdefghijklmn",
  "request headers: { 'x-api-key': 'hunter2-secret-value' }",
  "fatal: Authorization: Bearer abcdef0123456789",
  "401: Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX",
  '{"level":"error","msg":"auth failed","apiKey":"k-0123456789"}',
];
export const SECRETS = ["sk-live-0123456789", "hunter2-secret-value", "abcdef0123456789", "sk-proj-ABCDEFGH", "k-0123456789"];

export function expectNoSecret(text: string): void {
  for (const s of SECRETS) expect(text).not.toContain(s);
}
