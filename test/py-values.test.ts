/**
 * Python semantics of single JSON-like values: `bool(v)` (src/python/truthy.ts) and the number
 * text of `json.dumps` (src/python/numbers.ts). Every expected value is what CPython 3.11 gives
 * for `bool(json.loads(text))` / `json.dumps(json.loads(text))` of the value's JSON text (or of
 * the equivalent Python value for JS-only inputs: `undefined` stands for a missing key, `None`).
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { LosslessNumber, parseJson, pyJsonNumber, pyTruthy } from '../src/python/index.js';

describe('pyTruthy', () => {
  const cases: [string, unknown, boolean][] = [
    ['null', null, false],
    ['undefined', undefined, false],
    ['false', false, false],
    ['true', true, true],
    ['JS 0', 0, false],
    ['JS -0', -0, false],
    ['JS 0.5', 0.5, true],
    ['JS -1', -1, true],
    ['NaN', NaN, true],
    ['Infinity', Infinity, true],
    ['-Infinity', -Infinity, true],
    ['0n', 0n, false],
    ['-0n', -0n, false],
    ['1n', 1n, true],
    ['2^64 as bigint', 18446744073709551616n, true],
    ['LosslessNumber 0', new LosslessNumber('0'), false],
    ['LosslessNumber -0', new LosslessNumber('-0'), false],
    ['LosslessNumber 0.0', new LosslessNumber('0.0'), false],
    ['LosslessNumber -0.0', new LosslessNumber('-0.0'), false],
    ['LosslessNumber 0e5', new LosslessNumber('0e5'), false],
    ['LosslessNumber 1e-400 (underflows to 0.0)', new LosslessNumber('1e-400'), false],
    ['LosslessNumber 1e-300', new LosslessNumber('1e-300'), true],
    ['LosslessNumber 1e999 (inf)', new LosslessNumber('1e999'), true],
    ['LosslessNumber 1', new LosslessNumber('1'), true],
    ['LosslessNumber 12345678901234567890', new LosslessNumber('12345678901234567890'), true],
    ["''", '', false],
    ["'0'", '0', true],
    ["'False'", 'False', true],
    ["' '", ' ', true],
    ['[]', [], false],
    ['[0]', [0], true],
    ['[null]', [null], true],
    ['{}', {}, false],
    ['{a: 0}', { a: 0 }, true],
    ['{} without prototype', Object.create(null), false],
  ];
  it.each(cases)('%s', (_label, v, want) => {
    expect(pyTruthy(v)).toBe(want);
  });

  it('agrees with Python on parsed JSON (numbers arrive as LosslessNumber)', () => {
    const text = '[0, -0, 0.0, -0.0, 0E0, 1, 0.1, -1e-5, 1e-400, "", "x", [], [[]], {}, {"": null}, null, false, true, NaN, Infinity]';
    const want = [false, false, false, false, false, true, true, true, false, false, true, false, true, false, true, false, false, true, true, true];
    expect((parseJson(text) as unknown[]).map(pyTruthy)).toEqual(want);
  });
});

describe('pyJsonNumber', () => {
  const lossless: [string, string][] = [
    ['0', '0'],
    ['-0', '0'],
    ['1', '1'],
    ['-5', '-5'],
    ['12345678901234567890', '12345678901234567890'],
    ['1.0', '1.0'],
    ['-0.0', '-0.0'],
    ['1e5', '100000.0'],
    ['1E-7', '1e-07'],
    ['1.5e300', '1.5e+300'],
    ['1e999', 'Infinity'],
    ['-1e999', '-Infinity'],
    ['0.1', '0.1'],
    ['123456789012345678.0', '1.2345678901234568e+17'],
  ];
  it.each(lossless)('LosslessNumber %s -> %s', (lexeme, want) => {
    expect(pyJsonNumber(new LosslessNumber(lexeme))).toBe(want);
  });

  const js: [string, unknown, string][] = [
    ['0', 0, '0'],
    ['-0 (an int)', -0, '0'],
    ['0.5', 0.5, '0.5'],
    ['1e16 (not a safe integer: a float)', 1e16, '1e+16'],
    ['1e-5', 1e-5, '1e-05'],
    ['NaN', NaN, 'NaN'],
    ['Infinity', Infinity, 'Infinity'],
    ['-Infinity', -Infinity, '-Infinity'],
    ['2^53 + 1 as bigint', 9007199254740993n, '9007199254740993'],
  ];
  it.each(js)('%s', (_label, v, want) => {
    expect(pyJsonNumber(v)).toBe(want);
  });

  it('rejects values that are not numbers', () => {
    for (const v of ['1', null, true, [], {}]) expect(() => pyJsonNumber(v)).toThrow(InvalidArgumentError);
  });
});
