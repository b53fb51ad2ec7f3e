/**
 * notebook.ts: toNotebookContent / fromNotebookContent (plain `INotebookContent` objects as
 * JupyterLab front ends hold them).
 *
 * Expected values: the conformance dialogs' expected round-trip texts (NNN.roundtrip.ipynb, or
 * the input where the reference reproduces it; none of the 44 holds an integral float or an
 * integer beyond 2^53, checked below) parsed with `JSON.parse`; notebooks/demo.ipynb (written
 * by scripts/make-demo.py in nbformat's form); and small hand-made notebooks whose expected
 * objects and texts were worked out by hand from SPEC §7.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type * as nbformat from '@jupyterlab/nbformat';
import { Dialog } from '../src/dialog/dialog.js';
import { NotebookError } from '../src/errors.js';
import { parseJson } from '../src/python/index.js';
import { dumpsIpynb, fromNotebookContent, readsIpynb, toNotebookContent } from '../src/notebook/index.js';
import { schemaErrors } from './nbschema.js';
import { HAVE_SHARED, ROOT, shared } from './support.js';

/** Ids 00000001, 00000002, ... */
function counter(): () => string {
  let n = 0;
  return () => (++n).toString(16).padStart(8, '0');
}

const SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';

/** Number lexemes (outside strings) of JSON text that a JS number would not write back the same. */
function numberHazards(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/"[^"\\]*(?:\\[\s\S][^"\\]*)*"|-?[0-9][0-9.eE+-]*/g)) {
    const tok = m[0];
    if (tok.startsWith('"')) continue;
    const x = Number(tok);
    if (/[.eE]/.test(tok) ? Number.isSafeInteger(x) : !Number.isSafeInteger(x)) out.push(tok);
  }
  return out;
}

const dir = (...p: string[]): string => shared('conformance', 'dialogs', ...p);
const manifest: { name: string }[] = HAVE_SHARED ? (JSON.parse(readFileSync(dir('manifest.json'), 'utf8')) as { name: string }[]) : [];

/** The text nbformat writes for a conformance dialog (the fixture, not our writer). */
function expectedText(name: string): string {
  const rt = dir(`${name}.roundtrip.ipynb`);
  return readFileSync(existsSync(rt) ? rt : dir(`${name}.ipynb`), 'utf8');
}

describe.skipIf(!HAVE_SHARED)('conformance dialogs', () => {
  it('covers all 44 dialogs, none with a number a JS number changes', () => {
    expect(manifest.length).toBe(44);
    expect(manifest.flatMap((e) => numberHazards(expectedText(e.name)))).toEqual([]);
  });

  it.each(manifest.map((e) => e.name))('%s: toNotebookContent is the fixture text, parsed', (name) => {
    const d = readsIpynb(readFileSync(dir(`${name}.ipynb`), 'utf8'), name, { newId: counter() });
    expect(toNotebookContent(d)).toEqual(JSON.parse(expectedText(name)));
  });

  it.each(manifest.map((e) => e.name))('%s: fromNotebookContent(JSON.parse(text)) writes what readsIpynb(text) writes', (name) => {
    const text = readFileSync(dir(`${name}.ipynb`), 'utf8');
    const viaObject = dumpsIpynb(fromNotebookContent(JSON.parse(text) as nbformat.INotebookContent, name, { newId: counter() }));
    const viaText = dumpsIpynb(readsIpynb(text, name, { newId: counter() }));
    expect(viaObject === viaText).toBe(true);
    if (viaObject !== viaText) expect(viaObject).toEqual(viaText);
  });
});

describe('the demo notebook', () => {
  const text = readFileSync(join(ROOT, 'notebooks', 'demo.ipynb'), 'utf8');

  it('has no number a JS number changes', () => expect(numberHazards(text)).toEqual([]));

  it('toNotebookContent is the file parsed (it is in nbformat form)', () => {
    expect(toNotebookContent(readsIpynb(text, 'demo.ipynb'))).toEqual(JSON.parse(text));
  });

  it('fromNotebookContent(JSON.parse(text)) writes the file back byte for byte', () => {
    expect(dumpsIpynb(fromNotebookContent(JSON.parse(text) as nbformat.INotebookContent, 'demo.ipynb')) === text).toBe(true);
  });

  it.skipIf(!HAVE_SHARED)('the object passes the nbformat 4.5 schema', () => {
    expect(schemaErrors(JSON.stringify(toNotebookContent(readsIpynb(text))))).toBe('');
  });
});

describe('toNotebookContent', () => {
  const make = (): Dialog => {
    const d = new Dialog([], { name: 'made', metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } } });
    d.mkMessage('# Title\nline two', { type: 'note', id: 'n1' });
    d.mkMessage('Question?', { type: 'prompt', id: 'p1', reply: 'Answer.', pinned: true });
    d.mkMessage('print(1)\nx', {
      type: 'code',
      id: 'c1',
      output: [{ output_type: 'stream', name: 'stdout', text: '1\n2\n' }],
      executionCount: 3,
    });
    return d;
  };

  it('gives the object nbformat writes: sorted keys, lines, prompts with solveit_ai', () => {
    expect(toNotebookContent(make())).toEqual({
      cells: [
        { cell_type: 'markdown', id: 'n1', metadata: {}, source: ['# Title\n', 'line two'] },
        {
          cell_type: 'markdown',
          id: 'p1',
          metadata: { pinned: true, solveit_ai: true },
          source: ['Question?\n', '\n', '##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n', '\n', 'Answer.'],
        },
        {
          cell_type: 'code',
          execution_count: 3,
          id: 'c1',
          metadata: {},
          outputs: [{ name: 'stdout', output_type: 'stream', text: ['1\n', '2\n'] }],
          source: ['print(1)\n', 'x'],
        },
      ],
      metadata: { kernelspec: { display_name: 'Python 3', name: 'python3' } },
      nbformat: 4,
      nbformat_minor: 5,
    });
  });

  it('shares nothing with the dialog', () => {
    const d = make();
    const nb = toNotebookContent(d);
    (nb.cells[2]!.outputs as nbformat.IStream[])[0]!.name = 'stderr';
    (nb.metadata.kernelspec as nbformat.IKernelspecMetadata).name = 'changed';
    expect(dumpsIpynb(d)).toBe(dumpsIpynb(make()));
  });

  it('validates first', () => {
    const d = make();
    d.messages[0]!.id = 'bad id';
    expect(() => toNotebookContent(d)).toThrow(NotebookError);
  });

  const numbers = '{"cells": [], "metadata": {"f": 1.0, "g": 2.5, "big": 12345678901234567890, "ok": 9007199254740991}, "nbformat": 4, "nbformat_minor": 5}';

  it('holds JS numbers: an integral float becomes an integer, a big integer is rounded', () => {
    const nb = toNotebookContent(readsIpynb(numbers));
    expect(nb.metadata).toEqual({ big: 12345678901234567168, f: 1, g: 2.5, ok: 9007199254740991 });
    // Read back from the object, 1.0 is the int 1 and the rounded integer a float (Python's repr).
    expect(dumpsIpynb(fromNotebookContent(nb))).toBe(
      '{\n "cells": [],\n "metadata": {\n  "big": 1.2345678901234567e+19,\n  "f": 1,\n  "g": 2.5,\n  "ok": 9007199254740991\n },\n "nbformat": 4,\n "nbformat_minor": 5\n}\n',
    );
    // The text functions keep both.
    expect(dumpsIpynb(readsIpynb(numbers))).toContain('"big": 12345678901234567890,\n  "f": 1.0,');
  });

  it("unsafeIntegers: 'throw' refuses to round, naming the integer", () => {
    expect(() => toNotebookContent(readsIpynb(numbers), { unsafeIntegers: 'throw' })).toThrow(/12345678901234567890/);
    const safe = readsIpynb(numbers.replace('12345678901234567890', '-9007199254740991'));
    expect(toNotebookContent(safe, { unsafeIntegers: 'throw' }).metadata.big).toBe(-9007199254740991);
    // Digits inside strings are not numbers.
    const inString = readsIpynb('{"cells": [], "metadata": {"s": "12345678901234567890"}, "nbformat": 4, "nbformat_minor": 5}');
    expect(toNotebookContent(inString, { unsafeIntegers: 'throw' }).metadata).toEqual({ s: '12345678901234567890' });
  });
});

describe('fromNotebookContent', () => {
  /** What a JupyterLab front end may hold: string sources, nbformat 4.4 without ids, `trusted`. */
  const lab = (): nbformat.INotebookContent => ({
    cells: [
      { cell_type: 'markdown', metadata: { skipped: true }, source: 'A note' },
      { cell_type: 'markdown', metadata: { solveit_ai: true }, source: 'Q' + SEP + 'R' },
      {
        cell_type: 'code',
        metadata: { trusted: true },
        source: 'x = 1\nx',
        outputs: [{ output_type: 'execute_result', execution_count: 1, data: { 'text/plain': '1' }, metadata: {} }],
        execution_count: 1,
      },
      { cell_type: 'raw', metadata: {}, source: ['raw ', 'text'] },
    ],
    metadata: { language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 4,
  });

  it('reads cells with the readsIpynb rules', () => {
    const d = fromNotebookContent(lab(), 'lab', { newId: counter() });
    expect(d.name).toBe('lab');
    expect(d.origNbformatMinor).toBe(4);
    expect(d.messages.map((m) => [m.id, m.type, m.content, m.reply, m.skipped, m.idGenerated])).toEqual([
      ['00000001', 'note', 'A note', '', true, true],
      ['00000002', 'prompt', 'Q', 'R', false, true],
      ['00000003', 'code', 'x = 1\nx', '', false, true],
      ['00000004', 'raw', 'raw text', '', false, true],
    ]);
  });

  it('writes what readsIpynb writes for the same notebook as text', () => {
    const text = JSON.stringify(lab());
    expect(dumpsIpynb(fromNotebookContent(lab(), 'lab', { newId: counter() }))).toBe(dumpsIpynb(readsIpynb(text, 'lab', { newId: counter() })));
  });

  it('writes the hand-worked nbformat text', () => {
    const out = dumpsIpynb(fromNotebookContent(lab(), 'lab', { newId: counter() }));
    expect(out).toBe(
      [
        '{',
        ' "cells": [',
        '  {',
        '   "cell_type": "markdown",',
        '   "id": "00000001",',
        '   "metadata": {',
        '    "skipped": true',
        '   },',
        '   "source": [',
        '    "A note"',
        '   ]',
        '  },',
        '  {',
        '   "cell_type": "markdown",',
        '   "id": "00000002",',
        '   "metadata": {',
        '    "solveit_ai": true',
        '   },',
        '   "source": [',
        '    "Q\\n",',
        '    "\\n",',
        '    "##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\\n",',
        '    "\\n",',
        '    "R"',
        '   ]',
        '  },',
        '  {',
        '   "cell_type": "code",',
        '   "execution_count": 1,',
        '   "id": "00000003",',
        '   "metadata": {},',
        '   "outputs": [',
        '    {',
        '     "data": {',
        '      "text/plain": [',
        '       "1"',
        '      ]',
        '     },',
        '     "execution_count": 1,',
        '     "metadata": {},',
        '     "output_type": "execute_result"',
        '    }',
        '   ],',
        '   "source": [',
        '    "x = 1\\n",',
        '    "x"',
        '   ]',
        '  },',
        '  {',
        '   "cell_type": "raw",',
        '   "id": "00000004",',
        '   "metadata": {},',
        '   "source": [',
        '    "raw text"',
        '   ]',
        '  }',
        ' ],',
        ' "metadata": {',
        '  "language_info": {',
        '   "name": "python"',
        '  }',
        ' },',
        ' "nbformat": 4,',
        ' "nbformat_minor": 5',
        '}',
        '',
      ].join('\n'),
    );
    if (HAVE_SHARED) expect(schemaErrors(out)).toBe('');
  });

  it('does not modify or share the caller object', () => {
    const nb = lab();
    const copy = JSON.parse(JSON.stringify(nb)) as unknown;
    const d = fromNotebookContent(nb);
    expect(nb).toEqual(copy);
    d.messages[2]!.output.length = 0;
    d.metadata.language_info = 'x';
    expect(nb).toEqual(copy);
  });

  it('accepts LosslessNumbers (an object from parseJson) and keeps their kind', () => {
    const text = '{"cells": [], "metadata": {"f": 1.0, "big": 12345678901234567890}, "nbformat": 4, "nbformat_minor": 5}';
    const d = fromNotebookContent(parseJson(text) as nbformat.INotebookContent);
    expect(dumpsIpynb(d)).toBe(dumpsIpynb(readsIpynb(text)));
    expect(dumpsIpynb(d)).toContain('"big": 12345678901234567890,\n  "f": 1.0\n');
  });

  it('round-trips toNotebookContent', () => {
    const text = readFileSync(join(ROOT, 'notebooks', 'demo.ipynb'), 'utf8');
    const d = readsIpynb(text);
    expect(dumpsIpynb(fromNotebookContent(toNotebookContent(d)))).toBe(dumpsIpynb(d));
  });

  const bad: [string, unknown, string][] = [
    ['not an object', [], 'not a notebook'],
    ['nbformat 3', { nbformat: 3, nbformat_minor: 0, cells: [], metadata: {} }, 'unsupported nbformat 3'],
    ['cells not a list', { nbformat: 4, nbformat_minor: 5, cells: {}, metadata: {} }, 'cells is an object, not a list'],
    ['a bad cell type', { nbformat: 4, nbformat_minor: 5, cells: [{ cell_type: 'heading', source: '' }], metadata: {} }, 'unknown cell type "heading"'],
    [
      'a non-string source',
      { nbformat: 4, nbformat_minor: 5, cells: [{ cell_type: 'raw', source: 3, metadata: {} }], metadata: {} },
      'source must be a string or a list of strings',
    ],
  ];
  it.each(bad)('rejects %s with a NotebookError naming the notebook', (_what, nb, msg) => {
    let err: unknown;
    try {
      fromNotebookContent(nb as nbformat.INotebookContent, 'given');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NotebookError);
    expect((err as NotebookError).file).toBe('given');
    expect((err as Error).message).toContain(msg);
  });
});

describe('browser safety', () => {
  it.each(['read.ts', 'content.ts'])('notebook/%s loads nothing from @jupyterlab/nbformat at run time', (file) => {
    const source = readFileSync(join(ROOT, 'src', 'notebook', file), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    expect(source).toContain("import type * as nbformat from '@jupyterlab/nbformat';");
    expect(js).not.toContain('@jupyterlab');
    expect(js).not.toMatch(/from ['"]node:/);
  });
});
