/**
 * Middle cuts made from offsets into the text (`midCutParts`, which `truncToksMid` and
 * `midCuts` use) against the definition: the first and last token ids of the whole encoding
 * and the mark's ids, decoded as one byte string.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { midCutParts, cutText } from '../src/tokens/budget.js';
import { fitsToks, lenToks, midCuts, truncToksMid } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { definitionalCut, fcParams } from './support.js';

/** `truncToksMid` by its definition, from the whole encoding. */
const plainCut = definitionalCut;

const atoms = [
  'a',
  'bc',
  ' ',
  '  ',
  '\n',
  'Hello',
  ' world',
  '12345',
  '.',
  '中',
  '文字',
  'д',
  'é',
  'e\u0301',
  '😀',
  '👩‍💻',
  '🇫🇷',
  '\ud800',
  '\udc00',
  '\t',
  "'s",
  '→',
  'ﬁ',
];
const text = (max: number) => fc.array(fc.constantFrom(...atoms), { minLength: 0, maxLength: max }).map((xs) => xs.join(''));
const marks = [' … ', '…', ' ✂ ', '', '\ud83d', 'x'];

describe('middle cuts from offsets', () => {
  it('equal the decoded ids on mixed texts, budgets and marks', () => {
    fc.assert(
      fc.property(text(400), fc.integer({ min: -2, max: 120 }), fc.constantFrom(...marks), fc.integer({ min: 0, max: 3 }), (s, k, mark, warm) => {
        tokensInternals.clearCache();
        // Leave the shared front in different states before the cut.
        if (warm === 1) fitsToks(s, k);
        if (warm === 2) lenToks(s);
        if (warm === 3) fitsToks(s, Math.max(0, Math.floor(k / 3)));
        const want = plainCut(s, k, mark);
        expect(truncToksMid(s, k, mark)).toBe(want);
        if (k >= 0) {
          const cuts = midCuts(s, k + 7, mark);
          expect(cuts(k)).toBe(want);
          expect(cutText(s, midCutParts(s, k + 7, mark, false)(k))).toBe(want);
          expect(cutText(s, midCutParts(s, k, mark, true)(k))).toBe(want);
        }
      }),
      fcParams(400),
    );
  });

  it('equal the decoded ids on long texts (tails from a resynchronisation point)', () => {
    fc.assert(
      fc.property(text(3000), fc.integer({ min: 1, max: 400 }), (s, k) => {
        tokensInternals.clearCache();
        expect(truncToksMid(s, k)).toBe(plainCut(s, k));
        const cuts = midCuts(s, k);
        for (const j of [k, k - 1, Math.floor(k / 2), 1]) expect(cuts(j)).toBe(plainCut(s, j));
      }),
      fcParams(60),
    );
  });

  it('give parts of the text where no character is split, the decoded text elsewhere', () => {
    const s = 'abc '.repeat(100);
    const c = midCutParts(s, 20, ' … ', true)(20);
    expect(typeof c).toBe('object');
    expect(cutText(s, c)).toBe(plainCut(s, 20));
    // 😀 is 4 bytes and two tokens: a cut inside it decodes to U+FFFD.
    const e = '😀'.repeat(200);
    const d = midCutParts(e, 10, ' … ', true)(10);
    expect(cutText(e, d)).toBe(plainCut(e, 10));
    expect(truncToksMid('\ud800'.repeat(300), 9)).toBe(plainCut('\ud800'.repeat(300), 9));
  });
});
