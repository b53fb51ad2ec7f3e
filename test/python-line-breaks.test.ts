/**
 * `pySplitlines` cuts at `\n` by native search when a text holds no other line break
 * (`hasOtherLineBreak`, src/python/strings.ts). Both against a direct reading of Python's rule:
 * one pass over the text with the break characters of `str.splitlines`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pySplitlines, pyStrip } from '../src/python/index.js';
import { hasOtherLineBreak, pyNonBlankLines } from '../src/python/strings.js';
import { fcParams } from './support.js';

/** Python's `str.splitlines(keepends)`, one character at a time (the oracle). */
function splitlinesByChar(s: string, keepends: boolean): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    const brk = c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || (c >= 0x1c && c <= 0x1e) || c === 0x85 || c === 0x2028 || c === 0x2029;
    if (!brk) {
      i++;
      continue;
    }
    const len = c === 0x0d && s.charCodeAt(i + 1) === 0x0a ? 2 : 1;
    out.push(s.slice(start, keepends ? i + len : i));
    i += len;
    start = i;
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}

const CHARS = ['a', ' ', '\n', '\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\x1f', '\x85', '\u2028', '\u2029', '\u2027', '\t', 'é', '😀', '\ud800'];
const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 30 }).map((a) => a.join(''));
/** Mostly texts whose only break is `\n`, the case the native search takes. */
const plainText = fc.array(fc.constantFrom('a', ' ', '\n', 'é', '😀', '\t', '\x1f', '\u2027'), { maxLength: 30 }).map((a) => a.join(''));

describe('line breaks other than \\n', () => {
  it('are found exactly when the text holds one', () => {
    fc.assert(
      fc.property(fc.oneof(text, plainText), (s) => {
        expect(hasOtherLineBreak(s)).toBe(/[\r\v\f\x1c-\x1e\x85\u2028\u2029]/.test(s));
      }),
      fcParams(500),
    );
  });

  it('pySplitlines cuts as Python does, with and without other breaks', () => {
    fc.assert(
      fc.property(fc.oneof(text, plainText), fc.boolean(), (s, keep) => {
        expect(pySplitlines(s, keep)).toEqual(splitlinesByChar(s, keep));
      }),
      fcParams(500),
    );
    for (const s of ['', '\n', '\n\n', 'a', 'a\n', '\na', 'a\nb\n', 'a\r\nb', 'a\rb', 'x\u2028', 'a\n\nb']) {
      expect(pySplitlines(s)).toEqual(splitlinesByChar(s, false));
      expect(pySplitlines(s, true)).toEqual(splitlinesByChar(s, true));
    }
  });

  it('pyNonBlankLines gives the stripped non-blank lines, as Python does', () => {
    fc.assert(
      fc.property(fc.oneof(text, plainText), (s) => {
        expect(pyNonBlankLines(s)).toEqual(
          splitlinesByChar(s, false)
            .map((l) => pyStrip(l))
            .filter((l) => l !== ''),
        );
      }),
      fcParams(500),
    );
    // Only `\n` (the native search), then other breaks, with non-ASCII whitespace at the ends.
    expect(pyNonBlankLines(' a \n\n\t\n\u3000b\u00a0\n c😀 ')).toEqual(['a', 'b', 'c😀']);
    expect(pyNonBlankLines('a\r\n \u2028b\x85\x1fc\r')).toEqual(['a', 'b', 'c']);
    expect(pyNonBlankLines('\u200bx\ufeff\n \n')).toEqual(['\u200bx\ufeff']);
    expect(pyNonBlankLines('')).toEqual([]);
  });
});
