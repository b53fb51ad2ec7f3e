import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DlgError, InvalidArgumentError } from '../src/errors.js';
import { isJsonObject, parseJson } from '../src/python/index.js';
import { aiOutput, normalizeLatex, renderOutputsAi, renderTerminal, stripAnsi } from '../src/dialog/ai-output.js';
import { cpuMs, HAVE_SHARED, readText, shared, fcParams } from './support.js';

const stream = (text: string | string[], name = 'stdout') => ({ output_type: 'stream', name, text });
const result = (data: Record<string, unknown>) => ({ output_type: 'execute_result', data, metadata: {}, execution_count: 1 });
const display = (data: Record<string, unknown>) => ({ output_type: 'display_data', data, metadata: {} });
const error = (traceback: string[]) => ({ output_type: 'error', ename: 'E', evalue: 'v', traceback });

/** First difference of two strings, with some context, for failure messages. */
function diffSnippet(got: string, want: string): string {
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const from = Math.max(0, i - 80);
  return (
    `first difference at ${i} (got ${got.length} units, expected ${want.length})\n` +
    `  got:      ${JSON.stringify(got.slice(from, i + 120))}\n  expected: ${JSON.stringify(want.slice(from, i + 120))}`
  );
}

describe.skipIf(!HAVE_SHARED)('aiOutput vs conformance dialogs (NNN.parts.json code_outputs)', () => {
  const manifest = HAVE_SHARED ? (JSON.parse(readText(shared('conformance', 'dialogs', 'manifest.json'))) as { name: string }[]) : [];
  it('covers all 44 dialogs', () => {
    expect(manifest.length).toBe(44);
  });
  it.each(manifest.map((m) => m.name))('dialog %s', (name) => {
    const nb = parseJson(readText(shared('conformance', 'dialogs', `${name}.ipynb`))) as { cells: unknown[] };
    const parts = JSON.parse(readText(shared('conformance', 'dialogs', `${name}.parts.json`))) as {
      code_outputs: { id: string; ai_output: string }[];
    };
    const expected = new Map(parts.code_outputs.map((c) => [c.id, c.ai_output]));
    const codeCells = nb.cells.filter((c) => isJsonObject(c) && c.cell_type === 'code') as Record<string, unknown>[];
    // Every code cell of these notebooks has an id, and parts.json lists exactly those ids
    // (a cell without an id would get a generated one, which could not be matched).
    expect(codeCells.map((c) => c.id).sort()).toEqual([...expected.keys()].sort());
    for (const cell of codeCells) {
      const id = cell.id as string;
      const got = aiOutput((cell.outputs ?? []) as unknown[]);
      const want = expected.get(id) as string;
      if (got !== want) expect.fail(`cell ${id}: ${diffSnippet(got, want)}`);
    }
  });
});

describe('stream rendering', () => {
  it('concatenates streams per name: stdout then stderr, after display outputs, before results', () => {
    const outs = [
      stream('a\n'),
      result({ 'text/plain': "'r'" }),
      stream('e1\n', 'stderr'),
      display({ 'text/plain': 'd' }),
      stream('b\n'),
      error(['tb']),
      stream('x', 'other'),
    ];
    expect(renderOutputsAi(outs)).toBe("d\na\nb\n\ne1\n\n'r'\ntb");
  });
  it('applies carriage returns and backspaces as a terminal leaves the text', () => {
    expect(renderTerminal('10%\r50%\r100%\ndone')).toBe('100%\ndone');
    expect(renderTerminal('abc\r\r\n')).toBe('abc\n');
    expect(renderTerminal('abc\rxy')).toBe('xy');
    expect(renderTerminal('... -\b \b\\\b \bdone')).toBe('... done');
    expect(renderTerminal('\bab\b\b\bc')).toBe('c');
    expect(renderTerminal('x😀\by')).toBe('xy');
    expect(aiOutput([stream(['Obtaining\r\n', '  Installing ... \x1b[?25l-']), stream('\b \bdone\r\n')])).toBe('Obtaining\n  Installing ... done\n');
  });
  it('strips ANSI CSI sequences but keeps OSC ones', () => {
    expect(stripAnsi('\x1b[1m\x1b[34mbold\x1b[39m\x1b[22m')).toBe('bold');
    expect(stripAnsi('\x1b]0;title\x07x')).toBe('\x1b]0;title\x07x');
    expect(stripAnsi('\x1b[12\x1b[3m')).toBe('3m');
    expect(stripAnsi('\x1b[12\nm')).toBe('\x1b[12\nm');
    expect(stripAnsi('a\x1b[\rm b')).toBe('a b');
  });
});

describe('data outputs', () => {
  it('prefers markdown, HTML, JavaScript, LaTeX, then plain text; never images', () => {
    const all = { 'text/plain': 'p', 'text/latex': '$x$', 'application/javascript': 'js', 'text/html': '<b>', 'text/markdown': '*m*' };
    expect(aiOutput([display(all)])).toBe('*m*');
    const { 'text/markdown': _m, ...noMd } = all;
    expect(aiOutput([display(noMd)])).toBe('<b>');
    const { 'text/html': _h, ...noHtml } = noMd;
    expect(aiOutput([display(noHtml)])).toBe('<script>js</script>');
    const { 'application/javascript': _j, ...noJs } = noHtml;
    expect(aiOutput([display(noJs)])).toBe('\\(x\\)');
    expect(aiOutput([display({ 'image/png': 'iVBOR', 'text/plain': '<Figure>' })])).toBe('<Figure>');
    expect(aiOutput([display({ 'image/png': 'iVBOR' }), stream('s')])).toBe('\ns');
  });
  it('skips empty payloads and joins lists of lines', () => {
    expect(aiOutput([display({ 'text/markdown': '', 'text/html': [], 'text/plain': ['a\n', 'b'] })])).toBe('a\nb');
    expect(aiOutput([display({ 'text/markdown': [''], 'text/plain': 'p' })])).toBe('p');
    expect(aiOutput([result({})])).toBe('');
  });
  it('keeps HTML and markdown verbatim, strips ANSI from plain text', () => {
    expect(aiOutput([display({ 'text/html': '<p>\x1b[1m</p>' })])).toBe('<p>\x1b[1m</p>');
    expect(aiOutput([result({ 'text/plain': '\x1b[31mred\x1b[0m' })])).toBe('red');
  });
  it('re-delimits LaTeX', () => {
    expect(normalizeLatex('$$x$$')).toBe('\\[x\\]');
    expect(normalizeLatex('$x$')).toBe('\\(x\\)');
    expect(normalizeLatex('$$')).toBe('\\(\\)');
    expect(normalizeLatex('$$$')).toBe('\\($\\)');
    expect(normalizeLatex('\\[a\\]b\\]')).toBe('\\[a\\]b\\]');
    expect(normalizeLatex('\\(y\\)')).toBe('\\(y\\)');
    expect(normalizeLatex('\\begin{align*}a\\end{align*}')).toBe('\\[\\begin{align*}a\\end{align*}\\]');
    expect(normalizeLatex('x^2')).toBe('\\(x^2\\)');
    expect(normalizeLatex('')).toBe('');
  });
  it('renders tracebacks joined by newlines without ANSI', () => {
    expect(aiOutput([error(['\x1b[0;31mValueError\x1b[0m', 'line'])])).toBe('ValueError\nline');
    expect(aiOutput([{ output_type: 'error', ename: 'E', evalue: '' }])).toBe('');
  });
  it('describes outputs of unknown type as the reference does', () => {
    expect(aiOutput([{ output_type: 'weird', n: 1 }])).toBe("Error: Failed to parse unknown output - {'output_type': 'weird', 'n': 1}");
  });
});

describe('the literal step', () => {
  it('replaces a whole Python literal by its str()', () => {
    expect(aiOutput([result({ 'text/plain': "'hello'" })])).toBe('hello');
    expect(aiOutput([result({ 'text/plain': '(1,2)' })])).toBe('(1, 2)');
    expect(aiOutput([result({ 'text/plain': "{'b', 'a', 'b'}" })])).toBe("{'b', 'a'}");
    expect(aiOutput([result({ 'text/plain': "{'a': 1,\n 'b': [1.50, 2]}" })])).toBe("{'a': 1, 'b': [1.5, 2]}");
    expect(aiOutput([stream('  42\n')])).toBe('42');
    expect(aiOutput([stream('1\n'), result({ 'text/plain': '2' })])).toBe('1\n\n2');
  });
  it('keeps text that is not a literal', () => {
    expect(aiOutput([result({ 'text/plain': "dict_keys(['a'])" })])).toBe("dict_keys(['a'])");
    expect(aiOutput([stream('hello world\n')])).toBe('hello world\n');
    expect(aiOutput([result({ 'text/plain': "'\\N{EM DASH}'" })])).toBe("'\\N{EM DASH}'");
    expect(aiOutput([])).toBe('');
  });
});

describe('malformed outputs', () => {
  it('throws InvalidArgumentError naming the output', () => {
    expect(() => aiOutput('x' as unknown as unknown[])).toThrow(InvalidArgumentError);
    expect(() => aiOutput([1])).toThrow(/output 0: expected an object/);
    expect(() => aiOutput([{ text: 'x' }])).toThrow(/output 0: missing "output_type"/);
    expect(() => aiOutput([stream('a'), { output_type: 'stream', name: 'stdout' }])).toThrow(/output 1: a stream needs "text"/);
    expect(() => aiOutput([{ output_type: 'stream', text: 'x' }])).toThrow(/string "name"/);
    expect(() => aiOutput([stream([1 as unknown as string])])).toThrow(InvalidArgumentError);
    expect(() => aiOutput([{ output_type: 'error', traceback: 'abc' }])).toThrow(/traceback/);
    expect(() => aiOutput([display({ 'text/html': { a: 1 } })])).toThrow(/text\/html/);
    expect(() => aiOutput([{ output_type: 'display_data', data: 'x' }])).toThrow(/"data" must be an object/);
  });
});

describe('aiOutput robustness and speed', () => {
  const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }));
  const mime = fc.constantFrom('text/plain', 'text/html', 'text/markdown', 'text/latex', 'application/javascript', 'image/png');
  const output = fc.oneof(
    fc.record({ output_type: fc.constant('stream'), name: fc.constantFrom('stdout', 'stderr', 'x'), text }),
    fc.record({ output_type: fc.constantFrom('display_data', 'execute_result'), data: fc.dictionary(mime, text) }),
    fc.record({ output_type: fc.constant('error'), traceback: fc.array(fc.string({ unit: 'binary', maxLength: 30 }), { maxLength: 3 }) }),
  );
  it('never throws on well-formed outputs with arbitrary text', () => {
    fc.assert(
      fc.property(fc.array(output, { maxLength: 6 }), (outs) => typeof aiOutput(outs) === 'string'),
      fcParams(3000),
    );
  });
  it('throws only typed errors on arbitrary JSON values', () => {
    const arbitrary = fc.array(
      fc.oneof(
        output,
        fc.jsonValue() as fc.Arbitrary<unknown>,
        fc.dictionary(fc.constantFrom('output_type', 'name', 'text', 'data', 'traceback'), fc.jsonValue()),
      ),
      { maxLength: 5 },
    );
    fc.assert(
      fc.property(arbitrary, (outs) => {
        try {
          aiOutput(outs);
        } catch (e) {
          if (!(e instanceof DlgError)) throw e;
        }
        return true;
      }),
      fcParams(3000),
    );
  });
  it('handles megabytes of output in linear time', () => {
    const tb = Array.from({ length: 60_000 }, (_, i) => `\x1b[0;32m  File "f${i}.py", line ${i}\x1b[0m in <module>`);
    const html = '<table>' + '<tr><td>1</td><td>2</td></tr>'.repeat(150_000) + '</table>';
    const progress = Array.from({ length: 100_000 }, (_, i) => `\r${i % 100}% |${'#'.repeat(i % 50)}`).join('') + '\n';
    const t0 = cpuMs();
    expect(aiOutput([error(tb)]).length).toBeGreaterThan(1_000_000);
    expect(aiOutput([display({ 'text/html': html })])).toBe(html);
    expect(aiOutput([stream(progress)])).toBe(`99% |${'#'.repeat(49)}\n`);
    // the first sequence ends at the second `[` (which is in @..~), as Python's regex does
    const esc = '\x1b[' + '1'.repeat(2_000_000) + '\x1b[' + '2'.repeat(2_000_000);
    expect(aiOutput([stream(esc)]).length).toBe(2_000_000);
    // CPU time, a generous bound; quadratic behaviour would take minutes
    expect(cpuMs() - t0).toBeLessThan(8000);
  });
});
