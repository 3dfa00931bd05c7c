// Reading the id of a message the bridge will not parse (too large, not
// JSON) from the start of its line (the line splitter keeps that start of an
// over-long line for this: test/unit/lines.test.ts).
import { describe, expect, test } from "bun:test";
import { answerableId, PEEK_CHARS, peekMessage } from "../../../src/acp/request-peek.ts";

describe("peekMessage / answerableId", () => {
  const id = (text: string, complete = false) => answerableId(peekMessage(text, complete));

  test("the id of a request, in the usual key order, cut anywhere after it", () => {
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id: 42,
      method: "session/prompt",
      params: { prompt: [{ type: "text", text: "x".repeat(1000) }] },
    });
    for (const cut of [40, 60, 200, line.length - 1]) expect(id(line.slice(0, cut))).toBe(42);
    expect(id('{"jsonrpc":"2.0","id":"req-7","method":"x","params":{')).toBe("req-7");
    expect(id('  \ufeff{ "id" : -3 , "method" : "x" , "params" : [')).toBe(-3);
  });

  test("keys and values with escapes, nesting and strings that look like structure", () => {
    expect(id('{"jsonrpc":"2.0","_meta":{"a":["}",{"b":"\\"id\\":9"}]},"id":5,"method":"m","params":{')).toBe(5);
    expect(id('{"m\\u0065thod":"x","\\u0069d":6,"params":')).toBe(6);
    expect(id('{"method":"x","id":"a\\"b","params":')).toBe('a"b');
  });

  test("a request whose method comes after the id, or after a value that is cut, is still a request", () => {
    expect(id('{"id":1,"method":"session/prompt","params":{"x":"yyy')).toBe(1);
    expect(id('{"jsonrpc":"2.0","method":"x","id":2,"params":{"x":"yyy')).toBe(2);
  });

  test("no answer for responses (their id is ours), for notifications, or when the id is out of reach", () => {
    expect(id('{"jsonrpc":"2.0","id":3,"result":{"x":"yyy')).toBeUndefined();
    expect(id('{"jsonrpc":"2.0","id":3,"method":"x","error":{')).toBeUndefined();
    expect(id('{"jsonrpc":"2.0","method":"session/cancel","params":{"x":"yyy')).toBeUndefined();
    // The id after the params, past what was read.
    expect(id('{"jsonrpc":"2.0","method":"x","params":{"text":"yyyyyyyy')).toBeUndefined();
    // Only the id is known: not known to be a request.
    expect(id('{"jsonrpc":"2.0","id":4,"params":{"text":"yyy')).toBeUndefined();
  });

  test("ids JSON-RPC does not allow are not echoed; a number at the cut may be longer", () => {
    for (const bad of [
      '{"id":null,"method":"x",',
      '{"id":{"a":1},"method":"x",',
      '{"id":[1],"method":"x",',
      '{"id":true,"method":"x",',
      '{"id":1e400,"method":"x",',
    ]) {
      expect(id(bad)).toBeUndefined();
    }
    expect(id('{"method":"x","id":12')).toBeUndefined();
    expect(id('{"method":"x","id":12', true)).toBe(12);
  });

  test("duplicate keys: the last one wins, as in JSON.parse", () => {
    expect(id('{"id":1,"method":"x","id":2,"params":')).toBe(2);
    expect(id('{"id":1,"method":"x","id":null,"params":')).toBeUndefined();
  });

  test("not an object, or junk: nothing", () => {
    for (const junk of ["", "[1,2]", "hello", '"id":1', "{id:1,method:'x'}", '{"id" 1}']) expect(id(junk, true)).toBeUndefined();
  });

  test("at most PEEK_CHARS are looked at", () => {
    const far = `{"jsonrpc":"2.0","method":"x","_meta":"${"z".repeat(PEEK_CHARS)}","id":1}`;
    expect(id(far, true)).toBeUndefined();
  });
});
