/**
 * The native path of `dumpsIpynb` (src/notebook/write-native.ts) against the value-by-value
 * writer (`writerText` in src/notebook/write.ts), which defines the written text: the same
 * text for every dialog, whether the native path writes it or gives up.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPLY_SEPARATOR as SEP } from '../src/chat/index.js';
import { compactDialog } from '../src/dialog/compact.js';
import { Dialog } from '../src/dialog/dialog.js';
import { Message } from '../src/dialog/message.js';
import { flatNotebook } from '../src/notebook/flat-notebook.js';
import { readsIpynb, readsIpynbBytes } from '../src/notebook/read.js';
import { isSplitList, nativeIpynbText, splitLines } from '../src/notebook/write-native.js';
import { dumpsIpynb, writerText } from '../src/notebook/write.js';
import { NotebookError } from '../src/errors.js';
import { LosslessNumber, pySplitlines } from '../src/python/index.js';
import { fcParams } from './fc-seed.js';
import { HAVE_SHARED, shared } from './support.js';

/** Characters that matter to line splitting and escaping, and a few plain ones. */
const CHARS = ['a', 'b', ' ', '\n', '\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029', '\\', '"', 'n', 'é', '😀', '\ud800', '\t', '\x00'];
const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 24 }).map((a) => a.join(''));
/** Lists of strings, many of them already split into lines, some not. */
const lineList = fc.oneof(
  fc.array(text, { maxLength: 5 }),
  text.map((s) => splitLines(s)),
  fc.array(fc.constantFrom('x\n', 'y\n', 'z', '', '\r', '\n', 'a\r', 'b\r\n'), { maxLength: 5 }),
);

/** Number lexemes: ones whose JS text is Python's and ones whose text differs. */
const LEXEMES = ['0', '1', '-0', '42', '1.0', '0.5', '-2.5', '1e5', '1E-7', '1e-05', '3.14', '12345678901234567890', '-1.5e+300', '0.1', '1e400', '-1e400'];
const KEYS = ['a', 'b', 'B', 'text', 'z', '0', '7', '10', '01', '4294967295', '__proto__', 'text/plain', 'é', ' ', '_'];

type Gen = { kind: 'num'; lex: string } | string | boolean | null | Gen[] | { kind: 'obj'; entries: [string, Gen][] };
/** JSON text of a generated value (numbers written as their lexemes). */
function json(v: Gen): string {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(json).join(', ')}]`;
  if (v.kind === 'num') return v.lex;
  return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}: ${json(x)}`).join(', ')}}`;
}

const obj = (entries: [string, string][]) => `{${entries.map(([k, x]) => `${JSON.stringify(k)}: ${x}`).join(', ')}}`;
/**
 * Generated notebook texts whose values use these number lexemes and object keys (both decide
 * whether the native view writes a value itself or leaves the notebook to the writer).
 */
function notebookTexts(LEXEMES: readonly string[], KEYS: readonly string[]): fc.Arbitrary<string> {
  const value: fc.Arbitrary<Gen> = fc.letrec<{ v: Gen }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(...LEXEMES).map((lex) => ({ kind: 'num' as const, lex })),
      fc.array(tie('v'), { maxLength: 3 }),
      fc
        .uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie('v')), { maxLength: 4, selector: ([k]) => k })
        .map((entries) => ({ kind: 'obj' as const, entries })),
    ),
  })).v;

  const metaObj = fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS, 'skipped', 'pinned', 'solveit_ai', 'trusted'), value), {
    maxLength: 3,
    selector: ([k]) => k,
  });
  const metaJson = metaObj.map((es) => obj(es.map(([k, x]) => [k, json(x)])));
  const linesJson = fc.oneof(
    text.map((s) => JSON.stringify(s)),
    lineList.map((a) => JSON.stringify(a)),
  );
  const bundle = fc
    .uniqueArray(
      fc.tuple(
        fc.constantFrom('text/plain', 'text/html', 'image/svg+xml', 'application/json', 'image/png', 'application/javascript', 'application/vnd.x+json'),
        fc.oneof(linesJson, value.map(json)),
      ),
      {
        maxLength: 3,
        selector: ([k]) => k,
      },
    )
    .map((es) => obj(es));
  const output = fc.oneof(
    fc.tuple(fc.constantFrom('stdout', 'stderr'), linesJson).map(([name, t]) =>
      obj([
        ['output_type', '"stream"'],
        ['name', JSON.stringify(name)],
        ['text', t],
      ]),
    ),
    fc
      .tuple(fc.constantFrom('execute_result', 'display_data'), bundle, metaJson, fc.boolean())
      .map(([ot, data, md, type]) =>
        obj([
          ['output_type', JSON.stringify(ot)],
          ['data', data],
          ['metadata', type ? md.replace(/^\{/, md === '{}' ? '{"__type": 1' : '{"__type": 1, ') : md],
          ...(ot === 'execute_result' ? ([['execution_count', '3']] as [string, string][]) : []),
        ]),
      ),
    fc.tuple(text, lineList).map(([ev, tb]) =>
      obj([
        ['output_type', '"error"'],
        ['ename', '"E"'],
        ['evalue', JSON.stringify(ev)],
        ['traceback', JSON.stringify(tb)],
      ]),
    ),
    fc.tuple(fc.constantFrom('', 'other'), lineList).map(([ot, t]) =>
      obj([
        ['output_type', JSON.stringify(ot)],
        ['text', JSON.stringify(t)],
      ]),
    ),
  );
  const sourceJson = fc.oneof(
    linesJson,
    fc.tuple(text, text).map(([p, r]) => JSON.stringify(p + SEP + r)),
    fc.tuple(text, text).map(([p, r]) => JSON.stringify(splitLines(p + SEP + r))),
  );
  const cell = fc
    .tuple(
      fc.constantFrom('code', 'markdown', 'raw'),
      fc.option(fc.constantFrom('c1', 'c2', 'cell-3'), { nil: undefined }),
      metaJson,
      sourceJson,
      fc.array(output, { maxLength: 3 }),
      fc.option(value, { nil: undefined }),
      fc.boolean(),
    )
    .map(([ct, id, md, src, outs, extra, withCount]) => {
      const es: [string, string][] = [['cell_type', JSON.stringify(ct)]];
      if (id !== undefined) es.push(['id', JSON.stringify(id)]);
      es.push(['metadata', md], ['source', src]);
      if (ct === 'code') {
        es.push(['outputs', `[${outs.join(', ')}]`]);
        if (withCount) es.push(['execution_count', '7']);
      }
      if (ct !== 'code' && withCount)
        es.push([
          'attachments',
          obj([
            [
              'x.png',
              obj([
                ['image/png', '"iVBOR"'],
                ['text/plain', '["a\\n", "b"]'],
              ]),
            ],
          ]),
        ]);
      if (extra !== undefined) es.push(['zextra', json(extra)]);
      return obj(es);
    });
  return fc
    .tuple(fc.array(cell, { maxLength: 5 }), metaJson, fc.option(value, { nil: undefined }))
    .map(([cells, md, extra]) =>
      obj([
        ['cells', `[${cells.join(', ')}]`],
        ['metadata', md.replace(/^\{/, md === '{}' ? '{"orig_nbformat": 3' : '{"signature": "s", ')],
        ['nbformat', '4'],
        ['nbformat_minor', '5'],
        ...(extra !== undefined ? ([['extra_top', json(extra)]] as [string, string][]) : []),
      ]),
    );
}

/** Lexemes and keys that the native view writes itself (none JS spells otherwise; no array-index or `__proto__` key). */
const TAME_LEXEMES = ['0', '1', '42', '0.5', '-2.5', '3.14', '0.1'];
const TAME_KEYS = ['a', 'b', 'B', 'text', 'z', '01', 'text/plain', 'é', ' ', '_'];
/** Notebooks with every kind of value, and notebooks that the native view can write whole. */
const notebookText = fc.oneof(notebookTexts(LEXEMES, KEYS), notebookTexts(TAME_LEXEMES, TAME_KEYS));

/**
 * Both writers on one dialog (validation left out: generated dialogs need not pass the schema).
 * `dumpsIpynb` without validation is the value-by-value writer itself, so the native text is
 * compared directly wherever it is made; returns whether it was (a view that gives up is allowed).
 */
function expectSame(d: Dialog): boolean {
  const want = writerText(d);
  expect(dumpsIpynb(d, { validate: false })).toBe(want);
  const native = nativeIpynbText(d);
  if (native !== undefined) expect(native).toBe(want);
  return native !== undefined;
}

describe('splitLines', () => {
  it("is Python's splitlines(keepends=True)", () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(splitLines(s)).toEqual(pySplitlines(s, true));
      }),
      fcParams(300),
    );
  });
  it('splits the edge cases as Python does', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['\n']);
    expect(splitLines('a\r\nb\rc\n')).toEqual(['a\r\n', 'b\r', 'c\n']);
    expect(splitLines('a\u2028b\x85')).toEqual(['a\u2028', 'b\x85']);
    expect(splitLines('a\n\nb')).toEqual(['a\n', '\n', 'b']);
  });
});

describe('isSplitList', () => {
  it('tells the lists that are their own splitting (hand-checked cases)', () => {
    expect(isSplitList([])).toBe(true);
    expect(isSplitList(['a\n', 'b\n', 'c'])).toBe(true);
    expect(isSplitList(['a\n', '\n', 'b\n'])).toBe(true);
    expect(isSplitList(['\n'])).toBe(true);
    // an empty entry, a middle entry without its break, a break inside an entry
    expect(isSplitList(['a\n', ''])).toBe(false);
    expect(isSplitList(['a', 'b\n'])).toBe(false);
    expect(isSplitList(['a\nb'])).toBe(false);
    expect(isSplitList(['a\n\n'])).toBe(false);
    // line breaks other than \n, in any entry
    for (const br of ['\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029']) {
      expect(isSplitList([`a${br}`])).toBe(false);
      expect(isSplitList(['x\n', `a${br}b\n`, 'y'])).toBe(false);
    }
    expect(isSplitList(['a\r\n'])).toBe(false);
    expect(isSplitList(['tab\t and \x1b[0m\n', 'é😀'])).toBe(true);
  });
  it('is true only when splitting the joined list gives it back, and then always when only \\n breaks lines', () => {
    fc.assert(
      fc.property(lineList, (l) => {
        const back = splitLines(l.join(''));
        const same = back.length === l.length && back.every((x, i) => x === l[i]);
        if (isSplitList(l)) expect(same).toBe(true);
        if (!/[\r\v\f\x1c-\x1e\x85\u2028\u2029]/.test(l.join(''))) expect(isSplitList(l)).toBe(same);
      }),
      fcParams(300),
    );
  });
});

describe('native notebook text', () => {
  const EDITS = ['content', 'reply', 'replyx', 'type', 'unprompt', 'same', 'meta'] as const;
  it('is the value-by-value text for generated notebooks, read and then edited', () => {
    let generated = 0;
    let native = 0;
    fc.assert(
      fc.property(notebookText, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...EDITS)), { maxLength: 3 }), (nb, edits) => {
        const d = readsIpynb(nb, 'gen.ipynb', {
          newId: (() => {
            let k = 0;
            return () => `id${k++}`;
          })(),
        });
        if (expectSame(d)) native++;
        generated++;
        for (const [at, what] of edits) {
          const m = d.messages[at % Math.max(1, d.messages.length)];
          if (m === undefined) break;
          if (what === 'content') m.content += 'x\n';
          else if (what === 'reply' && m.type === 'prompt') m.reply = '';
          else if (what === 'replyx' && m.type === 'prompt') m.reply += 'y';
          else if (what === 'type') m.type = m.type === 'note' ? 'prompt' : m.type;
          else if (what === 'unprompt' && m.type === 'prompt') {
            m.type = 'note';
            m.reply = '';
          } else if (what === 'same') m.content = ` ${m.content}`.slice(1);
          else if (what === 'meta') m.meta.added = new LosslessNumber('1.0');
          expectSame(d);
          expectSame(d.clone());
        }
      }),
      fcParams(200),
    );
    // The property reaches the native view, not only its fallback: half the generated notebooks
    // hold only values it writes itself (it gives up on a lexeme such as 1e-05), so well over a
    // third of all of them are written by it.
    expect(native * 3, `native view made for ${native} of ${generated} generated notebooks`).toBeGreaterThan(generated);
  });

  it('writes a canonical notebook back as read, and edited as the value-by-value writer does', () => {
    const cells = [
      { cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true }, source: splitLines(`ask${SEP}reply\nend`) },
      { cell_type: 'markdown', id: 'p2', metadata: {}, source: splitLines(`ask\n${SEP}`) },
      { cell_type: 'markdown', id: 'n1', metadata: {}, source: ['a note\n', 'b'] },
    ];
    const nb = `${JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;
    const d = readsIpynb(nb);
    expect(nativeIpynbText(d)).toBe(nb);
    d.messages[0]!.reply = 'other';
    d.messages[1]!.reply = 'now answered';
    d.messages[2]!.type = 'prompt';
    d.messages[2]!.reply = 'x';
    expect(nativeIpynbText(d)).toBe(writerText(d));
    expect(nativeIpynbText(d)).not.toBe(nb);
  });

  it('gives up where JS objects or numbers cannot say what the writer says', () => {
    const d = new Dialog([new Message('a\nb', { type: 'code', id: 'c1' })]);
    expect(nativeIpynbText(d)).toBe(writerText(d));
    const cases: [string, unknown][] = [
      ['an array-index key', { 10: 1, 9: 2 }],
      ['__proto__', JSON.parse('{"__proto__": 1}')],
      ['1e-05', new LosslessNumber('1e-05')],
      ['a big integer', new LosslessNumber('12345678901234567890')],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['1e400', new LosslessNumber('1e400')],
      ['undefined', undefined],
      ['a Date', new Date(0)],
      ['a bigint', 12n],
    ];
    const holed = new Message('x', { type: 'code', id: 'c1' });
    holed.output = [, { output_type: 'stream', name: 'stdout', text: 'a' }];
    expect(nativeIpynbText(new Dialog([holed]))).toBeUndefined();
    expect(() => dumpsIpynb(new Dialog([holed]), { validate: false })).toThrow(NotebookError);
    for (const [why, v] of cases) {
      const e = new Dialog([new Message('x', { type: 'code', id: 'c1', meta: { v } as Record<string, unknown> })]);
      expect(nativeIpynbText(e), why).toBeUndefined();
      const viaWriter = (() => {
        try {
          return writerText(e);
        } catch (err) {
          return err;
        }
      })();
      if (typeof viaWriter === 'string') expect(dumpsIpynb(e, { validate: false }), why).toBe(viaWriter);
      else expect(() => dumpsIpynb(e, { validate: false }), why).toThrow((viaWriter as Error).message);
    }
  });

  it('writes an edited source as its new lines', () => {
    const nb =
      '{"cells": [{"cell_type": "markdown", "id": "p1", "metadata": {"solveit_ai": true}, "source": ["q\\n", "' +
      SEP.replace(/\n/g, '\\n') +
      'r"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}';
    const d = readsIpynb(nb);
    expectSame(d);
    const m = d.messages[0]!;
    m.reply = 'other\nreply';
    expectSame(d);
    const w = JSON.parse(dumpsIpynb(d, { validate: false }));
    expect(w.cells[0].source).toEqual(['q\n', '\n', '\n', '##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n', '\n', 'other\n', 'reply']);
  });

  it('writes a source list read from the file as it was when it is still the lines, else splits again', () => {
    const cell = (id: string, type: string, source: unknown, meta = '{}') =>
      `{"cell_type": ${JSON.stringify(type)}, "id": ${JSON.stringify(id)}, "metadata": ${meta}, "source": ${JSON.stringify(source)}` +
      (type === 'code' ? ', "execution_count": null, "outputs": []}' : '}');
    const nb = `{"cells": [${[
      cell('c1', 'code', ['a\n', 'b']),
      cell('c2', 'code', ['a\nb\n', 'c']),
      cell('c3', 'code', ['a', 'b\n']),
      cell('c4', 'code', ['x\n', '']),
      cell('c5', 'code', ['p\r', 'q']),
      cell('c6', 'code', ['k\rl\n']),
      cell('n1', 'markdown', ['note\n', 'two']),
      cell('p1', 'markdown', ['q\n', '\n', '\n', `${SEP.slice(2, -1)}`, '\n', 'r\n', 's'], '{"solveit_ai": true}'),
      cell('p3', 'markdown', ['q\n', `${SEP}r`], '{"solveit_ai": true}'),
      cell('p2', 'markdown', ['q\n', SEP], '{"solveit_ai": true}'),
      cell('e1', 'code', ['x\n', 'y']),
    ].join(', ')}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`;
    const d = readsIpynb(nb);
    d.messages[10]!.content = 'x\ny\nz';
    expectSame(d);
    const sources = () => (JSON.parse(dumpsIpynb(d)) as { cells: { source: string[] }[] }).cells.map((c) => c.source);
    expect(sources()).toEqual([
      ['a\n', 'b'],
      ['a\n', 'b\n', 'c'],
      ['ab\n'],
      ['x\n'],
      ['p\r', 'q'],
      ['k\r', 'l\n'],
      ['note\n', 'two'],
      ['q\n', '\n', '\n', '##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n', '\n', 'r\n', 's'],
      ['q\n', '\n', '\n', '##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n', '\n', 'r'],
      ['q\n', '\n', '\n', '##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n', '\n'],
      ['x\n', 'y\n', 'z'],
    ]);
    // The same prompt and note, edited: their new sources, split.
    d.messages[7]!.reply = 'R';
    d.messages[9]!.content = 'Q';
    d.messages[6]!.type = 'prompt';
    expectSame(d);
    const after = sources();
    expect(after[6]).toEqual(['note\n', 'two']);
    expect(after[7]).toEqual(['q\n', '\n', '\n', '##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n', '\n', 'R']);
    expect(after[9]).toEqual(['Q\n', '\n', '##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n', '\n']);
  });

  it('writes rich outputs already in written form as read, and sorts and splits the others', () => {
    const out = (o: string) =>
      `{"cells": [{"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {}, "outputs": [${o}], "source": []}], ` +
      '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}';
    const written = '{"data": {"image/png": "AA==", "text/plain": ["a\\n", "b"]}, "execution_count": 1, "metadata": {}, "output_type": "execute_result"}';
    const unsorted = '{"output_type": "display_data", "metadata": {"b": 1, "a": 2}, "data": {"text/plain": "x\\ny", "image/png": ["AA", "=="]}}';
    for (const o of [written, unsorted]) expectSame(readsIpynb(out(o)));
    const outputs = (o: string) => (JSON.parse(dumpsIpynb(readsIpynb(out(o)))) as { cells: { outputs: unknown[] }[] }).cells[0]!.outputs;
    expect(outputs(written)).toEqual([
      { data: { 'image/png': 'AA==', 'text/plain': ['a\n', 'b'] }, execution_count: 1, metadata: {}, output_type: 'execute_result' },
    ]);
    const text = dumpsIpynb(readsIpynb(out(unsorted)));
    expect(text).toContain(
      '   "outputs": [\n    {\n     "data": {\n      "image/png": "AA==",\n      "text/plain": [\n       "x\\n",\n       "y"\n      ]\n     },\n' +
        '     "metadata": {\n      "a": 2,\n      "b": 1\n     },\n     "output_type": "display_data"\n    }\n   ],',
    );
  });

  it.skipIf(!HAVE_SHARED)('is the value-by-value text for the shared dialogs, read, compacted and flat', () => {
    const dir = shared('conformance', 'dialogs');
    const names = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { name: string }[]).map((e) => e.name);
    for (const name of names) {
      const bytes = readFileSync(join(dir, `${name}.ipynb`));
      const d = readsIpynbBytes(bytes, name);
      expect(nativeIpynbText(d), name).toBe(writerText(d));
      const c = compactDialog(readsIpynbBytes(bytes, name));
      expect(nativeIpynbText(c), name).toBe(writerText(c));
      const f = flatNotebook(readsIpynbBytes(bytes, name), { profile: 'reference' });
      expect(nativeIpynbText(f), name).toBe(writerText(f));
    }
  });
});

describe('regressions found by review', () => {
  it('an empty entry inside a list of lines is dropped, as the value-by-value writer does', () => {
    const nb = (text: unknown) =>
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [
          {
            cell_type: 'code',
            id: 'c1',
            metadata: {},
            source: 'x',
            execution_count: null,
            outputs: [
              { output_type: 'stream', name: 'stdout', text },
              { output_type: 'execute_result', execution_count: null, metadata: {}, data: { 'text/plain': ['a\n', '', 'b'] } },
            ],
          },
        ],
      });
    for (const text of [
      ['', 'hello\n'],
      ['a\n', '', 'b\n'],
      ['a\n', ''],
    ]) {
      const d = readsIpynb(nb(text));
      const out = dumpsIpynb(d);
      expect(out).toBe(writerText(d));
      expect(out).not.toContain('""');
    }
  });

  it('without validation every field goes through the value-by-value writer', () => {
    const d = new Dialog([]);
    const m = d.mkMessage('x', { type: 'code', id: 'c1' });
    (m as unknown as { id: unknown }).id = 1e-7;
    expect(dumpsIpynb(d, { validate: false })).toBe(writerText(d));
    expect(dumpsIpynb(d, { validate: false })).toContain('"id": 1e-07');
  });
});
