/**
 * src/python/json.ts: the lossless JSON parser. Expected values come from CPython 3.11
 * (test/fixtures/py-cases.json, written by scripts/gen-py-fixtures.py) and from the
 * conformance data in ../shared (generic_call cases of dsl.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { LosslessNumber, isLosslessNumber } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { JsonParseError } from '../src/errors.js';
import { KEY_ORDER, MAX_JSON_DEPTH, isJsonObject, jsonKeys, parseJson, pyNumberKind, pyRepr, pyStr } from '../src/python/index.js';
import { FIXTURES, HAVE_SHARED, shared, thrown, fcParams } from './support.js';

interface JsonCase {
  text: string;
  generic_call: boolean;
  repr: string;
  str: string;
  dumps: Record<string, string>;
}
interface Fixture {
  json: JsonCase[];
  invalid_json: { text: string; pos: number; msg: string }[];
}
const FX = JSON.parse(readFileSync(join(FIXTURES, 'py-cases.json'), 'utf8')) as Fixture;

describe('parseJson: repr of the parsed value equals Python repr(json.loads(text))', () => {
  it.each(FX.json.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const v = parseJson(c.text);
    expect(pyRepr(v)).toBe(c.repr);
    expect(pyStr(v)).toBe(c.str);
  });
});

describe('parseJson: invalid JSON throws JsonParseError at the position Python reports', () => {
  it.each(FX.invalid_json.map((c) => [JSON.stringify(c.text), c] as const))('%s', (_name, c) => {
    const e = thrown(() => parseJson(c.text, 'case.json'));
    expect(e).toBeInstanceOf(JsonParseError);
    const err = e as JsonParseError;
    expect(err.position).toBe(c.pos);
    expect(err.message).toMatch(/^case\.json: invalid JSON: .+ at line \d+ column \d+ \(char \d+\)$/);
  });

  it('reports line and column (column in code points)', () => {
    const e = thrown(() => parseJson('{\n  "😀": 1,\n}')) as JsonParseError;
    expect(e).toBeInstanceOf(JsonParseError);
    expect(e.message).toBe('invalid JSON: expecting a property name enclosed in double quotes at line 3 column 1 (char 13)');
    const f = thrown(() => parseJson('["😀😀", x]')) as JsonParseError;
    expect(f.message).toBe('invalid JSON: expecting a value at line 1 column 8 (char 9)');
    expect(f.position).toBe(9);
  });

  it('rejects non-string input with a typed error', () => {
    expect(thrown(() => parseJson(42 as unknown as string))).toBeInstanceOf(JsonParseError);
  });

  it('rejects every raw control character inside strings and accepts U+007F', () => {
    for (let c = 0; c < 0x20; c++) {
      const e = thrown(() => parseJson(`"a${String.fromCharCode(c)}b"`)) as JsonParseError;
      expect(e).toBeInstanceOf(JsonParseError);
      expect(e.position).toBe(2);
    }
    expect(parseJson('"a\u007fb"')).toBe('a\u007fb');
  });

  it('nesting: deep but bounded documents parse; deeper ones fail with a typed error', () => {
    const n = MAX_JSON_DEPTH;
    const ok = parseJson('['.repeat(n) + ']'.repeat(n));
    expect(Array.isArray(ok)).toBe(true);
    const e = thrown(() => parseJson('['.repeat(n + 1) + ']'.repeat(n + 1)));
    expect(e).toBeInstanceOf(JsonParseError);
    expect(thrown(() => parseJson('{"a":'.repeat(100_000)))).toBeInstanceOf(JsonParseError);
  });
});

describe('parseJson: values', () => {
  it('numbers keep their lexeme as LosslessNumber', () => {
    const v = parseJson('[1, 1.0, 1E5, -0, -0.0, 12345678901234567890, 1e400, 2.5e-8]') as unknown[];
    expect(v.every((x) => x instanceof LosslessNumber && isLosslessNumber(x))).toBe(true);
    expect(v.map((x) => (x as LosslessNumber).value)).toEqual(['1', '1.0', '1E5', '-0', '-0.0', '12345678901234567890', '1e400', '2.5e-8']);
    expect(v.map(pyNumberKind)).toEqual(['int', 'float', 'float', 'int', 'float', 'int', 'float', 'float']);
  });

  it('NaN, Infinity, -Infinity become JS numbers (Python floats)', () => {
    const v = parseJson('[NaN, Infinity, -Infinity]') as number[];
    expect(Number.isNaN(v[0])).toBe(true);
    expect(v.slice(1)).toEqual([Infinity, -Infinity]);
    expect(v.map(pyNumberKind)).toEqual(['float', 'float', 'float']);
  });

  it('strings: escapes, lone surrogates kept as lone UTF-16 units, pairs joined', () => {
    expect(parseJson('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u00E9"')).toBe('"\\/\b\f\n\r\téé');
    expect(parseJson('"\\ud800"')).toBe('\ud800');
    expect(parseJson('"a\\udc00\\ud800b"')).toBe('a\udc00\ud800b');
    expect(parseJson('"\\ud83d\\ude00"')).toBe('😀');
    expect(parseJson('"😀 raw ünïcode"')).toBe('😀 raw ünïcode');
    expect(parseJson('  \r\n\t"x" \n')).toBe('x');
  });

  it('objects are plain; __proto__ and constructor are ordinary own keys', () => {
    const v = parseJson('{"__proto__": {"polluted": true}, "constructor": 1, "toString": 2, "a": {"__proto__": null}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(isJsonObject(v)).toBe(true);
    expect(Object.keys(v)).toEqual(['__proto__', 'constructor', 'toString', 'a']);
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    expect((v as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(isJsonObject(Object.getOwnPropertyDescriptor(v, '__proto__')!.value)).toBe(true);
    expect(v.constructor).toEqual(new LosslessNumber('1'));
    const inner = v.a as object;
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(inner, '__proto__')!.value).toBeNull();
  });

  it('duplicate keys: last value wins at the first position (Python dict)', () => {
    const v = parseJson('{"a": 1, "b": 2, "a": 3}') as Record<string, LosslessNumber>;
    expect(jsonKeys(v)).toEqual(['a', 'b']);
    expect(v.a.value).toBe('3');
    const w = parseJson('{"2": 1, "1": 2, "2": 3, "__proto__": 1, "__proto__": 4}') as Record<string, LosslessNumber>;
    expect(jsonKeys(w)).toEqual(['2', '1', '__proto__']);
    expect(w['2'].value).toBe('3');
    expect(Object.getOwnPropertyDescriptor(w, '__proto__')!.value.value).toBe('4');
  });

  it('written key order is kept under KEY_ORDER only when Object.keys differs', () => {
    const v = parseJson('{"b": 1, "2": 2, "a": 3, "10": 4}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['2', '10', 'b', 'a']);
    expect(jsonKeys(v)).toEqual(['b', '2', 'a', '10']);
    expect(Object.getOwnPropertyDescriptor(v, KEY_ORDER)!.enumerable).toBe(false);
    expect(JSON.stringify(v)).toBe('{"2":2,"10":4,"b":1,"a":3}'.replace(/(\d)(?=[,}])/g, '{"value":"$1","isLosslessNumber":true}'));
    const plain = parseJson('{"a": 1, "1a": 2, "01": 3, "1": 4}') as object;
    expect(jsonKeys(plain)).toEqual(['a', '1a', '01', '1']);
    expect(Object.keys(plain)).toEqual(['1', 'a', '1a', '01']);
    const sorted = parseJson('{"1": 1, "2": 2, "x": 3}') as object;
    expect(Object.getOwnPropertySymbols(sorted)).toEqual([]);
    expect(jsonKeys(sorted)).toEqual(['1', '2', 'x']);
  });

  it('jsonKeys follows later mutation: deleted keys vanish, added keys follow', () => {
    const v = parseJson('{"b": 1, "2": 2, "a": 3}') as Record<string, unknown>;
    delete v['2'];
    v.c = 4;
    expect(jsonKeys(v)).toEqual(['b', 'a', 'c']);
    expect(jsonKeys({ z: 1, 1: 2 })).toEqual(['1', 'z']);
  });

  it('isJsonObject and pyNumberKind', () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject(Object.create(null))).toBe(true);
    expect(isJsonObject([])).toBe(false);
    expect(isJsonObject(null)).toBe(false);
    expect(isJsonObject(new LosslessNumber('1'))).toBe(false);
    expect(isJsonObject(new Map())).toBe(false);
    expect(isJsonObject(new Date())).toBe(false);
    expect([1, -0, 1.5, 2 ** 53, NaN, 10n, 'x', null].map(pyNumberKind)).toEqual(['int', 'int', 'float', 'float', 'float', 'int', null, null]);
  });
});

describe('parseJson: properties', () => {
  const toNative = (v: unknown): unknown => {
    if (isLosslessNumber(v)) return Number(v.value);
    if (Array.isArray(v)) return v.map(toNative);
    if (isJsonObject(v)) return Object.fromEntries(jsonKeys(v).map((k) => [k, toNative(v[k])]));
    return v;
  };

  it('agrees with JSON.parse on any JSON text (numbers compared as doubles)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (text) => {
        expect(toNative(parseJson(text))).toEqual(JSON.parse(text));
      }),
      fcParams(500),
    );
  });

  it('JSON.stringify output of arbitrary strings reads back unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        expect(parseJson(JSON.stringify(s))).toBe(s);
      }),
      fcParams(500),
    );
  });

  it('is linear: 8 MB of escape-heavy and long-string JSON parses quickly', () => {
    const big = JSON.stringify({
      a: 'x\\"\n'.repeat(1_000_000),
      b: 'y'.repeat(4_000_000),
      c: Array.from({ length: 50_000 }, (_, i) => ({ [String(i)]: 'é' })),
    });
    const t0 = performance.now();
    const v = parseJson(big) as Record<string, unknown>;
    const dt = performance.now() - t0;
    expect((v.a as string).length).toBe(4_000_000);
    expect((v.b as string).length).toBe(4_000_000);
    expect(dt).toBeLessThan(5000);
  });
});

describe.skipIf(!HAVE_SHARED)('conformance: generic_call arguments of dsl.json', () => {
  interface DslCase {
    fn: string;
    args: unknown[];
    expected?: string;
  }
  const cases = HAVE_SHARED ? (JSON.parse(readFileSync(shared('conformance', 'dsl.json'), 'utf8')) as DslCase[]).filter((c) => c.fn === 'generic_call') : [];
  const fxTexts = new Map(FX.json.filter((c) => c.generic_call).map((c) => [c.text, c]));

  it.each(cases.map((c, i) => [i, c] as const))('case %i: arguments parse to the value Python read', (_i, c) => {
    const text = c.args[1] as string;
    const fx = fxTexts.get(text);
    expect(fx, 'fixture is out of date: rerun scripts/gen-py-fixtures.py').toBeDefined();
    const v = parseJson(text);
    expect(pyRepr(v)).toBe(fx!.repr);
    // Where the reference printed the call in full (no truncation, no newline mark), it is
    // `▶ name(k=repr(v), ...)` in written key order: check that independently of the fixture.
    const name = c.args[0] as string;
    const exp = c.expected;
    if (exp?.startsWith(`▶ ${name}(`) && !exp.includes('…') && !exp.includes('¶')) {
      const obj = v as Record<string, unknown>;
      expect(
        `▶ ${name}(${jsonKeys(obj)
          .map((k) => `${k}=${pyRepr(obj[k])}`)
          .join(', ')})`,
      ).toBe(exp);
    }
  });
});
