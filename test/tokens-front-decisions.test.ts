/**
 * Budget decisions that encode less: short ASCII pieces looked up from their characters, a
 * whole text with a prefix or suffix counted from its front up to the record of its end, checks
 * decided from the front alone (`fitsToksFront`), clean cuts that hand back their count, and
 * evidence cuts that reuse what they know of a line's count. Every count is exact.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evidenceCut } from '../src/dsl/evidence-cut.js';
import { cleanTruncMid, cleanTruncMidCounted } from '../src/dsl/graphemes.js';
import { fitsToksFront } from '../src/tokens/budget.js';
import { encToks, fitsToks, lenToks, truncToksMid } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { fitLike, spliceCount, spliceToks } from '../src/tokens/splice.js';
import { fcParams, PIECE_UNITS } from './support.js';

const text = (min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...PIECE_UNITS), { minLength: min, maxLength: max }).map((a) => a.join(''));

/** 120 sentences: 1200 tokens (o200k_base, as tiktoken counts them). */
const PARA = Array.from({ length: 120 }, (_, i) => `Sentence ${i} says something about item ${i * 7}.`).join(' ');

describe('short pieces', () => {
  it('give the ids of tiktoken for ASCII pieces of up to four characters and the others', () => {
    const ids: Array<[string, number[]]> = [
      ['the', [3086]],
      [' the', [290]],
      ['The', [976]],
      [' cat', [9059]],
      ['ing', [289]],
      ['1234', [7633, 19]],
      ['.\n', [558]],
      ['!?', [78922]],
      ['ab', [378]],
      [' is', [382]],
      ['HTTP', [17893]],
      ['é', [377]],
      ['e\u0301', [68, 13430]],
      ['中文', [10667]],
      ['😀', [84083]],
      ['aé', [64, 377]],
      ['\ud800', [3251]],
    ];
    for (const [s, want] of ids) {
      tokensInternals.clearCache();
      expect(encToks(s), s).toEqual(want);
      expect(lenToks(s), s).toBe(want.length);
    }
  });
});

describe('a whole text with a prefix or suffix', () => {
  it('is counted exactly after the front reached half the budget and the end was recorded', () => {
    for (const warm of ['none', 'fits', 'cut'] as const) {
      tokensInternals.clearCache();
      if (warm === 'fits') fitsToks(PARA, 600);
      if (warm === 'cut') truncToksMid(PARA, 1100);
      const n = PARA.length;
      expect(spliceToks(PARA, n, '', n, 1202, '§ ', ' §')).toBe(1202);
      expect(spliceToks(PARA, n, '', n, 1210, '```python\n', '\n```')).toBe(1204);
      expect(spliceToks(PARA, n, '', n, 1200, '', '')).toBe(1200);
      expect(spliceToks(PARA, n, '', n, 1201, '§ ', ' §')).toBeGreaterThan(1201);
      expect(spliceCount(PARA, n, '', n, 1203, '```python\n', '\n```')).toBe(-2);
      expect(fitLike(PARA, PARA, 1202, '§ ', ' §')).toBe(`§ ${PARA} §`);
      expect(fitLike(PARA, PARA, 1201, '§ ', ' §')).toBeNull();
    }
  });

  it('counts as lenToks counts the joined text, whatever was budgeted before', () => {
    fc.assert(
      fc.property(
        text(60, 500),
        fc.constantFrom('', '§ ', '» ', '§\n', '```python\n'),
        fc.constantFrom('', ' §', '\n»', '\n```'),
        fc.nat(40),
        (s, pre, suf, d) => {
          tokensInternals.clearCache();
          const want = lenToks(pre + s + suf);
          tokensInternals.clearCache();
          const limit = Math.max(0, want - 20 + d);
          fitsToks(s, Math.max(0, limit - 30));
          const got = spliceToks(s, s.length, '', s.length, limit, pre, suf);
          if (want <= limit) expect(got).toBe(want);
          else expect(got).toBeGreaterThan(limit);
          expect(spliceCount(s, s.length, '', s.length, limit, pre, suf) === -2).toBe(want > limit);
        },
      ),
      fcParams(1500),
    );
  });
});

describe('fitsToksFront', () => {
  it('decides as fitsToks, and leaves what it learnt for the next check of the text', () => {
    tokensInternals.clearCache();
    expect(fitsToksFront(PARA, 1199)).toBe(false);
    expect(fitsToks(PARA, 1199)).toBe(false);
    expect(fitsToksFront(PARA, 1200)).toBe(true);
    tokensInternals.clearCache();
    expect(fitsToksFront(PARA, 35)).toBe(false);
    expect(fitsToks(PARA, 35)).toBe(false);
    expect(fitsToks(PARA, 36)).toBe(false);
    expect(fitsToksFront('a'.repeat(100), 12)).toBe(false);
    expect(fitsToksFront('a'.repeat(100), 13)).toBe(true);
    expect(fitsToksFront('', 0)).toBe(true);
    expect(fitsToksFront('x', -1)).toBe(false);
    expect(() => fitsToksFront('x', 1.5)).toThrow(/maxToks must be an integer/);
  });

  it('agrees with fitsToks on mixed texts and budgets', () => {
    fc.assert(
      fc.property(text(0, 300), fc.array(fc.nat(200), { minLength: 1, maxLength: 6 }), fc.boolean(), (s, budgets, front) => {
        tokensInternals.clearCache();
        const n = lenToks(s);
        tokensInternals.clearCache();
        for (const k of budgets) expect(front ? fitsToksFront(s, k) : fitsToks(s, k)).toBe(n <= k);
      }),
      fcParams(1500),
    );
  });
});

const LOG = [
  'Build started at 10:00',
  ...Array.from(
    { length: 8 },
    (_, i) => `compiling module number ${i} with a rather long list of flags and options that goes on and on: -O2 -g -Wall -Wextra -pedantic -fPIC ${i}`,
  ),
  'see /srv/build/log.txt',
  'Process exited with code 1',
].join('\n');

describe('clean cuts with their count', () => {
  it('give the text of cleanTruncMid and its tokens', () => {
    const line = LOG.split('\n')[4]!;
    tokensInternals.clearCache();
    expect(cleanTruncMidCounted(line, 12)).toEqual({ text: 'compiling module number … -fPIC 3', tokens: 10 });
    expect(cleanTruncMidCounted(line, 20)).toEqual({ text: 'compiling module number 3 with a rather … -pedantic -fPIC 3', tokens: 18 });
    expect(cleanTruncMidCounted(line, 0)).toEqual({ text: '', tokens: 0 });
    expect(cleanTruncMidCounted('short', 5)).toEqual({ text: 'short', tokens: 1 });
    expect(cleanTruncMidCounted(line, 2)).toEqual({ text: ' … ', tokens: 2 });
  });

  it('agree with cleanTruncMid and lenToks on mixed texts', () => {
    fc.assert(
      fc.property(text(0, 200), fc.nat(80), (s, k) => {
        tokensInternals.clearCache();
        const c = cleanTruncMidCounted(s, k);
        tokensInternals.clearCache();
        expect(c.text).toBe(cleanTruncMid(s, k));
        expect(c.tokens).toBe(lenToks(c.text));
      }),
      fcParams(1000),
    );
  });
});

describe('evidence cuts at falling budgets', () => {
  it('cut a line whose exact count, known from a larger budget, is over its share', () => {
    const opts = { cut: cleanTruncMid, countedCut: cleanTruncMidCounted };
    expect(evidenceCut(LOG, 200, opts)).toBe(
      '> Build started at 10:00 … compiling module number 4 with a rather long list of flags and options that goes on and on: -O2 -g -Wall -Wextra -pedantic -fPIC 4 ¶ compiling module number 5 with a rather long list of flags and options that goes on and on: -O2 -g -Wall -Wextra -pedantic -fPIC 5 ¶ compiling module number 6 with a rather long list of flags and options that goes on and on: -O2 -g -Wall -Wextra -pedantic -fPIC 6 ¶ compiling module number 7 with a rather long list of flags and options that goes on and on: -O2 -g -Wall -Wextra -pedantic -fPIC 7 ¶ see /srv/build/log.txt ¶ Process exited with code 1',
    );
    expect(evidenceCut(LOG, 80, opts)).toBe(
      '> Build started at 10:00 … compiling module number 6 with a rather … -pedantic -fPIC 6 ¶ compiling module number 7 with a rather … -pedantic -fPIC 7 ¶ see /srv/build/log.txt ¶ Process exited with code 1',
    );
    // At a quarter of 60 tokens or less, a module line's cut keeps `-fPIC 7` (6 characters) after
    // its mark: a fragment, so the line is left out (whole, it is over twice its share).
    expect(evidenceCut(LOG, 40, opts)).toBe('> Build started at 10:00 … see /srv/build/log.txt ¶ Process exited with code 1');
    expect(evidenceCut(LOG, 35, opts)).toBe('> Build started at 10:00 … see /srv/build/log.txt ¶ Process exited with code 1');
    expect(evidenceCut(LOG, 60, { cut: cleanTruncMid })).toBe('> Build started at 10:00 … see /srv/build/log.txt ¶ Process exited with code 1');
  });
});
