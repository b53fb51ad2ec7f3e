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

  it('come back in the same form whatever was cut or counted before (parts stay parts)', () => {
    // A cut at 20 tokens first left a record of the text's end too short for the tail at 15,
    // and the cut at 15 came back as decoded text, which its callers read with other spans.
    const s = 'Intro.\n\n<!--\nlorem ipsum dolor sit amet, consectetur adipiscing elit\n-->\n\n```\ncode -->\n```\n\nafter text';
    tokensInternals.clearCache();
    expect(midCutParts(s, 15, ' … ', true)(15)).toEqual({ head: 24, mid: ' … ', tail: 78 });
    tokensInternals.clearCache();
    midCutParts(s, 20, ' … ', true)(20);
    expect(midCutParts(s, 15, ' … ', true)(15)).toEqual({ head: 24, mid: ' … ', tail: 78 });
    fc.assert(
      fc.property(text(600), fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 80 }), fc.integer({ min: 0, max: 2 }), (x, k1, k2, how) => {
        tokensInternals.clearCache();
        const fresh = midCutParts(x, k2, ' … ', true)(k2);
        tokensInternals.clearCache();
        if (how === 0) midCutParts(x, k1, ' … ', true)(k1);
        if (how === 1) fitsToks(x, k1);
        if (how === 2) midCuts(x, k1 + 5)(k1);
        expect(midCutParts(x, k2, ' … ', true)(k2)).toEqual(fresh);
      }),
      fcParams(300),
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
