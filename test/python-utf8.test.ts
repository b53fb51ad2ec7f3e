// UTF-8 lengths: utf8Length against TextEncoder (which encodes a lone surrogate as U+FFFD, the
// three bytes Python's 'replace' gives), and utf8Within against a count stopped at its limit.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from './support.js';
import { utf8Length, utf8Within } from '../src/python/utf8.js';

const encoder = new TextEncoder();
const bytesOf = (s: string): number => encoder.encode(s).length;

/** The count unit by unit, stopped once it passes `limit`. */
function within(s: string, limit: number): number {
  let bytes = 0;
  for (const ch of s) {
    if (bytes > limit) break;
    bytes += bytesOf(ch);
  }
  return Math.min(bytes, limit + 1);
}

describe('utf8Length', () => {
  it('counts bytes as Python encodes them', () => {
    expect(utf8Length('')).toBe(0);
    expect(utf8Length('abc')).toBe(3);
    expect(utf8Length('aé中😀\ud800')).toBe(1 + 2 + 3 + 4 + 3);
    expect(utf8Length('\udc00\ud800')).toBe(6);
    expect(utf8Length(`${'x'.repeat(100)}é${'y'.repeat(40)}\ud83d`)).toBe(100 + 2 + 40 + 3);
    expect(utf8Length(`${'a'.repeat(31)}😀${'b'.repeat(33)}中${'c'.repeat(32)}`)).toBe(31 + 4 + 33 + 3 + 32);
  });
  it('agrees with TextEncoder on generated text (long ASCII runs, pairs and lone surrogates)', () => {
    const unit = fc.constantFrom('a', 'b', ' ', '\n', 'é', 'ß', '中', '😀', '\ud800', '\udc00', '\u07ff', '\u0800', '\uffff', 'a'.repeat(31), 'a'.repeat(40));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), (parts) => {
        const s = parts.join('');
        return utf8Length(s) === bytesOf(s);
      }),
      fcParams(5000),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => utf8Length(s) === bytesOf(s)),
      fcParams(3000),
    );
  });
});

describe('utf8Within', () => {
  it('stops at the limit', () => {
    expect(utf8Within('aé中😀\ud800', 100)).toBe(13);
    expect(utf8Within('中中中中', 5)).toBe(6);
    expect(utf8Within('abcdef', 3)).toBe(4);
    expect(utf8Within('abc', 3)).toBe(3);
    expect(utf8Within('', 0)).toBe(0);
    expect(utf8Within('a', -1)).toBe(0);
    expect(utf8Within('abc', 2.5)).toBe(3);
    expect(utf8Within('abcd', 2.5)).toBe(3);
    expect(utf8Within('é中', 2.5)).toBe(3.5);
  });
  it('agrees with a count stopped at its limit', () => {
    const unit = fc.constantFrom('a', ' ', 'é', '中', '😀', '\ud800', 'a'.repeat(33));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), fc.integer({ min: -2, max: 120 }), fc.boolean(), (parts, k, half) => {
        const s = parts.join('');
        const limit = half ? k + 0.5 : k;
        return utf8Within(s, limit) === within(s, limit);
      }),
      fcParams(5000),
    );
  });
});
