/**
 * src/python/ (strings, repr, numbers, dumps): Python string semantics. Every expected value
 * was produced by CPython 3.11 (test/fixtures/py-cases.json, written by
 * scripts/gen-py-fixtures.py) or is a literal
 * checked against python3 by hand (noted where used).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { LosslessNumber } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import {
  type PyDumpsOptions,
  cpCompare,
  cpLen,
  cpSlice,
  cpToUnitIndex,
  isPyPrintable,
  isPyWhitespace,
  parseJson,
  pyDumps,
  pyFloatRepr,
  pyJsonString,
  pyLstrip,
  pyNumberRepr,
  pyRepr,
  pyRstrip,
  pySplitlines,
  pyStr,
  pyStrRepr,
  pyStrip,
  unitToCpIndex,
} from '../src/python/index.js';
import { FIXTURES, HAVE_SHARED, shared, thrown, fcParams } from './support.js';

interface Fixture {
  python: string;
  unidata_version: string;
  whitespace: number[];
  line_breaks: number[];
  non_printable_ranges: [number, number][];
  strip: { s: string; chars: string | null; strip: string; lstrip: string; rstrip: string }[];
  splitlines: { s: string; lines: string[]; keep: string[] }[];
  repr_str: { s: string; repr: string }[];
  float: { bits: string; repr: string; json: string }[];
  json: { text: string; repr: string; str: string; dumps: Record<string, string> }[];
  slice: { s: string; start: number | null; end: number | null; len: number; slice: string }[];
}
const FX = JSON.parse(readFileSync(join(FIXTURES, 'py-cases.json'), 'utf8')) as Fixture;

const DUMP_MODES: Record<string, PyDumpsOptions> = {
  default: {},
  raw: { ensureAscii: false },
  nb: { indent: 1, sortKeys: true, ensureAscii: false },
  indent2: { indent: 2 },
  indent0: { indent: 0 },
  sorted: { sortKeys: true },
  compact: { separators: [',', ':'] },
  tab: { indent: '\t', separators: [';', '='] },
};

const show = (s: string): string => JSON.stringify(s).slice(0, 60);

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt('0x' + hex));
  return view.getFloat64(0);
}

it('fixtures come from CPython 3.11 (Unicode 14.0.0)', () => {
  expect(FX.python.startsWith('3.11.')).toBe(true);
  expect(FX.unidata_version).toBe('14.0.0');
});

describe('whitespace and printable tables match CPython for every code point', () => {
  it('isPyWhitespace(cp) === chr(cp).isspace() for 0..0x10FFFF', () => {
    const set = new Set(FX.whitespace);
    const wrong: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) if (isPyWhitespace(cp) !== set.has(cp)) wrong.push(cp);
    expect(wrong).toEqual([]);
  });

  it('isPyPrintable(cp) === chr(cp).isprintable() for 0..0x10FFFF', () => {
    const wrong: number[] = [];
    let r = 0;
    const ranges = FX.non_printable_ranges;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      while (r < ranges.length && ranges[r][1] < cp) r++;
      const nonPrintable = r < ranges.length && ranges[r][0] <= cp;
      if (isPyPrintable(cp) === nonPrintable) wrong.push(cp);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  });

  it('splitlines breaks exactly at the characters CPython breaks at', () => {
    const breaks: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (pySplitlines('a' + String.fromCodePoint(cp) + 'b').length === 2) breaks.push(cp);
    }
    expect(breaks).toEqual(FX.line_breaks);
  });
});

describe('pyStrip / pyLstrip / pyRstrip', () => {
  it.each(FX.strip.map((c, i) => [i, show(c.s), c] as const))('case %i %s', (_i, _s, c) => {
    expect(pyStrip(c.s, c.chars)).toBe(c.strip);
    expect(pyLstrip(c.s, c.chars)).toBe(c.lstrip);
    expect(pyRstrip(c.s, c.chars)).toBe(c.rstrip);
  });

  it('rejects non-strings with InvalidArgumentError', () => {
    expect(thrown(() => pyStrip(undefined as unknown as string))).toBeInstanceOf(InvalidArgumentError);
  });
});

describe('pySplitlines', () => {
  it.each(FX.splitlines.map((c, i) => [i, show(c.s), c] as const))('case %i %s', (_i, _s, c) => {
    expect(pySplitlines(c.s)).toEqual(c.lines);
    expect(pySplitlines(c.s, true)).toEqual(c.keep);
  });

  it('is linear and keeps every character with keepends', () => {
    const big = 'line of text\r\n'.repeat(300_000) + 'x\u2028y\n'.repeat(300_000);
    const t0 = performance.now();
    const lines = pySplitlines(big, true);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(lines.length).toBe(900_000);
    expect(lines.join('')).toBe(big);
  });

  it('property: keepends lines join back to the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\r', '\n', '\x0b', '\x1c', '\x85', '\u2028', '😀', ' ') }), (s) => {
        expect(pySplitlines(s, true).join('')).toBe(s);
        expect(pySplitlines(s).length).toBe(pySplitlines(s, true).length);
      }),
      fcParams(),
    );
  });
});

describe('pyStrRepr (Python repr of str)', () => {
  it.each(FX.repr_str.map((c, i) => [i, show(c.s), c] as const))('case %i %s', (_i, _s, c) => {
    expect(pyStrRepr(c.s)).toBe(c.repr);
    expect(pyRepr(c.s)).toBe(c.repr);
  });

  it('escapes by unit and by pair in one pass (values from CPython 3.11.7)', () => {
    expect(pyStrRepr('tab\tquote\'s "both" back\\slash\r\n')).toBe("'tab\\tquote\\'s \"both\" back\\\\slash\\r\\n'");
    expect(pyStrRepr("only ' single")).toBe('"only \' single"');
    expect(pyStrRepr('\x00\x1f\x7f')).toBe("'\\x00\\x1f\\x7f'");
    expect(pyStrRepr('café \u00ad soft \u0085 nel \u00a0 nbsp')).toBe("'café \\xad soft \\x85 nel \\xa0 nbsp'");
    expect(pyStrRepr('中文\u3000\u2028\ufeff\uffff')).toBe("'中文\\u3000\\u2028\\ufeff\\uffff'");
    expect(pyStrRepr('astral 😀 \u{e0001} \u{10ffff}')).toBe("'astral 😀 \\U000e0001 \\U0010ffff'");
    expect(pyStrRepr('lone \ud800 and \udfff')).toBe("'lone \\ud800 and \\udfff'");
    expect(pyStrRepr('\ud83dx and at the end \ud83d')).toBe("'\\ud83dx and at the end \\ud83d'");
  });
});

describe('pyFloatRepr and float json.dumps', () => {
  it.each(FX.float.map((c) => [c.repr, c] as const))('%s', (_r, c) => {
    const x = fromBits(c.bits);
    expect(pyFloatRepr(x)).toBe(c.repr);
    // A JS number that is a safe integer counts as an int; others are floats.
    if (!Number.isSafeInteger(x)) expect(pyDumps(x)).toBe(c.json);
    // A float lexeme (Python's repr is valid JSON when finite) keeps its float kind.
    if (Number.isFinite(x)) {
      expect(pyRepr(new LosslessNumber(c.repr))).toBe(c.repr);
      expect(pyDumps(new LosslessNumber(c.repr))).toBe(c.json);
    }
  });
});

describe('pyRepr, pyStr and pyDumps of parsed JSON equal Python repr/str/json.dumps', () => {
  it.each(FX.json.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const v = parseJson(c.text);
    expect(pyRepr(v)).toBe(c.repr);
    expect(pyStr(v)).toBe(c.str);
    for (const [mode, opts] of Object.entries(DUMP_MODES)) {
      expect([mode, pyDumps(v, opts)]).toEqual([mode, c.dumps[mode]]);
    }
  });
});

describe('cpLen / cpSlice / index conversion', () => {
  it.each(FX.slice.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    expect(cpLen(c.s)).toBe(c.len);
    const start = c.start ?? 0;
    expect(c.end === null ? cpSlice(c.s, start) : cpSlice(c.s, start, c.end)).toBe(c.slice);
  });

  it('converts between code point and UTF-16 indexes', () => {
    const s = 'a😀b\ud800c';
    expect([0, 1, 2, 3, 4, 5, 6, 9].map((k) => cpToUnitIndex(s, k))).toEqual([0, 1, 3, 4, 5, 6, 6, 6]);
    expect([0, 1, 2, 3, 4, 5, 6, 9].map((u) => unitToCpIndex(s, u))).toEqual([0, 1, 2, 2, 3, 4, 5, 5]);
    expect(cpLen('x'.repeat(10) + '𝍁')).toBe(11);
  });
});

describe('cpCompare sorts like Python sorted() on str', () => {
  it('orders astral characters after U+E000–U+FFFF and lone surrogates by code point', () => {
    // python3: sorted(['\uffff', '\U00010000', '\ue000', 'a', '\ud800', '\ud800\udc00', '', 'ab'])
    // -> ['', 'a', 'ab', '\ud800', '\ue000', '\uffff', '\U00010000', '\U00010000'] (the pair is U+10000)
    const keys = ['\uffff', '\u{10000}', '\ue000', 'a', '\ud800x', '', 'ab', '\ud800'];
    expect(keys.sort(cpCompare)).toEqual(['', 'a', 'ab', '\ud800', '\ud800x', '\ue000', '\uffff', '\u{10000}']);
  });

  it('property: agrees with comparing code point arrays', () => {
    const cps = (s: string) => Array.from(s, (ch) => ch.codePointAt(0)!);
    const cmpArr = (a: number[], b: number[]) => {
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
      return a.length - b.length;
    };
    const unit = fc.constantFrom('a', 'z', '\ud800', '\udc00', '\ue000', '\uffff', '😀', '\u{10000}', '\u{10ffff}');
    fc.assert(
      fc.property(fc.string({ unit }), fc.string({ unit }), (a, b) => {
        expect(Math.sign(cpCompare(a, b))).toBe(Math.sign(cmpArr(cps(a), cps(b))));
      }),
      fcParams(1000),
    );
  });
});

describe('values that are not from parseJson', () => {
  // Each expectation below was checked with python3 (repr of the corresponding Python value).
  it('JS numbers: safe integers are ints, everything else floats', () => {
    expect([1, -7, -0, 0, 2 ** 53 - 1].map((x) => pyRepr(x))).toEqual(['1', '-7', '0', '0', '9007199254740991']);
    expect([1.5, 2 ** 53, 1e20, 1e16, NaN, Infinity, -Infinity, 1e-7].map((x) => pyRepr(x))).toEqual([
      '1.5',
      '9007199254740992.0',
      '1e+20',
      '1e+16',
      'nan',
      'inf',
      '-inf',
      '1e-07',
    ]);
    expect(pyDumps([2 ** 53, NaN, -Infinity, -0, 0.1])).toBe('[9007199254740992.0, NaN, -Infinity, 0, 0.1]');
  });

  it('bigint and LosslessNumber ints are exact', () => {
    expect(pyRepr(10n ** 30n)).toBe('1000000000000000000000000000000');
    expect(pyRepr(-(10n ** 20n))).toBe('-100000000000000000000');
    expect(pyNumberRepr(new LosslessNumber('-0'))).toBe('0');
    expect(pyNumberRepr(new LosslessNumber('-0.0'))).toBe('-0.0');
    expect(pyDumps({ a: new LosslessNumber('123456789012345678901234567890'), b: 5n })).toBe('{"a": 123456789012345678901234567890, "b": 5}');
  });

  it('self-containing containers: repr prints [...] / {...}, dumps throws', () => {
    const l: unknown[] = [1];
    l.push(l);
    const d: Record<string, unknown> = { a: 1 };
    d.self = d;
    expect(pyRepr(l)).toBe('[1, [...]]');
    expect(pyRepr(d)).toBe("{'a': 1, 'self': {...}}");
    expect(thrown(() => pyDumps(l))).toBeInstanceOf(InvalidArgumentError);
    // shared (not circular) references are fine
    const x = [1];
    expect(pyDumps([x, x])).toBe('[[1], [1]]');
  });

  it('non-JSON values throw InvalidArgumentError', () => {
    for (const bad of [undefined, () => 1, Symbol('s'), new Map(), new Date(0), [1, undefined], { a: undefined }]) {
      expect(thrown(() => pyRepr(bad))).toBeInstanceOf(InvalidArgumentError);
      expect(thrown(() => pyDumps(bad))).toBeInstanceOf(InvalidArgumentError);
    }
    // eslint-disable-next-line no-sparse-arrays
    expect(thrown(() => pyDumps([1, , 2]))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(() => pyDumps(1, { indent: 1.5 }))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(() => pyFloatRepr('1' as unknown as number))).toBeInstanceOf(InvalidArgumentError);
  });

  it('pyStr leaves strings alone', () => {
    expect(pyStr("it's\n")).toBe("it's\n");
    expect(pyStr(null)).toBe('None');
    expect(pyStr([true, 'a'])).toBe("[True, 'a']");
  });

  it('pyJsonString quotes one string as json.dumps does', () => {
    // python3: json.dumps('é😀\x7f\ud800"\\\n\x01') and with ensure_ascii=False
    const s = 'é😀\x7f\ud800"\\\n\x01';
    expect(pyJsonString(s)).toBe('"\\u00e9\\ud83d\\ude00\\u007f\\ud800\\"\\\\\\n\\u0001"');
    expect(pyJsonString(s, false)).toBe('"é😀\x7f\ud800\\"\\\\\\n\\u0001"');
  });

  it('indent: empty containers stay [] and {}; negative indent means newlines only', () => {
    // python3: json.dumps({'a': [], 'b': {}, 'c': [1]}, indent=-1)
    expect(pyDumps({ a: [], b: {}, c: [1] }, { indent: -1 })).toBe('{\n"a": [],\n"b": {},\n"c": [\n1\n]\n}');
  });
});

describe('round trips', () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  // every mode except 'tab', whose separators do not make JSON
  const modes = fc.constantFrom(
    ...Object.entries(DUMP_MODES)
      .filter(([k]) => k !== 'tab')
      .map(([, v]) => v),
  );
  it('pyDumps(parseJson(pyDumps(x))) === pyDumps(x)', () => {
    fc.assert(
      fc.property(json, modes, (x, opts) => {
        const once = pyDumps(x, opts);
        expect(pyDumps(parseJson(once), opts)).toBe(once);
      }),
      fcParams(1000),
    );
  });

  it('strip results are fixed points; lstrip/rstrip compose to strip', () => {
    const unit = fc.constantFrom(' ', '\t', '\x1c', '\x85', '\u3000', '\ufeff', '\u200b', 'a', '😀');
    fc.assert(
      fc.property(fc.string({ unit }), (s) => {
        const t = pyStrip(s);
        expect(pyStrip(t)).toBe(t);
        expect(pyLstrip(pyRstrip(s))).toBe(t);
      }),
      fcParams(),
    );
  });
});

describe('speed', () => {
  it('serialises a multi-MB notebook-like value in well under a few seconds', () => {
    const cells = Array.from({ length: 2000 }, (_, i) => ({
      id: String(i),
      source: Array.from({ length: 40 }, () => 'print("héllo\\tworld") # 😀\n'),
      outputs: [{ data: { 'image/png': 'A'.repeat(2000) } }],
    }));
    const t0 = performance.now();
    const out = pyDumps({ cells }, { indent: 1, sortKeys: true, ensureAscii: false });
    expect(performance.now() - t0).toBeLessThan(4000);
    expect(out.length).toBeGreaterThan(5_000_000);
  });
});

describe.skipIf(!HAVE_SHARED)('conformance: notebooks the reference wrote re-serialise byte for byte', () => {
  // SPEC §7: the writer is json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n".
  // Every *.roundtrip.ipynb and *.compact.ipynb was written by it, and so was every input
  // that has no roundtrip file (its round trip must reproduce the input).
  const dir = HAVE_SHARED ? shared('conformance', 'dialogs') : '';
  const files = HAVE_SHARED
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.ipynb'))
        .filter((f) => /\.(roundtrip|compact)\.ipynb$/.test(f) || !existsSync(join(dir, f.replace(/\.ipynb$/, '.roundtrip.ipynb'))))
        .sort()
    : [];
  it('finds the dialogs', () => {
    expect(files.length).toBeGreaterThan(50);
  });
  it.each(files)('%s', (f) => {
    const text = readFileSync(join(dir, f), 'utf8');
    expect(pyDumps(parseJson(text, f), { indent: 1, sortKeys: true, ensureAscii: false }) + '\n').toBe(text);
  });
});
