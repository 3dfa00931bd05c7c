import { describe, expect, test } from "bun:test";
import { REDACTED, isSecretKey, redact, redactLine } from "../../src/redact.ts";

describe("redact", () => {
  test("replaces values of secret keys at any depth, case-insensitively", () => {
    const input = {
      apiKey: "sk-1",
      API_KEY: "sk-2",
      nested: { Authorization: "Basic abc", deeper: [{ refreshToken: "r" }, { password: "p", passwd: "q" }] },
      accessToken: "a",
      token: "t",
      secret: { any: "shape" },
      credentials: ["x"],
      credential: "c",
      Cookie: "sid=1",
      private_key: "-----BEGIN",
      "x-api-key": "h",
      clientSecret: "cs",
    };
    // The result's shape differs (objects become strings), so compare untyped.
    const out: unknown = redact(input as unknown);
    expect(out).toEqual({
      apiKey: REDACTED,
      API_KEY: REDACTED,
      nested: { Authorization: REDACTED, deeper: [{ refreshToken: REDACTED }, { password: REDACTED, passwd: REDACTED }] },
      accessToken: REDACTED,
      token: REDACTED,
      secret: REDACTED,
      credentials: REDACTED,
      credential: REDACTED,
      Cookie: REDACTED,
      private_key: REDACTED,
      "x-api-key": REDACTED,
      clientSecret: REDACTED,
    });
  });

  test("never mutates its input", () => {
    const input = { a: { token: "t" }, list: [{ password: "p" }] };
    const snapshot = structuredClone(input);
    redact(input);
    expect(input).toEqual(snapshot);
  });

  test("returns the very same object when nothing needs hiding (cheap on the hot path)", () => {
    const frame = {
      method: "session/event",
      params: { sessionId: "s", seq: 3, type: "model.streaming", payload: { kind: "text_delta", text: "hi" } },
    };
    expect(redact(frame)).toBe(frame);
    const usage = { usage: { inputTokens: 10, outputTokens: 20, totalTokenCount: 30, maxTokens: 5 } };
    expect(redact(usage)).toBe(usage);
  });

  test("shares untouched branches and copies only the path to a secret", () => {
    const keep = { big: "x".repeat(100) };
    const input = { keep, other: { token: "t" } };
    const out = redact(input);
    expect(out).not.toBe(input);
    expect(out.keep).toBe(keep);
    expect(out.other).toEqual({ token: REDACTED });
  });

  test("MCP env and header pairs: {name, value} with a secret-looking name", () => {
    const mcp = {
      mcpServers: [
        {
          name: "gh",
          command: "/bin/gh-mcp",
          args: [],
          env: [
            { name: "GITHUB_TOKEN", value: "ghp_secret" },
            { name: "AWS_SECRET_ACCESS_KEY", value: "aws" },
            { name: "PATH", value: "/usr/bin" },
          ],
        },
        { type: "http", name: "web", url: "https://x", headers: [{ name: "X-Auth-Token", value: "hv" }] },
      ],
    };
    const out = redact(mcp);
    expect(out.mcpServers[0]!.env![0]!.value).toBe(REDACTED);
    expect(out.mcpServers[0]!.env![1]!.value).toBe(REDACTED);
    expect(out.mcpServers[0]!.env![2]!.value).toBe("/usr/bin");
    // The server's own name is not a pair (no `value`), so it stays.
    expect(out.mcpServers[0]!.name).toBe("gh");
    expect(out.mcpServers[1]!.headers![0]!.value).toBe(REDACTED);
  });

  test("Bearer / Basic credentials inside strings", () => {
    const out = redact({ text: "curl -H 'Authorization: Bearer abcdef123456' https://x", n: 1 });
    expect(out.text).toBe(`curl -H 'Authorization: Bearer ${REDACTED}' https://x`);
    expect(redact("Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig")).toBe(`Bearer ${REDACTED}`);
    // Ordinary prose about bearers is left alone.
    expect(redact("the bearer of bad news")).toBe("the bearer of bad news");
    expect(redact("Bearer tokens are sent in headers")).toBe("Bearer tokens are sent in headers");
  });

  test("booleans, null and empty strings under secret keys stay (no secret in them)", () => {
    const input = { secret: false, password: null, token: "" };
    expect(redact(input)).toBe(input);
  });

  test("key classification", () => {
    for (const k of [
      "apiKey",
      "api_key",
      "token",
      "accessToken",
      "refresh_token",
      "authorization",
      "secret",
      "password",
      "passwd",
      "credentials",
      "cookie",
      "set-cookie",
      "private_key",
      "githubToken",
    ]) {
      expect(isSecretKey(k)).toBe(true);
    }
    for (const k of [
      "inputTokens",
      "outputTokens",
      "totalTokenCount",
      "maxTokens",
      "tokenizer",
      "sessionId",
      "authMethods",
      "text",
      "name",
      "value",
    ]) {
      expect(isSecretKey(k)).toBe(false);
    }
  });

  test("non-plain values and deep nesting do not throw", () => {
    const deep: Record<string, unknown> = {};
    let cur = deep;
    for (let i = 0; i < 1000; i++) {
      const next: Record<string, unknown> = {};
      cur.child = next;
      cur = next;
    }
    cur.token = "t";
    expect(() => redact(deep)).not.toThrow();
    expect(JSON.stringify(redact(deep))).not.toContain('"t"');
    expect(redact(42)).toBe(42);
    expect(redact(undefined)).toBeUndefined();
  });
});

describe("redactLine", () => {
  test("JSON lines are redacted structurally, untouched lines returned as is", () => {
    const clean = '{"method":"session/event","params":{"seq":1,"payload":{"text":"token count: 5"}}}';
    expect(redactLine(clean)).toBe(clean);
    const dirty = JSON.stringify({ id: 1, method: "session/prompt", params: { _meta: { token: "abc" }, prompt: [] } });
    expect(JSON.parse(redactLine(dirty))).toEqual({ id: 1, method: "session/prompt", params: { _meta: { token: REDACTED }, prompt: [] } });
  });

  test("raw text: key=value, key: value, quoted pairs, bearer", () => {
    expect(redactLine("export OPENAI_API_KEY=sk-abc123")).toBe(`export OPENAI_API_KEY=${REDACTED}`);
    expect(redactLine("password: hunter2 next")).toBe(`password: ${REDACTED} next`);
    expect(redactLine('{"token":"abc","x":1')).toBe(`{"token":"${REDACTED}","x":1`);
    expect(redactLine("Authorization: Bearer abcdefgh")).toContain(REDACTED);
    expect(redactLine("Authorization: Bearer abcdefgh")).not.toContain("abcdefgh");
    expect(redactLine("used inputTokens: 123")).toBe("used inputTokens: 123");
    expect(redactLine("plain text line")).toBe("plain text line");
  });
});

describe("redactLine: shapes seen on a Node child's stderr", () => {
  test("single-quoted util.inspect pairs and bare well-known token shapes", () => {
    expect(redactLine("{ 'x-api-key': 'abc123def' }")).not.toContain("abc123def");
    expect(redactLine("{ authorization: 'Basic dXNlcjpwYXNz' }")).not.toContain("dXNlcjpwYXNz");
    expect(redactLine("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz rejected")).toBe(`key ${REDACTED} rejected`);
    expect(redactLine("token ghp_abcdefghijklmnopqrstuvwxyz0123456789")).not.toContain("ghp_abcdef");
    expect(redactLine("AKIAABCDEFGHIJKLMNOP in use")).toBe(`${REDACTED} in use`);
    // Ordinary text is left alone.
    for (const s of ["the task-runner finished", "risk-assessment-document-for-review-2024", "ask-me-anything"]) {
      expect(redactLine(s)).toBe(s);
    }
  });
});

describe("redact: credentials in URLs", () => {
  test("the user-info of a URL is hidden, the rest of the URL kept", () => {
    expect(redactLine("GET http://quota:S3cr3t-pw@127.0.0.1:8080/limit with the key of x")).toBe(
      `GET http://${REDACTED}@127.0.0.1:8080/limit with the key of x`,
    );
    expect(redactLine("clone https://ghtoken123@github.com/a/b.git and ftp://u@h")).toBe(
      `clone https://${REDACTED}@github.com/a/b.git and ftp://${REDACTED}@h`,
    );
    // An `@` in the path or query is not user-info.
    expect(redactLine("https://example.com/@user?to=a@b.c")).toBe("https://example.com/@user?to=a@b.c");
    expect(redactLine("mail a@b.c about git@github.com:x/y")).toBe("mail a@b.c about git@github.com:x/y");
    // In structured values too (an env dump, a config echo).
    expect(redact({ url: "https://u:p@host/x" })).toEqual({ url: `https://${REDACTED}@host/x` });
    expect(redactLine('{"url":"http://u:p@h/q"}')).toBe(`{"url":"http://${REDACTED}@h/q"}`);
  });

  test("linear on many `://` without user-info", () => {
    const line = "x://a ".repeat(20_000) + "y".repeat(64 * 1024);
    const t0 = performance.now();
    expect(redactLine(line)).toBe(line);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe("redactLine: linear time on what a child may print", () => {
  test("long runs of word characters, key words and separators take milliseconds (64 KB of letters took 12 s)", () => {
    const inputs = [
      "a".repeat(1 << 20),
      "token".repeat(200_000),
      "a=".repeat(500_000),
      `token=${"a=".repeat(500_000)}`,
      "sk-".repeat(300_000),
    ];
    for (const s of inputs) {
      const t0 = performance.now();
      redactLine(s);
      // Generous for a loaded machine; the quadratic version needs hours for 1 MB.
      expect(performance.now() - t0).toBeLessThan(1000);
    }
    expect(redactLine(`token=${"a=".repeat(10)}`)).toBe(`token=${REDACTED}`);
  });
});

describe("secrets the bridge holds", () => {
  test("a remembered key is hidden by value, in any text and under any name", async () => {
    const { rememberSecret, redact, redactLine, REDACTED } = await import("../../src/redact.ts");
    const key = "plain-words-key-without-shape-42";
    expect(redactLine(`ZCode said: ${key} is wrong`)).toContain(key);
    rememberSecret(key);
    expect(redactLine(`ZCode said: ${key} is wrong`)).toBe(`ZCode said: ${REDACTED} is wrong`);
    expect(redact({ note: `a ${key} b`, list: [key] })).toEqual({ note: `a ${REDACTED} b`, list: [REDACTED] });
    // Short values are never remembered: they would hide ordinary words.
    rememberSecret("abc");
    expect(redactLine("abc")).toBe("abc");
  });
});
