/**
 * Tests of src/tokens/ against tiktoken o200k_base (SPEC §2).
 * Expected values come from test/fixtures/tokens.json and test/fixtures/dsl.json (both
 * produced by the Python reference, see conformance/README.md), or are derived from them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { decToks, encToks, fitsToks, lenToks, midCuts, truncToksMid } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { FIXTURES, fcParams, type ConformanceCase } from './support.js';

interface TokCase {
  cat: string;
  text: string;
  tokens: number[];
  decodes: Array<[number, string, string]>;
}
const TOK = JSON.parse(readFileSync(join(FIXTURES, 'tokens.json'), 'utf8')) as { encoding: string; cases: TokCase[] };

type DslCase = ConformanceCase & { kwargs: Record<string, unknown>; note: string };
const DSL = JSON.parse(readFileSync(join(FIXTURES, 'dsl.json'), 'utf8')) as DslCase[];
const LEN_CASES = DSL.filter((c) => c.fn === 'len_toks');
const CUT_CASES = DSL.filter((c) => c.fn === 'trunctoks_mid');

const label = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…(${s.length})` : s);

describe('tokens.json (tiktoken o200k_base)', () => {
  it('is the o200k_base fixture with every category', () => {
    expect(TOK.encoding).toBe('o200k_base');
    expect(TOK.cases.length).toBe(181);
  });

  it.each(TOK.cases.map((c, i) => [i, c.cat, label(c.text), c] as const))('#%i %s %s', (_i, _cat, _l, c) => {
    expect(encToks(c.text)).toEqual(c.tokens);
    expect(lenToks(c.text)).toBe(c.tokens.length);
    for (const [k, head, tail] of c.decodes) {
      expect(decToks(c.tokens.slice(0, k))).toBe(head);
      expect(decToks(c.tokens.slice(k))).toBe(tail);
    }
    const n = c.tokens.length;
    expect(fitsToks(c.text, n)).toBe(true);
    if (n > 0) expect(fitsToks(c.text, n - 1)).toBe(false);
  });

  it('decodes with the heap merge for every piece and with the loop for every piece alike', () => {
    // Force each merge strategy in turn over the fixture texts (the default switches at 24 bytes).
    try {
      for (const k of [1, 100_000]) {
        tokensInternals.setHeapFrom(k);
        tokensInternals.clearCache();
        for (const c of TOK.cases) {
          if (k > 1000 && c.text.length > 3000) continue; // the quadratic loop is the slow one
          expect(encToks(c.text)).toEqual(c.tokens);
        }
      }
    } finally {
      tokensInternals.setHeapFrom(24);
      tokensInternals.clearCache();
    }
  });
});

describe('merge strategies agree', () => {
  it('the heap/bucket merge equals the plain loop on random long pieces', () => {
    // Few distinct characters give long pieces with many merges, ties and cascades, which
    // exercise the out-of-order path of the bucket queue.
    const piece = fc
      .tuple(
        fc.array(fc.constantFrom('a', 'b', 'e', 'n', 'x', 'é', '中', '_', '=', ' ', '-', '😀'), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 300 }),
      )
      .chain(([alphabet, len]) => fc.array(fc.constantFrom(...alphabet), { minLength: len, maxLength: len }).map((cs) => cs.join('')));
    try {
      fc.assert(
        fc.property(piece, (s) => {
          tokensInternals.setHeapFrom(100_000);
          tokensInternals.clearCache();
          const loop = encToks(s);
          tokensInternals.setHeapFrom(1);
          tokensInternals.clearCache();
          expect(encToks(s)).toEqual(loop);
          expect(decToks(loop)).toBe(s);
        }),
        fcParams(400),
      );
    } finally {
      tokensInternals.setHeapFrom(24);
      tokensInternals.clearCache();
    }
  });
});

describe('dsl.json len_toks', () => {
  it('has the 26 cases', () => expect(LEN_CASES.length).toBe(26));
  it.each(LEN_CASES.map((c, i) => [i, label(c.args[0] as string), c] as const))('#%i %s', (_i, _l, c) => {
    expect(lenToks(c.args[0] as string)).toBe(c.expected);
  });
});

describe('dsl.json trunctoks_mid', () => {
  it('has the 296 cases', () => expect(CUT_CASES.length).toBe(296));
  it.each(CUT_CASES.map((c, i) => [i, label(c.args[0] as string), c.args[1], c] as const))('#%i %s max=%i', (_i, _l, _m, c) => {
    const [s, max] = c.args as [string, number];
    const got = c.kwargs.mark === undefined ? truncToksMid(s, max) : truncToksMid(s, max, c.kwargs.mark as string);
    expect(got).toBe(c.expected);
  });
});

describe('truncToksMid rules (SPEC §2)', () => {
  const text = TOK.cases.find((c) => c.cat === 'prose' && c.tokens.length > 20)!;
  it('returns "" for a budget <= 0, negative included', () => {
    expect(truncToksMid(text.text, 0)).toBe('');
    expect(truncToksMid(text.text, -5)).toBe('');
    expect(truncToksMid('', 0)).toBe('');
  });
  it('returns the text unchanged when it fits', () => {
    expect(truncToksMid(text.text, text.tokens.length)).toBe(text.text);
  });
  it('keeps ceil(n/2) head and floor(n/2) tail tokens around the mark', () => {
    const mark = encToks(' … ');
    for (const max of [mark.length + 1, mark.length + 2, mark.length + 7, text.tokens.length - 1]) {
      const room = max - mark.length;
      const a = Math.ceil(room / 2);
      const b = Math.floor(room / 2);
      const expected = decToks([...text.tokens.slice(0, a), ...mark, ...(b > 0 ? text.tokens.slice(-b) : [])]);
      expect(truncToksMid(text.text, max)).toBe(expected);
    }
  });
  it('cuts the mark itself to the budget', () => {
    const mark = 'one two three four five';
    const ids = encToks(mark);
    expect(truncToksMid(text.text, 2, mark)).toBe(decToks(ids.slice(0, 2)));
    expect(truncToksMid(text.text, 3, '')).toBe(decToks([...text.tokens.slice(0, 2), ...text.tokens.slice(-1)]));
  });
  it('decodes head, mark and tail as one byte string (a split character is one U+FFFD per bad run)', () => {
    const c = TOK.cases.find((x) => x.text === '😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀'.repeat(40))!;
    expect(c).toBeDefined();
    const s = c.text;
    for (const max of [5, 6, 35]) {
      const mark = encToks(' … ');
      const room = max - mark.length;
      const ids = [...c.tokens.slice(0, Math.ceil(room / 2)), ...mark, ...c.tokens.slice(-Math.floor(room / 2))];
      expect(truncToksMid(s, max)).toBe(decToks(ids));
    }
  });
});

describe('midCuts agrees with truncToksMid at every smaller budget', () => {
  // A short text under a large prepared budget once came back whole at every smaller budget.
  it.each([['\u0fc1'], ['ab'], ['🧠🧠 end'], ['x'.repeat(40)], ['héllo wörld, ça va?']])('%j', (s) => {
    const cut = midCuts(s, 200);
    for (let k = 0; k <= 200; k++) expect(cut(k)).toBe(truncToksMid(s, k));
  });
});

describe('adversarial sizes', () => {
  // tokens.json: 20,000 'a' are 2,500 copies of one 8-byte token; each 8 'a' are one token.
  const aCase = TOK.cases.find((c) => c.cat === 'long-piece' && c.text === 'a'.repeat(20_000))!;
  const aTok = aCase.tokens[0]!;

  it('counts 200 KB of one letter', () => {
    expect(new Set(aCase.tokens)).toEqual(new Set([aTok]));
    expect(decToks([aTok])).toBe('a'.repeat(8));
    const s = 'a'.repeat(200_000);
    const ids = encToks(s);
    expect(ids.length).toBe(25_000);
    expect(ids.every((id) => id === aTok)).toBe(true);
    expect(lenToks(s)).toBe(25_000);
    expect(fitsToks(s, 25_000)).toBe(true);
    expect(fitsToks(s, 24_999)).toBe(false);
    expect(fitsToks(s, 35)).toBe(false);
    expect(decToks(ids)).toBe(s);
    const mark = encToks(' … ');
    const room = 35 - mark.length;
    const expected = decToks([...ids.slice(0, Math.ceil(room / 2)), ...mark, ...ids.slice(-Math.floor(room / 2))]);
    expect(truncToksMid(s, 35)).toBe(expected);
    expect(expected).toBe('a'.repeat(8 * Math.ceil(room / 2)) + ' … ' + 'a'.repeat(8 * Math.floor(room / 2)));
  });

  it('counts and cuts a 5 MB base64 line', () => {
    // The fixture's 8,000-character base64 line starts with a digit and ends with a letter, so
    // every junction of its repeats is a pre-token boundary (a number character only ever
    // shares a piece with number characters): the encoding of 625 repeats is 625 copies.
    const b = TOK.cases.find((c) => c.cat === 'base64')!;
    expect(b.text.length).toBe(8000);
    expect(b.text[0]).toMatch(/[0-9]/);
    expect(b.text.at(-1)).toMatch(/[A-Za-z]/);
    const reps = 625;
    const s = b.text.repeat(reps);
    expect(s.length).toBe(5_000_000);
    const total = b.tokens.length * reps;
    expect(lenToks(s)).toBe(total);
    expect(fitsToks(s, total - 1)).toBe(false);
    expect(fitsToks(s, 35)).toBe(false);
    const mark = encToks(' … ');
    const room = 35 - mark.length;
    const head = b.tokens.slice(0, Math.ceil(room / 2));
    const tail = b.tokens.slice(-Math.floor(room / 2));
    expect(truncToksMid(s, 35)).toBe(decToks([...head, ...mark, ...tail]));
    const ids = encToks(s);
    expect(ids.length).toBe(total);
    for (let r = 0; r < reps; r += 104) expect(ids.slice(r * b.tokens.length, (r + 1) * b.tokens.length)).toEqual(b.tokens);
  });

  it('cuts the tail of a long number run from a resynchronisation point', () => {
    for (const s of ['1'.repeat(100_001), 'x' + '7'.repeat(99_999), '𝟙'.repeat(30_001) + '2'.repeat(5), 'ab' + '٣'.repeat(50_000)]) {
      const ids = encToks(s);
      const mark = encToks(' … ');
      for (const max of [mark.length + 1, 35, 36]) {
        const room = max - mark.length;
        const b = Math.floor(room / 2);
        expect(truncToksMid(s, max)).toBe(decToks([...ids.slice(0, Math.ceil(room / 2)), ...mark, ...(b > 0 ? ids.slice(-b) : [])]));
      }
    }
  });

  it('scans long runs of every character class without stalling', () => {
    for (const ch of ['A', ' ', '\n', '1', '.', '中', '\u0301', 'aA', ' \n', "'s", '\u00a0', '\ufeff', '😀']) {
      const s = ch.repeat(Math.ceil(40_000 / ch.length));
      const n = lenToks(s);
      expect(encToks(s).length).toBe(n);
      expect(fitsToks(s, n)).toBe(true);
      expect(fitsToks(s, n - 1)).toBe(false);
      const ids = encToks(s);
      const mark = encToks(' … ');
      expect(truncToksMid(s, 50)).toBe(
        decToks([...ids.slice(0, Math.ceil((50 - mark.length) / 2)), ...mark, ...ids.slice(-Math.floor((50 - mark.length) / 2))]),
      );
    }
  });
});

describe('resynchronisation points', () => {
  it('are piece boundaries of the full scan (fixture texts)', () => {
    for (const c of TOK.cases) {
      const ends = new Set<number>([0]);
      let at = 0;
      for (const p of tokensInternals.pieces(c.text)) ends.add((at += p.length));
      expect(at).toBe(c.text.length);
      for (let i = 1; i < c.text.length; i++) {
        if (tokensInternals.isBoundary(c.text, i)) expect(ends.has(i)).toBe(true);
      }
    }
  });

  it('are piece boundaries of the full scan (random text)', () => {
    const alphabet = [
      'a',
      'B',
      'é',
      '1',
      '1',
      '1',
      '٣',
      '𝟙',
      ' ',
      '\n',
      '\r',
      '/',
      "'",
      's',
      '.',
      '\u0301',
      '\u00a0',
      '\ufeff',
      '\u0085',
      '中',
      '𝟙',
      '😀',
      '\t',
      'ſ',
      '_',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }), (chars) => {
        const s = chars.join('');
        const ends = new Set<number>([0]);
        let at = 0;
        for (const p of tokensInternals.pieces(s)) ends.add((at += p.length));
        for (let i = 1; i < s.length; i++) {
          if (tokensInternals.isBoundary(s, i)) expect(ends.has(i)).toBe(true);
          const p = tokensInternals.syncPoint(s, i, 0);
          if (p >= 0) expect(ends.has(p)).toBe(true);
        }
      }),
      fcParams(2000),
    );
  });
});

describe('properties', () => {
  const words = (
    'the of and to in is was for on that with as by at from it an were are which this be compaction notebook ' +
    'dialog token budget summary history message assistant reply result because however particularly ' +
    'encoding café naïve Tokyo Über I you we they said'
  ).split(' ');
  const sentence = fc
    .tuple(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 15 }), fc.constantFrom('.', '!', '?', ',', ';', ':'))
    .map(([ws, p]) => ws.join(' ') + p);
  const prose = fc.array(sentence, { minLength: 1, maxLength: 40 }).map((ss) => ss.join(' '));
  const markLen = encToks(' … ').length;

  it('truncToksMid(s, k) re-encodes to at most k tokens for prose, k >= the mark length', () => {
    fc.assert(
      fc.property(prose, fc.integer({ min: markLen, max: 120 }), (s, k) => {
        const cut = truncToksMid(s, k);
        expect(lenToks(cut)).toBeLessThanOrEqual(k);
        expect(fitsToks(s, k) ? cut === s : cut !== s).toBe(true);
      }),
      fcParams(500),
    );
  });

  it('decToks(encToks(s)) === s for well-formed strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (s) => {
        expect(decToks(encToks(s))).toBe(s);
      }),
      fcParams(1000),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
        const ids = encToks(s);
        expect(decToks(ids)).toBe(s);
        expect(lenToks(s)).toBe(ids.length);
      }),
      fcParams(1000),
    );
  });

  it('fitsToks agrees with lenToks', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.integer({ min: -2, max: 80 }), (s, k) => {
        expect(fitsToks(s, k)).toBe(lenToks(s) <= k);
      }),
      fcParams(1000),
    );
  });

  it('lone surrogates encode as U+FFFD (as tiktoken does)', () => {
    expect(encToks('a\ud800b')).toEqual(encToks('a\ufffdb'));
    expect(decToks(encToks('\udc00'))).toBe('\ufffd');
  });
});

describe('special-token text is ordinary text (disallowed_special=())', () => {
  it('encodes <|endoftext|> as pieces, while its id still decodes', () => {
    const c = TOK.cases.find((x) => x.text === '<|endoftext|>')!;
    expect(encToks('<|endoftext|>')).toEqual(c.tokens);
    expect(encToks('<|endoftext|>')).not.toContain(199999);
    expect(decToks([199999])).toBe('<|endoftext|>');
    expect(decToks([200018])).toBe('<|endofprompt|>');
  });
});

describe('argument errors', () => {
  const bad: unknown[] = [undefined, null, 3, {}, ['a'], Symbol('x')];
  it.each(bad.map((v) => [String(typeof v), v] as const))('non-string text (%s) -> InvalidArgumentError', (_t, v) => {
    expect(() => encToks(v as string)).toThrow(InvalidArgumentError);
    expect(() => lenToks(v as string)).toThrow(InvalidArgumentError);
    expect(() => fitsToks(v as string, 5)).toThrow(InvalidArgumentError);
    expect(() => truncToksMid(v as string, 5)).toThrow(InvalidArgumentError);
  });
  it.each([NaN, Infinity, -Infinity, 1.5, '5', null, undefined, 2 ** 60].map((v) => [String(v), v] as const))('budget %s -> InvalidArgumentError', (_l, v) => {
    expect(() => fitsToks('abc', v as number)).toThrow(InvalidArgumentError);
    expect(() => truncToksMid('abc', v as number)).toThrow(InvalidArgumentError);
  });
  it('non-string mark -> InvalidArgumentError', () => {
    expect(() => truncToksMid('abc', 5, 7 as unknown as string)).toThrow(InvalidArgumentError);
  });
  it('negative budgets are legal: nothing fits, the cut is empty', () => {
    expect(fitsToks('', -1)).toBe(false);
    expect(fitsToks('', 0)).toBe(true);
    expect(truncToksMid('abc', -1)).toBe('');
  });
  it('bad ids -> InvalidArgumentError', () => {
    for (const ids of [[-1], [1.5], [199998], [200000], ['5'], [NaN]]) {
      expect(() => decToks(ids as number[])).toThrow(InvalidArgumentError);
    }
    expect(() => decToks('abc' as unknown as number[])).toThrow(InvalidArgumentError);
    expect(decToks([])).toBe('');
  });
});
