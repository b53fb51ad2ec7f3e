/**
 * The tokenizer's fast paths against their reference paths: the ASCII pre-token scanner
 * against the o200k regex, and the exactness of the counts they feed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decToks, encToks, fitsToks, lenToks, truncToksMid } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { FIXTURES, fcParams, textOf } from './support.js';

const TOK = JSON.parse(readFileSync(join(FIXTURES, 'tokens.json'), 'utf8')) as { cases: { text: string; tokens: number[] }[] };

const ends = (s: string): number[] => {
  const out: number[] = [];
  for (let pos = 0; pos < s.length; ) out.push((pos = tokensInternals.regexPieceEnd(s, pos)));
  return out;
};

/**
 * Every piece end the fast path gives in `s` is the regular expression's, and the pieces the
 * scanner makes end where the expression's do.
 */
function agreesWithRegex(s: string): void {
  for (let pos = 0; pos < s.length; ) {
    const want = tokensInternals.regexPieceEnd(s, pos);
    const fast = tokensInternals.asciiPieceEnd(s, pos);
    if (fast !== -1) expect(fast).toBe(want);
    pos = want;
  }
  const cuts: number[] = [];
  for (const piece of tokensInternals.pieces(s)) cuts.push((cuts.at(-1) ?? 0) + piece.length);
  expect(cuts).toEqual(ends(s));
}

describe('ASCII pre-token scanner', () => {
  it('cuts ASCII text as the regex does (exact pieces)', () => {
    expect(tokensInternals.pieces("Hello, world! It's 12345 o'clock.\n\n  \tx = y/2 // ok\r\n")).toEqual([
      'Hello',
      ',',
      ' world',
      '!',
      " It's",
      ' ',
      '123',
      '45',
      ' o',
      "'clock",
      '.\n\n',
      '  ',
      '\tx',
      ' =',
      ' y',
      '/',
      '2',
      ' //',
      ' ok',
      '\r\n',
    ]);
    expect(tokensInternals.pieces('HTTPServer CamelCase ABC\'S don\'T (paren) "q"')).toEqual([
      'HTTPServer',
      ' Camel',
      'Case',
      " ABC'S",
      " don'T",
      ' (',
      'paren',
      ')',
      ' "',
      'q',
      '"',
    ]);
  });

  it('answers -1 where a non-ASCII character decides the piece', () => {
    expect(tokensInternals.asciiPieceEnd('abcé', 0)).toBe(-1);
    expect(tokensInternals.asciiPieceEnd('12²', 0)).toBe(-1);
    expect(tokensInternals.asciiPieceEnd(' \u00a0', 0)).toBe(-1);
    expect(tokensInternals.asciiPieceEnd('(é', 0)).toBe(-1);
    expect(tokensInternals.asciiPieceEnd('1234²', 0)).toBe(3);
    expect(tokensInternals.asciiPieceEnd("it'ſ", 0)).toBe(4);
    expect(tokensInternals.asciiPieceEnd('  x', 0)).toBe(1);
    expect(tokensInternals.asciiPieceEnd('  \n x', 0)).toBe(3);
  });

  it('decides pieces at non-ASCII symbols and defers at letters, marks, numbers and surrogates', () => {
    expect(tokensInternals.asciiPieceEnd('a\u2026', 0)).toBe(1); // 'a' then '…'
    expect(tokensInternals.asciiPieceEnd(' \u2026x', 0)).toBe(2); // ' …'
    expect(tokensInternals.asciiPieceEnd('\u00bb\n', 0)).toBe(2); // '»\n'
    expect(tokensInternals.asciiPieceEnd('\u2026abc', 0)).toBe(4); // '…' as the prefix of a word
    expect(tokensInternals.asciiPieceEnd(' \u00b6\u00b6x', 0)).toBe(3);
    expect(tokensInternals.asciiPieceEnd('.\u2026\u3000', 0)).toBe(2); // the ideographic space ends the run
    expect(tokensInternals.asciiPieceEnd('  \u2026', 0)).toBe(1); // the last space goes with '…'
    expect(tokensInternals.asciiPieceEnd('1\u2026', 0)).toBe(1);
    expect(tokensInternals.asciiPieceEnd('ab\u00a0', 0)).toBe(2);
    expect(tokensInternals.asciiPieceEnd('\u2014\u00e9', 0)).toBe(-1); // '—' then a letter
    expect(tokensInternals.asciiPieceEnd('\u2026\u0301', 0)).toBe(-1); // then a mark
    expect(tokensInternals.asciiPieceEnd('\u00e9', 0)).toBe(-1);
    expect(tokensInternals.asciiPieceEnd('\u{1f600}', 0)).toBe(-1); // a surrogate pair
    expect(tokensInternals.asciiPieceEnd('x\u{1d400}', 0)).toBe(-1); // a letter outside the BMP
  });

  it('agrees with the regex on random text of ASCII and non-ASCII symbols', () => {
    const SYMBOLS = [
      'a',
      'Z',
      's',
      "'",
      '0',
      '7',
      ' ',
      '\t',
      '\n',
      '\r',
      '/',
      '.',
      '(',
      '\x7f',
      '\u2026',
      '\u00bb',
      '\u2014',
      '\u2502',
      '\u00b6',
      '\ufeff',
      '\u00d7',
      '\u0301',
      '\u00e9',
      '\u00b2',
      '\u00a0',
      '\u3000',
      '\u0085',
      '\u{1f600}',
      '\u{1d400}',
      '\u{1d7ce}',
      '\ud800',
      '\u6771',
    ];
    fc.assert(
      fc.property(textOf(SYMBOLS, 30), (s) => {
        agreesWithRegex(s);
      }),
      fcParams(20_000),
    );
  });

  const ALPHABET = [
    'a',
    'Z',
    'q',
    'S',
    's',
    'T',
    'l',
    'L',
    'e',
    'r',
    'v',
    'm',
    'd',
    '0',
    '7',
    ' ',
    '  ',
    '\t',
    '\n',
    '\r',
    '\v',
    '\f',
    '/',
    "'",
    '.',
    '(',
    '\x00',
    '\x1f',
    '\x7f',
    'é',
    'ſ',
    '\u00a0',
    '²',
    '東',
    '\u0301',
    '\u3000',
    '\u0085',
  ];

  it('agrees with the regex on random text', () => {
    fc.assert(
      fc.property(textOf(ALPHABET, 40), (s) => {
        agreesWithRegex(s);
      }),
      fcParams(20_000),
    );
  });

  it('keeps the ids of every ASCII case of tokens.json', () => {
    const ascii = TOK.cases.filter((c) => /^[\x00-\x7f]*$/.test(c.text));
    expect(ascii.length).toBeGreaterThan(40);
    for (const c of ascii) expect(encToks(c.text)).toEqual(c.tokens);
  });
});

describe('memo of the ids of ASCII pieces of 5 to 8 characters', () => {
  it('gives exact ids on the first and on later sightings, beside non-ASCII pieces of the same length', () => {
    tokensInternals.clearCache();
    for (let round = 0; round < 3; round++) {
      // ' word' (ASCII, a token) next to '\u00a0word' (five units, not ASCII: not memoised)
      expect(encToks('word\u00a0word word\u00a0word')).toEqual([1801, 5310, 1801, 2195, 5310, 1801]);
      expect(encToks('   leading')).toEqual([256, 8117]); // ' leading': eight characters, one token
      expect(encToks('trailing   ')).toEqual([371, 24408, 271]); // 'trailing': eight characters, not a token
      expect([lenToks('   leading'), lenToks('trailing   ')]).toEqual([2, 3]);
      // five control characters: one piece of five tokens, more than an entry keeps
      expect(encToks('\u001c\u001d\u001e\u001f\u001c')).toEqual([216, 217, 218, 219, 216]);
    }
  });

  it('keeps the ids of every case of tokens.json on a second encoding', () => {
    tokensInternals.clearCache();
    for (const c of TOK.cases) expect(encToks(c.text)).toEqual(c.tokens);
    for (const c of TOK.cases) expect(encToks(c.text)).toEqual(c.tokens);
  });
});

describe('memo of the ids of ASCII pieces of 9 to 16 characters, and the cache of joined parts', () => {
  const fixture = (text: string): number[] => {
    const c = TOK.cases.find((x) => x.text === text);
    if (!c) throw new Error(`no tokens.json case ${JSON.stringify(text)}`);
    return c.tokens;
  };

  it('gives the ids of tokens.json on the first and on later sightings, in any order', () => {
    // ' leadingword', 'wordtrailing', '\tmoreword', ' titlecase', 'endoftext', 'endofprompt', '|endoftext'
    const texts = [
      'word   leadingword',
      'wordtrailing   word',
      'word\t\tindent\n\t\t\tmoreword',
      'The text: ǅ titlecase ends.',
      'a<|endoftext|>b<|endoftext|>',
      '<|endofprompt|>',
      '|endoftext|>',
    ];
    for (const order of [texts, [...texts].reverse()]) {
      tokensInternals.clearCache();
      for (let round = 0; round < 3; round++) for (const text of order) expect(encToks(text)).toEqual(fixture(text));
      for (const text of order) expect(lenToks(text)).toBe(fixture(text).length);
    }
  });

  it('keeps a piece of more ids than an entry holds exact', () => {
    tokensInternals.clearCache();
    // nine control characters: one piece, one byte token each (no two of them join)
    for (let round = 0; round < 3; round++)
      expect(encToks('\u001c\u001d\u001e\u001f\u001c\u001d\u001e\u001f\u001c')).toEqual([216, 217, 218, 219, 216, 217, 218, 219, 216]);
  });
});

describe('contractions at the end of a text', () => {
  it('cut a trailing apostrophe or partial contraction as the regex does', () => {
    const cases: Array<[string, string[]]> = [
      ["it'", ['it', "'"]],
      ["it'r", ['it', "'r"]],
      ["it'l", ['it', "'l"]],
      ["it're", ["it're"]],
      ["it'll", ["it'll"]],
      ["x'\u017f", ["x'\u017f"]],
    ];
    for (const [s, pieces] of cases) {
      expect(tokensInternals.pieces(s)).toEqual(pieces);
      expect(ends(s)).toEqual(pieces.map((_, i) => pieces.slice(0, i + 1).join('').length));
    }
  });
});

describe('binary-heap merge of medium pieces', () => {
  const withMerge = <T>(heapFrom: number, longFrom: number, f: () => T): T => {
    tokensInternals.setHeapFrom(heapFrom);
    tokensInternals.setLongFrom(longFrom);
    tokensInternals.clearCache();
    try {
      return f();
    } finally {
      tokensInternals.setHeapFrom(24);
      tokensInternals.setLongFrom(4096);
      tokensInternals.clearCache();
    }
  };

  it('gives the ids of tokens.json for every case', () => {
    withMerge(1, 4096, () => {
      for (const c of TOK.cases) expect(encToks(c.text)).toEqual(c.tokens);
    });
  });

  it('equals the plain loop and the bucket queue on random pieces', () => {
    const piece = fc
      .tuple(fc.array(fc.constantFrom('a', 'b', 'n', 'é', '中', '文', 'д', 'а', '😀', '_'), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 200 }))
      .chain(([alphabet, len]) => fc.array(fc.constantFrom(...alphabet), { minLength: len, maxLength: len }).map((cs) => cs.join('')));
    fc.assert(
      fc.property(piece, (s) => {
        const loop = withMerge(100_000, 4096, () => encToks(s));
        expect(withMerge(1, 4096, () => encToks(s))).toEqual(loop);
        expect(withMerge(1, 1, () => encToks(s))).toEqual(loop);
        expect(decToks(loop)).toBe(s);
      }),
      fcParams(300),
    );
  });
});

describe('shared fronts of budgeted texts', () => {
  it('count, check and cut one text alike in any order', () => {
    const cases = TOK.cases.filter((c) => c.tokens.length >= 8);
    for (const c of cases) {
      const n = c.tokens.length;
      for (const k of [n - 1, Math.floor(n / 2), 3]) {
        tokensInternals.clearCache();
        const cutFirst = truncToksMid(c.text, k);
        expect(fitsToks(c.text, k)).toBe(false);
        expect(lenToks(c.text)).toBe(n);
        tokensInternals.clearCache();
        expect(fitsToks(c.text, k)).toBe(false);
        expect(truncToksMid(c.text, k)).toBe(cutFirst);
        expect(lenToks(c.text)).toBe(n);
        expect(fitsToks(c.text, n)).toBe(true);
      }
    }
  });

  it('decides a fit by UTF-8 length without encoding', () => {
    // 10 characters of 3 bytes: 30 bytes, so at most 30 tokens, whatever they are.
    expect(fitsToks('中文中文中文中文中文', 30)).toBe(true);
    expect(truncToksMid('中文中文中文中文中文', 30)).toBe('中文中文中文中文中文');
    expect(tokensInternals.utf8Within('aé中😀\ud800', 100)).toBe(1 + 2 + 3 + 4 + 3);
    expect(tokensInternals.utf8Within('中中中中', 5)).toBe(6);
  });
});
