/**
 * Pieces cut at closed boundaries (src/tokens/split.ts) merge to the same ids as whole pieces:
 * the check of a boundary agrees with a direct reading of the rank table for every token, and
 * encodings with and without the cuts agree on generated CJK and mixed text; the quick scan of
 * ideographic runs (pretokenize.ts) ends pieces where the regex does.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { setSplitFrom } from '../src/tokens/bpe.js';
import { encToks, lenToks } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { ideoRunEnd, pieceEnd } from '../src/tokens/pretokenize.js';
import { tbl } from '../src/tokens/ranks.js';
import { closedAt, isLead3, splitReady } from '../src/tokens/split.js';
import { fcParams, textOf } from './support.js';

const isCont = (b: number): boolean => b >= 0x80 && b <= 0xbf;

/** Ids of `s` with the pieces merged whole (no cuts), on empty caches. */
function uncut(s: string): number[] {
  setSplitFrom(Number.POSITIVE_INFINITY);
  tokensInternals.clearCache();
  try {
    return encToks(s);
  } finally {
    setSplitFrom(6);
    tokensInternals.clearCache();
  }
}

afterEach(() => {
  setSplitFrom(6);
  tokensInternals.clearCache();
});

describe('closed boundaries', () => {
  it('are never inside a token: every 3-byte character boundary of every token is straddled', () => {
    const t = tbl();
    splitReady(t);
    const p = new Uint8Array(6);
    let checked = 0;
    for (let id = 0; id < t.lens.length; id++) {
      const len = t.lens[id]!;
      const o = t.offs[id]!;
      for (let m = 1; m < len; m++) {
        const b = t.bytes[o + m]!;
        if (!isLead3(b) || !isCont(t.bytes[o + m - 1]!)) continue;
        // The 3 bytes before the boundary, completed in front to a 3-byte character where the
        // token starts inside one (E4 80 ..); contexts that are no such character are skipped.
        for (let k = 0; k < 3; k++) p[k] = m - 3 + k >= 0 ? t.bytes[o + m - 3 + k]! : k === 0 ? 0xe4 : 0x80;
        if (!isLead3(p[0]!) || !isCont(p[1]!) || !isCont(p[2]!)) continue;
        // The 3 bytes after it, completed with continuation bytes where the token ends inside B.
        for (let k = 0; k < 3; k++) p[3 + k] = m + k < len ? t.bytes[o + m + k]! : 0x80;
        if (!isCont(p[4]!) || !isCont(p[5]!)) continue;
        checked++;
        if (closedAt(p, 3)) throw new Error(`token ${id} straddles a boundary judged closed at byte ${m}`);
      }
    }
    // o200k_base holds some 54 thousand such boundaries inside its tokens.
    expect(checked).toBeGreaterThan(50_000);
  });

  it('cut a run of common Han characters into short segments', () => {
    const s = '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心';
    expect(encToks(s)).toEqual(uncut(s));
    expect(lenToks(s)).toBe(uncut(s).length);
  });
});

// Characters whose runs make long pieces: Han, Kana, Hangul, full-width forms, with some ASCII,
// Latin, Cyrillic, emoji and lone surrogates between them, and common characters that form
// multi-character tokens.
const COMMON =
  '的一是不了人我在有他这中国大来上个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方';
const KANA = 'ありがとうございますこんにちはカタカナテストですトークン日本語の文章を書きます';
const HANGUL = '안녕하세요한국어텍스트입니다토큰화시험';
const piece = fc.oneof(
  fc.constantFrom(...COMMON),
  fc.constantFrom(...KANA),
  fc.constantFrom(...HANGUL),
  fc.integer({ min: 0x4e00, max: 0x9fff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x3000, max: 0x30ff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xac00, max: 0xd7a3 }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xff00, max: 0xffef }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xe000, max: 0xf8ff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('中华人民共和国', '我们的', '日本語', '東京', '株式会社', '的な', 'である', '입니다'),
  fc.constantFrom(' ', 'a', 'the ', '1', '，', '。', '\n', 'é', 'д', '😀', '\ud800', '\udfff', '\u0301'),
);
const text = fc.array(piece, { minLength: 1, maxLength: 120 }).map((xs) => xs.join(''));

describe('encoding with cuts', () => {
  it('gives the ids of whole-piece merging on generated CJK and mixed text', () => {
    fc.assert(
      fc.property(text, (s) => {
        const want = uncut(s);
        expect(encToks(s)).toEqual(want);
        // and again from warm caches (the segment and character caches are filled by now)
        expect(encToks(s)).toEqual(want);
        expect(lenToks(s)).toBe(want.length);
      }),
      fcParams(300),
    );
  });

  it('gives the same ids on long runs, merged by each of the merge loops', () => {
    const rows: string[] = [];
    let x = 7;
    const next = (): number => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x >>> 8;
    };
    for (const n of [40, 400, 3000]) {
      let s = '';
      for (let i = 0; i < n; i++) s += next() % 3 === 0 ? COMMON[next() % COMMON.length]! : String.fromCharCode(0x4e00 + (next() % 0x5200));
      rows.push(s);
    }
    for (const s of rows) {
      const want = uncut(s);
      for (const k of [1, 24, 100_000]) {
        tokensInternals.setHeapFrom(k);
        tokensInternals.clearCache();
        try {
          expect(encToks(s)).toEqual(want);
        } finally {
          tokensInternals.setHeapFrom(24);
        }
      }
    }
  });
});

describe('ideographic runs (ideoRunEnd)', () => {
  it('ends a run of Lo letters after an optional prefix, and leaves other cases to the regex', () => {
    expect(ideoRunEnd('，中文。', 0)).toBe(3); // full-width comma, two Han, then a stop
    expect(ideoRunEnd('中文', 0)).toBe(2); // to the end of the text
    expect(ideoRunEnd(' 東京 x', 0)).toBe(3); // space prefix; the space after ends it
    expect(ideoRunEnd('\u3000日本1', 0)).toBe(3); // ideographic space prefix; a digit ends it
    expect(ideoRunEnd('カタカナ!', 0)).toBe(4);
    expect(ideoRunEnd('한국\u0301어.', 1)).toBe(4); // a combining mark is inside the run
    expect(ideoRunEnd('中文a', 0)).toBe(-1); // a Latin letter could extend the piece
    expect(ideoRunEnd("中's", 0)).toBe(-1); // a contraction could follow
    expect(ideoRunEnd('中é', 0)).toBe(-1);
    expect(ideoRunEnd('中😀', 0)).toBe(-1); // a surrogate: not decided from one unit
    expect(ideoRunEnd('a中', 0)).toBe(-1); // a letter is no prefix
    expect(ideoRunEnd('\n中', 0)).toBe(-1); // nor is a line break
    expect(ideoRunEnd('1中', 0)).toBe(-1); // nor a digit
    expect(ideoRunEnd('，。', 0)).toBe(-1); // no letters after the prefix
  });

  it('agrees with the regex wherever it decides, and pieceEnd with the regex everywhere', () => {
    const ALPHA = [
      '中',
      '文',
      '，',
      '。',
      '\u3000',
      ' ',
      '\n',
      '\t',
      'a',
      'A',
      "'",
      's',
      '1',
      '２',
      'ア',
      '한',
      'ก',
      '\u0301',
      'é',
      'Ω',
      'ǅ',
      'ʰ',
      '😀',
      '\ud800',
      '.',
      '\u0085',
      '\u00a0',
      '/',
    ];
    fc.assert(
      fc.property(textOf(ALPHA, 24), (s) => {
        for (let pos = 0; pos < s.length; pos++) {
          const want = tokensInternals.regexPieceEnd(s, pos);
          const got = ideoRunEnd(s, pos);
          if (got >= 0) expect(got).toBe(want);
          expect(pieceEnd(s, pos)).toBe(want);
        }
      }),
      fcParams(5_000),
    );
  });

  it('scans a run of five million Han characters as one piece', () => {
    const s = `，${'中'.repeat(5_000_000)}。`;
    expect(pieceEnd(s, 0)).toBe(5_000_001);
  });
});
