// isBase64 accepts exactly what ZCode's topicWireBase64Schema regex accepts
// (wire-binary.ts); its speed is the load bench's business (scripts/bench/load.ts).
import { describe, expect, test } from "bun:test";
import { isBase64 } from "../../../../src/zcode/v4/wire-frames.ts";

const ZCODE_REGEX = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u;
const ALPHABET = "ABCxyz019+/=-_ \n";

describe("isBase64", () => {
  test("agrees with ZCode's regex on 20,000 random short strings and the edge cases", () => {
    const cases = ["", "QQ==", "QUI=", "QUJD", "Q===", "=QQ=", "QQ=A", "QUJDQQ==", "QUJD\n", "QQ", "QUJ", "Q-_=", "QU=="];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 20_000; i++) {
      let s = "";
      const len = next() % 13;
      for (let j = 0; j < len; j++) s += ALPHABET[next() % ALPHABET.length];
      cases.push(s);
    }
    for (const s of cases) expect({ s, ok: isBase64(s) }).toEqual({ s, ok: ZCODE_REGEX.test(s) });
  });

  test("a fragment of 4 MiB: its last character decides", () => {
    const s = Buffer.alloc(3 * 1024 * 1024, 7).toString("base64");
    expect(isBase64(s)).toBe(true);
    expect(isBase64(`${s.slice(0, -1)}!`)).toBe(false);
  });
});
