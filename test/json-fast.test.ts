/**
 * The fast lossless parse (src/python/json-fast.ts) gives what `parseJson` gives: the same value
 * (number lexemes, key order, `__proto__` keys) or the same error, for valid and broken JSON.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLosslessNumber, jsonKeys, parseJson } from '../src/python/index.js';
import { parseJsonFast } from '../src/python/json-fast.js';
import { fcParams } from './fc-seed.js';

/** What a parse gives, in a form `toEqual` compares strictly: values with lexemes and key order, or the error. */
function outcome(parse: () => unknown): unknown {
  const shape = (v: unknown): unknown => {
    if (isLosslessNumber(v)) return { lexeme: v.value };
    if (Array.isArray(v)) return v.map(shape);
    if (v !== null && typeof v === 'object') return { keys: jsonKeys(v as Record<string, unknown>).map((k) => [k, shape((v as Record<string, unknown>)[k])]) };
    return v;
  };
  try {
    return { value: shape(parse()) };
  } catch (e) {
    return { error: (e as Error).constructor.name, message: (e as Error).message };
  }
}

const LEXEMES = ['0', '-0', '7', '1.0', '1e5', '1E+2', '-2.5e-3', '12345678901234567890', '1e400', 'NaN', '-Infinity', '01', '1.', '.5', '- 1'];
const KEYS = ['a', 'b', '0', '10', '2', '__proto__', 'a\\u0062', '', 'é'];
const STRS = ['"x"', '"\\n"', '"\\"q\\""', '"\\\\"', '"\\ud800"', '"tab\\t"', '"unclosed', '"\u2028"'];

const jsonish: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...LEXEMES, ...STRS, 'true', 'false', 'null'),
    fc.array(tie('v'), { maxLength: 3 }).map((a) => `[${a.join(',')}]`),
    fc.array(fc.tuple(fc.constantFrom(...KEYS), tie('v')), { maxLength: 3 }).map((es) => `{${es.map(([k, v]) => `"${k}": ${v}`).join(', ')}}`),
  ),
})).v;

describe('parseJsonFast', () => {
  it('gives what parseJson gives, values and errors', () => {
    fc.assert(
      fc.property(jsonish, fc.constantFrom('', ' ', '\n', 'x', ','), (text, tail) => {
        const t = text + tail;
        expect(outcome(() => parseJsonFast(t))).toEqual(outcome(() => parseJson(t)));
        expect(outcome(() => parseJsonFast(t, 'src.json'))).toEqual(outcome(() => parseJson(t, 'src.json')));
      }),
      fcParams(500),
    );
  });

  it('gives what parseJson gives for the valid JSON fast-check writes', () => {
    fc.assert(
      fc.property(fc.json(), (t) => {
        expect(outcome(() => parseJsonFast(t))).toEqual(outcome(() => parseJson(t)));
      }),
      fcParams(300),
    );
  });

  it('keeps lexemes, key order and __proto__ keys, and fails as parseJson does', () => {
    const v = parseJsonFast('{"b": 1.0, "a": [1e5, -0], "__proto__": {"x": 2}}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['b', 'a', '__proto__']);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(outcome(() => v)).toEqual(outcome(() => parseJson('{"b": 1.0, "a": [1e5, -0], "__proto__": {"x": 2}}')));
    expect(outcome(() => parseJsonFast('{"a": 1, "a": 2}'))).toEqual(outcome(() => parseJson('{"a": 1, "a": 2}')));
    expect(outcome(() => parseJsonFast('[1,]', 'f.json'))).toEqual(outcome(() => parseJson('[1,]', 'f.json')));
    expect(outcome(() => parseJsonFast('[NaN]'))).toEqual(outcome(() => parseJson('[NaN]')));
    const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
    expect(outcome(() => parseJsonFast(deep))).toEqual(outcome(() => parseJson(deep)));
  });

  it('takes a tree without numbers as JSON.parse makes it only where parseJson makes the same', () => {
    const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
    const cases = [
      // duplicate keys without numbers: the last value at the first key's place
      '{"a": "x", "b": true, "a": null}',
      '{"__proto__": "x", "b": [], "__proto__": {"c": "y"}}',
      // a duplicate's dropped value holding a number
      '{"a": 1.0, "b": "y", "a": "x"}',
      // a dropped value nested too deep (and one just deep enough), in a short and a long text
      `{"a": ${deep(1000)}, "a": "x"}`,
      `{"a": ${deep(999)}, "a": "x"}`,
      `{"a": ${deep(1001)}, "a": "x"}`,
      `{"pad": "${'['.repeat(1500)}", "a": ${deep(999)}, "a": "x"}`,
      `{"pad": "${' '.repeat(3000)}", "a": ${deep(1001)}, "a": "x"}`,
      // more brackets than levels allowed, in strings: with and without a duplicate key
      `{"pad": "${'['.repeat(1500)}", "a": ${deep(1001)}, "a": "x"}`,
      `{"pad": "${'{'.repeat(1500)}", "a": ${deep(999)}, "b": "x"}`,
      // keys that decode to array indices, and ones that do not
      '{"b": "y", "\\u0031": "x"}',
      '{"b": "y", "1\\u0030": "x"}',
      '{"b": "y", "01": "x", "1a": "z"}',
      '{"b": {"4294967295": "y", "4294967294": "x"}}',
      // escaped keys that are no index
      '{"b": "y", "\\u0061": "x", "a": "z"}',
    ];
    for (const t of cases) expect(outcome(() => parseJsonFast(t))).toEqual(outcome(() => parseJson(t)));
  });
});
