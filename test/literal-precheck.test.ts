// mayBeLiteral, the first-token test aiOutput runs before literalEval: it may answer false only
// where literalEval throws NotALiteralError, on hand-picked texts, the Python-checked literal
// cases, and generated text.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { join } from 'node:path';
import { FIXTURES, readText, fcParams } from './support.js';
import { NotALiteralError, literalEval } from '../src/python/index.js';
import { mayBeLiteral } from '../src/python/literal-eval.js';
import { aiOutput } from '../src/dialog/ai-output.js';

function accepted(src: string): boolean {
  try {
    literalEval(src);
    return true;
  } catch (e) {
    if (e instanceof NotALiteralError) return false;
    throw e;
  }
}

/** The property: a text said not to be a literal is rejected by the parser. */
function sound(src: string): boolean {
  return mayBeLiteral(src) || !accepted(src);
}

describe('mayBeLiteral', () => {
  it('answers false for texts that fail on their first token', () => {
    for (const t of [
      '',
      ' ',
      '\t \t',
      'hello world',
      'Traceback (most recent call last):',
      '<div>',
      '`x`',
      '| a |',
      '/tmp',
      '=',
      '*',
      '\x1b[0m',
      ')',
      ',',
      ':',
      '@',
      'x',
      '_',
      'Truex',
      'nonE',
      'set1',
      'Falsey',
      'abc(1)',
      '\v1',
      '\0',
    ]) {
      expect([t, mayBeLiteral(t)]).toEqual([t, false]);
      expect(accepted(t)).toBe(false);
    }
  });
  it('leaves to the parser what can begin a literal', () => {
    for (const t of [
      '1',
      '  1',
      '.5',
      "'a'",
      '"a"',
      '(1,)',
      '[1]',
      '{1}',
      '+1',
      '-1',
      'True',
      'None',
      'False',
      'set()',
      'set',
      "b'x'",
      "rb'x'",
      'r"x"',
      "f'x'",
      "abc'x'",
      '#c\n1',
      '\n1',
      '\r\n1',
      '\f1',
      '\\\n1',
      'ｓｅｔ()',
      'éa',
      'Trueé',
      ']',
    ]) {
      expect([t, mayBeLiteral(t)]).toEqual([t, t !== ']']);
    }
  });
  it('is never false for a text Python accepts (literal-cases.json)', () => {
    const data = JSON.parse(readText(join(FIXTURES, 'literal-cases.json'))) as { cases: { src: string; ok: boolean }[] };
    let accepts = 0;
    for (const c of data.cases) {
      if (accepted(c.src)) {
        accepts++;
        expect([c.src, mayBeLiteral(c.src)]).toEqual([c.src, true]);
      }
    }
    expect(accepts).toBeGreaterThan(100);
  });
  it('is never false for a text literalEval accepts (generated text)', () => {
    const alphabet = [...'0123456789_.eE+-()[]{},:\'"\\ \t\n\r\f#abfruTFNsetoNlFa...ñ😀<`|\0\v'];
    const unit = fc.constantFrom(...alphabet);
    fc.assert(fc.property(fc.string({ unit, maxLength: 24 }), sound), fcParams(20000));
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), sound), fcParams(3000));
    const word = fc.constantFrom('True', 'False', 'None', 'set', 'set()', 'b', 'rb', 'f', 'x', '_', 'Tru', 'Nonee', '');
    const rest = fc.string({ unit, maxLength: 12 });
    fc.assert(
      fc.property(fc.constantFrom('', ' ', '\t', '  \t'), word, rest, (a, w, r) => sound(a + w + r)),
      fcParams(5000),
    );
  });
  it('leaves aiOutput as it was', () => {
    const stream = (text: string) => [{ output_type: 'stream', name: 'stdout', text }];
    expect(aiOutput([])).toBe('');
    expect(aiOutput(stream('hello world\n'))).toBe('hello world\n');
    expect(aiOutput(stream("'hello'"))).toBe('hello');
    expect(aiOutput(stream('  (1,2)'))).toBe('(1, 2)');
    expect(aiOutput(stream('None'))).toBe('None');
    expect(aiOutput(stream('<b>x</b>'))).toBe('<b>x</b>');
    expect(aiOutput([{ output_type: 'execute_result', data: { 'text/plain': "{'a': 1}" }, metadata: {} }])).toBe("{'a': 1}");
  });
});
