/**
 * Splice counts (src/tokens/splice.ts) against counting the spliced text itself: the tokens
 * of `pre + s.slice(0, head) + mid + s.slice(tail) + suf` from the recorded pieces of `s`
 * must be exactly `lenToks` of that text, whatever was budgeted before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encToks, fitsToks, lenToks, midCuts, truncToksMid } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { asSplice, fitsToksLike, lenToksLike, midSplit, spliceFits, spliceToks } from '../src/tokens/splice.js';
import { definitionalCut, fcParams, PIECE_UNITS } from './support.js';

const UNITS = PIECE_UNITS;

const text = (max: number): fc.Arbitrary<string> => fc.array(fc.constantFrom(...UNITS), { maxLength: max }).map((a) => a.join(''));

describe('spliceToks', () => {
  it('counts a splice exactly as lenToks counts the spliced text', () => {
    fc.assert(
      fc.property(
        text(400),
        text(6),
        text(4),
        text(4),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(0, 1, 2),
        fc.integer({ min: 5, max: 80 }),
        (s, mid, pre, suf, a, b, warm, k) => {
          tokensInternals.clearCache();
          // Fronts and records of s in different states: none, a fit check, a middle cut.
          if (warm === 1) fitsToks(s, k);
          if (warm === 2) truncToksMid(s, k);
          const x = s.length ? a % (s.length + 1) : 0;
          const y = s.length ? b % (s.length + 1) : 0;
          const head = Math.min(x, y);
          const tail = Math.max(x, y);
          const whole = pre + s.slice(0, head) + mid + s.slice(tail) + suf;
          const want = lenToks(whole);
          expect(spliceToks(s, head, mid, tail, Number.MAX_SAFE_INTEGER, pre, suf)).toBe(want);
          // Twice: the second call reuses what the first recorded.
          expect(spliceToks(s, head, mid, tail, Number.MAX_SAFE_INTEGER, pre, suf)).toBe(want);
          for (const budget of [0, k, want - 1, want, want + 1]) {
            expect(spliceFits(s, head, mid, tail, budget, pre, suf)).toBe(want <= budget);
            const over = spliceToks(s, head, mid, tail, budget, pre, suf);
            if (want <= budget) expect(over).toBe(want);
            else expect(over).toBeGreaterThan(budget);
          }
        },
      ),
      fcParams(3000),
    );
  });

  it('counts the cuts of long texts from their seams', () => {
    const words = "alpha beta, gamma (delta) 42 epsilon\n\tzeta's η θ 中文字 😀 1234567 ".split(/(?<= )/);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { minLength: 50, maxLength: 400 }), fc.integer({ min: 8, max: 120 }), (ws, k) => {
        const s = ws.join('');
        tokensInternals.clearCache();
        fitsToks(s, k);
        const cut = truncToksMid(s, k);
        const { head, mid, tail } = asSplice(s, cut);
        expect(s.slice(0, head) + mid + s.slice(tail)).toBe(cut);
        expect(head).toBeLessThanOrEqual(tail);
        expect(lenToksLike(s, cut)).toBe(lenToks(cut));
        expect(lenToksLike(s, cut, Number.MAX_SAFE_INTEGER, '» ', ' »')).toBe(lenToks(`» ${cut} »`));
        expect(lenToksLike(s, s, Number.MAX_SAFE_INTEGER, '```python\n', '\n```')).toBe(lenToks(`\`\`\`python\n${s}\n\`\`\``));
        expect(fitsToksLike(s, cut, k)).toBe(lenToks(cut) <= k);
      }),
      fcParams(300),
    );
  });

  it('keeps exact counts at the corners of the seams', () => {
    const s = `${'word '.repeat(40)}   \n\n   12345678 don't 中文 ${'x'.repeat(30)}`;
    for (let head = 0; head <= s.length; head += 7) {
      for (const tail of [head, Math.min(s.length, head + 13), s.length]) {
        for (const [pre, mid, suf] of [
          ['', ' … ', ''],
          ['§ ', '\n…', ' §'],
          ['```python\n', ' … ', '\n```'],
          [' ', "'s", '5'],
        ] as const) {
          tokensInternals.clearCache();
          fitsToks(s, 30);
          expect(spliceToks(s, head, mid, tail, Number.MAX_SAFE_INTEGER, pre, suf), `${head} ${tail} ${JSON.stringify([pre, mid, suf])}`).toBe(
            lenToks(pre + s.slice(0, head) + mid + s.slice(tail) + suf),
          );
        }
      }
    }
  });

  it('keeps exact counts when the end seam of a fence was first counted over its budget', () => {
    // As fenced code steps its cut down: each cut counted alone, then with the fence, at a
    // budget it exceeds; then exactly. The end seam's count is kept across the steps.
    const s = `${'value = compute(x, y)\n'.repeat(30)}return total\n`;
    tokensInternals.clearCache();
    fitsToks(s, 40);
    for (let k = 0; k < 6; k++) {
      const head = 60 - 4 * k;
      const tail = s.length - 60 + 4 * k;
      const alone = lenToks(s.slice(0, head) + ' … ' + s.slice(tail));
      const fenced = lenToks(`\`\`\`python\n${s.slice(0, head)} … ${s.slice(tail)}\n\`\`\``);
      expect(spliceToks(s, head, ' … ', tail, Number.MAX_SAFE_INTEGER)).toBe(alone);
      expect(spliceToks(s, head, ' … ', tail, fenced - 3, '```python\n', '\n```')).toBeGreaterThan(fenced - 3);
      expect(spliceToks(s, head, ' … ', tail, Number.MAX_SAFE_INTEGER, '```python\n', '\n```')).toBe(fenced);
    }
  });

  it('splits a middle text where every scan has a piece boundary', () => {
    // After ASCII punctuation (not an apostrophe) or an ellipsis, before a space.
    expect(midSplit(' … ')).toBe(2);
    expect(midSplit('x. y')).toBe(2);
    expect(midSplit('\n… ')).toBe(2);
    expect(midSplit('ab, cd: ')).toBe(3);
    expect(midSplit(') ')).toBe(1);
    // None: no space after the mark, a letter, digit or apostrophe before the space, a
    // space first, other punctuation (¶, a mark), or nothing at all.
    expect(midSplit(' …')).toBe(-1);
    expect(midSplit('a b')).toBe(-1);
    expect(midSplit('7 8')).toBe(-1);
    expect(midSplit("' x")).toBe(-1);
    expect(midSplit(' x')).toBe(-1);
    expect(midSplit(' ¶ ')).toBe(-1);
    expect(midSplit('e\u0301 ')).toBe(-1);
    expect(midSplit('…\n')).toBe(-1);
    expect(midSplit('')).toBe(-1);
  });

  it('counts cuts stepped down one end at a time exactly (the two halves of the middle seam kept apart)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...UNITS), { minLength: 40, maxLength: 300 }).map((a) => a.join('')),
        fc.constantFrom(' … ', 'x. y', ', ', '\n… '),
        fc.constantFrom('', '```python\n', '» '),
        fc.constantFrom('', '\n```', ' »'),
        fc.nat(),
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
        (s, mid, pre, suf, a, b, steps) => {
          tokensInternals.clearCache();
          fitsToks(s, 20);
          let head = a % (s.length + 1);
          let tail = head + (b % (s.length - head + 1));
          for (const moveHead of steps) {
            const want = lenToks(pre + s.slice(0, head) + mid + s.slice(tail) + suf);
            expect(spliceToks(s, head, mid, tail, Number.MAX_SAFE_INTEGER)).toBe(lenToks(s.slice(0, head) + mid + s.slice(tail)));
            expect(spliceToks(s, head, mid, tail, want - 1, pre, suf)).toBeGreaterThan(want - 1);
            expect(spliceToks(s, head, mid, tail, Number.MAX_SAFE_INTEGER, pre, suf)).toBe(want);
            // One end moves outwards by a few units (less text kept), the other stays.
            if (moveHead) head = Math.max(0, head - 3);
            else tail = Math.min(s.length, tail + 5);
          }
        },
      ),
      fcParams(300),
    );
  });

  it('rejects spans out of order', () => {
    expect(() => spliceToks('abc', 2, '', 1, 10)).toThrow(RangeError);
  });
});

describe('budgets sharing one encoding', () => {
  // The reference's middle cut from the whole encoding, for comparison.
  const refCut = definitionalCut;

  const words = ['lorem ', 'ipsum, ', 'dolor\n', '  sit ', 'amet42 ', "can't ", '中文', '字符 ', '😀 ', '\t', '1234567', '-->', 'é'];
  const op = fc.record({ kind: fc.constantFrom('fits', 'cut', 'mid', 'len', 'like'), k: fc.integer({ min: 0, max: 160 }) });

  it('fit checks, counts and cuts in any order agree with the whole encoding', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 300 }), fc.array(op, { minLength: 1, maxLength: 8 }), (ws, ops) => {
        const s = ws.join('');
        const total = encToks(s).length;
        tokensInternals.clearCache();
        for (const { kind, k } of ops) {
          if (kind === 'fits') expect(fitsToks(s, k)).toBe(total <= k);
          else if (kind === 'cut') expect(truncToksMid(s, k)).toBe(refCut(s, k));
          else if (kind === 'mid') {
            const cuts = midCuts(s, k);
            for (const j of [k, k - 1, k - 5]) if (j >= 0) expect(cuts(j)).toBe(refCut(s, j));
          } else if (kind === 'len') expect(lenToks(s)).toBe(total);
          else {
            const cut = refCut(s, k);
            expect(lenToksLike(s, cut, Number.MAX_SAFE_INTEGER, '» ', ' »')).toBe(lenToks(`» ${cut} »`));
            const over = lenToksLike(s, s, k, '```python\n', '\n```');
            const want = lenToks(`\`\`\`python\n${s}\n\`\`\``);
            if (want <= k) expect(over).toBe(want);
            else expect(over).toBeGreaterThan(k);
          }
        }
      }),
      fcParams(400),
    );
  });
});
