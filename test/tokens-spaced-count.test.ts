/**
 * Counts made from the counts of parts instead of encoding the joined text again: a text with a
 * space in front (`spacedToks`), the text an evidence cut assembles from its kept pieces
 * (`assembledToks`); and the piece caches (`bpe.ts`), which must give the ids of the vocabulary
 * whatever was encoded before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assemble, assembledToks, type Unit } from '../src/dsl/evidence-count.js';
import { decToks, encToks, lenToks } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { endsInWs, spacedToks } from '../src/tokens/splice.js';
import { fcParams, PIECE_UNITS } from './support.js';

const UNITS = PIECE_UNITS;

const text = (max: number): fc.Arbitrary<string> => fc.array(fc.constantFrom(...UNITS), { maxLength: max }).map((a) => a.join(''));

describe('spacedToks', () => {
  it("counts ' ' + x from the count of x exactly", () => {
    fc.assert(
      fc.property(text(40), (x) => {
        expect(spacedToks(x, lenToks(x))).toBe(lenToks(` ${x}`));
      }),
      fcParams(2000),
    );
  });

  it('tells white space at the end as the pre-tokeniser does', () => {
    expect(endsInWs('')).toBe(false);
    expect(endsInWs('a ')).toBe(true);
    expect(endsInWs('a\u3000')).toBe(true);
    expect(endsInWs('a\u0085')).toBe(true);
    expect(endsInWs('a\ufeff')).toBe(false); // JS \s, not White_Space
    expect(endsInWs('a.')).toBe(false);
  });
});

describe('assembledToks', () => {
  const unit = fc.record({ gap: fc.boolean(), whole: fc.boolean(), text: text(12) });
  const prefix = fc.constantFrom('> ', '> [image/png 3 KB] ¶ ', '', '>', ' ', '>  ', '> a\u00a0 ');

  it('is the count of the assembled text, or -1', () => {
    fc.assert(
      fc.property(prefix, fc.array(unit, { minLength: 1, maxLength: 8 }), fc.boolean(), (pre, us, more) => {
        let line = 0;
        const kept: Unit[] = us.map((u) => {
          line += u.gap ? 2 : 1;
          return { line, start: 0, whole: u.whole, text: u.text, tokens: lenToks(u.text) };
        });
        const lines = Array.from({ length: line + (more ? 2 : 1) }, () => 'x');
        const n = assembledToks(pre, lines, kept);
        if (n >= 0) expect(n).toBe(lenToks(assemble(pre, lines, kept)));
      }),
      fcParams(1500),
    );
  });

  it('counts the usual evidence cut without encoding it whole', () => {
    const kept: Unit[] = [
      { line: 0, start: 0, whole: true, text: 'Traceback (most recent call last):', tokens: lenToks('Traceback (most recent call last):') },
      { line: 5, start: 0, whole: true, text: 'File "/srv/app/mod.py", line 12', tokens: lenToks('File "/srv/app/mod.py", line 12') },
      { line: 6, start: 0, whole: true, text: "ValueError: invalid literal 'abc'", tokens: lenToks("ValueError: invalid literal 'abc'") },
    ];
    const lines = Array.from({ length: 7 }, () => 'x');
    const out = assemble('> ', lines, kept);
    expect(out).toBe('> Traceback (most recent call last): … File "/srv/app/mod.py", line 12 ¶ ValueError: invalid literal \'abc\'');
    expect(assembledToks('> ', lines, kept)).toBe(lenToks(out));
    // A piece ending in white space (a cut to its mark) is not counted from its parts.
    expect(assembledToks('> ', lines, [{ ...kept[0]!, text: ' … ', tokens: lenToks(' … ') }])).toBe(-1);
  });
});

describe('piece caches', () => {
  it('give the vocabulary ids for pieces that share cache slots, in any order', () => {
    // Many distinct short pieces (words, punctuation runs), so slots are reused; each text is
    // encoded with the pieces of the others still cached, and again with none, and decodes
    // back to itself.
    const piece = fc.stringMatching(/^[a-zA-Z]{3,12}$|^[.,;:!?()[\]{}<>#*-]{3,6}$|^ [a-z]{2,11}$/);
    const texts = fc.array(
      fc.array(piece, { minLength: 1, maxLength: 30 }).map((a) => a.join(' ')),
      { minLength: 2, maxLength: 6 },
    );
    fc.assert(
      fc.property(texts, (ts) => {
        const warm = ts.map((s) => encToks(s));
        tokensInternals.clearCache();
        ts.forEach((s, i) => {
          tokensInternals.clearCache();
          expect(encToks(s)).toEqual(warm[i]);
          expect(decToks(warm[i]!)).toBe(s);
        });
      }),
      fcParams(200),
    );
  });
});
