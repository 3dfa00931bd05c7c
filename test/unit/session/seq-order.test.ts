import { describe, expect, test } from "bun:test";
import { SeqOrder } from "../../../src/session/seq-order.ts";

const ev = (seq: number) => ({ seq });
const seqs = (xs: { seq: number }[]) => xs.map((x) => x.seq);

describe("SeqOrder", () => {
  test("in order: each event once", () => {
    const o = new SeqOrder(0);
    expect(seqs(o.accept(ev(1)))).toEqual([1]);
    expect(seqs(o.accept(ev(2)))).toEqual([2]);
    expect(seqs(o.accept(ev(2)))).toEqual([]);
    expect(seqs(o.accept(ev(1)))).toEqual([]);
    expect(o.hasGap).toBe(false);
  });

  test("out of order: held back until the hole is filled, then released in order", () => {
    const o = new SeqOrder(10);
    expect(seqs(o.accept(ev(13)))).toEqual([]);
    expect(seqs(o.accept(ev(12)))).toEqual([]);
    expect(o.hasGap).toBe(true);
    expect(seqs(o.accept(ev(13)))).toEqual([]); // duplicate while buffered
    expect(seqs(o.accept(ev(11)))).toEqual([11, 12, 13]);
    expect(o.hasGap).toBe(false);
    expect(o.last).toBe(13);
  });

  test("a hole that cannot be filled is skipped", () => {
    const o = new SeqOrder(0);
    o.accept(ev(1));
    o.accept(ev(4));
    o.accept(ev(5));
    expect(seqs(o.skipGap())).toEqual([4, 5]);
    expect(o.last).toBe(5);
    expect(seqs(o.accept(ev(2)))).toEqual([]); // too late: already skipped
  });

  test("the buffer is bounded", () => {
    const o = new SeqOrder(0, 3);
    o.accept(ev(5));
    o.accept(ev(6));
    o.accept(ev(7));
    expect(seqs(o.accept(ev(8)))).toEqual([5, 6, 7, 8]);
  });

  test("reset keeps buffered events beyond the new baseline", () => {
    const o = new SeqOrder(0);
    o.accept(ev(41));
    o.accept(ev(43));
    expect(seqs(o.reset(41))).toEqual([]);
    expect(o.hasGap).toBe(true);
    expect(seqs(o.reset(42))).toEqual([43]);
  });

  test("clear forgets everything: another child numbers its events from 1", () => {
    const o = new SeqOrder(0);
    o.accept(ev(1));
    o.accept(ev(2));
    o.accept(ev(5));
    o.clear();
    expect(o.last).toBe(0);
    expect(o.hasGap).toBe(false);
    expect(seqs(o.accept(ev(1)))).toEqual([1]);
    expect(seqs(o.accept(ev(3)))).toEqual([]);
  });
});
