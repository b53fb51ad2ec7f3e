/**
 * Adversarial input through the BUILT command (`node dist/bin/main.js`), run in temporary
 * directories: broken and hostile notebooks, odd paths, bad options, zero budgets. What is
 * asserted is the command's promise: exit 1 when a file failed (the others still complete),
 * 2 on usage errors; every failure names its file (and the cell where one is at fault); an
 * input is never written except with `--mode dialog --in-place`, and never when it fails.
 *
 * Like test/cli.test.ts, run alone this file rebuilds dist/ first when a src/*.ts is newer
 * than its output.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scratchFolders, tokensT } from './built-cli.js';
import { readsIpynb, validateDialog } from '../src/notebook/index.js';

const SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function cli(args: string[], cwd: string, input?: string | Buffer): Run {
  const t0 = performance.now();
  return { ...runCli(args, cwd, input), ms: performance.now() - t0 };
}

const nb = (cells: unknown[]): string => JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells }, null, 1) + '\n';
const GOOD = nb([
  { cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true }, source: 'hi' + SEP + 'hello' },
  { cell_type: 'code', id: 'c1', metadata: {}, source: 'print(1)', outputs: [], execution_count: null },
]);

/** A fresh directory under the suite's temporary root, holding `files`. */
const dir = scratchFolders('dlg-cli-adv-');
/** Every file's bytes in `d`, by name (to prove nothing was written). */
function snapshot(d: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(d)) if (statSync(join(d, f)).isFile()) out[f] = readFileSync(join(d, f)).toString('base64');
  return out;
}

describe('broken notebooks: each fails with its reason, the others complete, inputs untouched', () => {
  const utf8 = new TextEncoder();
  // [file, bytes, exact error line after "dlg-compact: "]
  const BAD: Array<[string, string | Uint8Array, string]> = [
    ['text.ipynb', 'hello', 'text.ipynb: not a notebook: invalid JSON: expecting a value at line 1 column 1 (char 0)'],
    ['empty.ipynb', '', 'empty.ipynb: empty file, not a notebook (0 bytes)'],
    ['list.ipynb', '[]', 'list.ipynb: not a notebook: the JSON value is a list, not an object'],
    ['number.ipynb', '3', 'number.ipynb: not a notebook: the JSON value is 3, not an object'],
    ['obj.ipynb', '{}', 'obj.ipynb: nbformat: not a notebook: no nbformat field'],
    ['v3.ipynb', '{"nbformat": 3, "cells": []}', 'v3.ipynb: nbformat: unsupported nbformat 3: only nbformat 4 notebooks can be read'],
    ['v4str.ipynb', '{"nbformat": "4", "cells": []}', 'v4str.ipynb: nbformat: unsupported nbformat "4": only nbformat 4 notebooks can be read'],
    ['cells.ipynb', '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": {}}', 'cells.ipynb: cells: not a notebook: cells is an object, not a list'],
    ['cell.ipynb', '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [1]}', 'cell.ipynb: cell #0: a cell must be an object, got 1'],
    [
      'type.ipynb',
      nb([{ cell_type: 'foo', id: 'x1', metadata: {}, source: '' }]),
      'type.ipynb: cell x1: cell_type: unknown cell type "foo" (expected code, markdown or raw)',
    ],
    [
      'outs.ipynb',
      nb([{ cell_type: 'code', id: 'x2', metadata: {}, source: '', outputs: {}, execution_count: null }]),
      'outs.ipynb: cell x2: outputs: outputs must be a list, got an object',
    ],
    [
      'src.ipynb',
      nb([{ cell_type: 'code', id: 'x3', metadata: {}, source: 3, outputs: [], execution_count: null }]),
      'src.ipynb: cell x3: source: source must be a string or a list of strings, got 3',
    ],
    [
      'meta.ipynb',
      nb([{ cell_type: 'raw', id: 'x4', metadata: [], source: '' }]),
      'meta.ipynb: cell x4: metadata: cell metadata must be an object, got a list',
    ],
    [
      'stream.ipynb',
      nb([{ cell_type: 'code', id: 'x5', metadata: {}, source: 'x', outputs: [{ output_type: 'stream', text: 'x' }], execution_count: null }]),
      'stream.ipynb: cell x5: outputs: aiOutput: output 0: a stream needs a string "name"',
    ],
    [
      'utf8.ipynb',
      new Uint8Array([...utf8.encode('{"nbformat": 4, "cells": ["'), 0xff, 0xfe, ...utf8.encode('"]}')]),
      'utf8.ipynb: not valid UTF-8 (bad byte sequence at byte offset 27)',
    ],
    [
      'bom.ipynb',
      new Uint8Array([0xef, 0xbb, 0xbf, ...utf8.encode(GOOD)]),
      'bom.ipynb: not a notebook: invalid JSON: unexpected byte order mark U+FEFF (strip it before parsing) at line 1 column 1 (char 0)',
    ],
    ['utf16.ipynb', new Uint8Array(Buffer.from('\ufeff' + GOOD, 'utf16le')), 'utf16.ipynb: not valid UTF-8 (bad byte sequence at byte offset 0)'],
    [
      'deep.ipynb',
      '{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": {"a": ' + '['.repeat(100_000) + ']'.repeat(100_000) + '}}',
      // 68 characters before the first '[' (level 3); level 1001 opens at char 68 + 998
      'deep.ipynb: not a notebook: invalid JSON: nesting deeper than 1000 levels at line 1 column 1067 (char 1066)',
    ],
  ];

  it('one run over all of them: exit 1, one line per broken file, the good one written, no input changed', () => {
    const d = dir({ 'good.ipynb': GOOD, ...Object.fromEntries(BAD.map(([f, b]) => [f, b])) });
    const before = snapshot(d);
    const r = cli(['.'], d);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n').sort();
    expect(lines).toEqual(BAD.map(([, , msg]) => `dlg-compact: ${msg}`).sort());
    expect(r.stdout).toMatch(/^good-comp\.ipynb: written, /);
    const after = snapshot(d);
    expect(Object.keys(after).sort()).toEqual([...Object.keys(before), 'good-comp.ipynb'].sort());
    for (const f of Object.keys(before)) expect(after[f], f).toBe(before[f]);
  }, 60_000);

  it('--mode dialog --in-place: a file that fails is left byte for byte, with no temporary file beside it', () => {
    const bad = nb([
      { cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true }, source: 'q' + SEP + 'a' },
      { cell_type: 'code', id: 'bad id', metadata: {}, source: 'x', outputs: [], execution_count: null },
    ]);
    const d = dir({ 'a.ipynb': bad, 'b.ipynb': GOOD });
    const r = cli(['--mode', 'dialog', '--in-place', 'a.ipynb', 'b.ipynb'], d);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('dlg-compact: a.ipynb: cell #1: id: invalid cell id "bad id": ids are 1-64 characters from A-Z a-z 0-9 - _\n');
    expect(readFileSync(join(d, 'a.ipynb'), 'utf8')).toBe(bad);
    expect(readdirSync(d).sort()).toEqual(['a.ipynb', 'b.ipynb']);
  });

  it('--check writes nothing and reports what would be written (exit 1)', () => {
    const d = dir({ 'a.ipynb': GOOD });
    const before = snapshot(d);
    const r = cli(['--check', 'a.ipynb'], d);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^a-comp\.ipynb: would write, /);
    expect(snapshot(d)).toEqual(before);
  });
});

describe('paths that are not notebooks', () => {
  it('a directory named like a notebook, a symlink loop, a missing file, a dangling symlink: each named, exit 1', () => {
    const d = dir({ 'good.ipynb': GOOD });
    mkdirSync(join(d, 'd.ipynb'));
    symlinkSync('loop2.ipynb', join(d, 'loop1.ipynb'));
    symlinkSync('loop1.ipynb', join(d, 'loop2.ipynb'));
    symlinkSync(join(d, 'gone.ipynb'), join(d, 'dangling.ipynb'));
    const r = cli(['d.ipynb', 'loop1.ipynb', 'missing.ipynb', 'dangling.ipynb', 'good.ipynb'], d);
    expect(r.code).toBe(1);
    const err = r.stderr.trim().split('\n');
    expect(err).toHaveLength(4);
    expect(err[0]).toBe('dlg-compact: d.ipynb: no .ipynb files in this directory');
    expect(err[1]).toMatch(/^dlg-compact: loop1\.ipynb: cannot read: /);
    expect(err[2]).toBe('dlg-compact: missing.ipynb: cannot read: no such file or directory');
    expect(err[3]).toBe('dlg-compact: dangling.ipynb: cannot read: no such file or directory');
    expect(r.stdout).toMatch(/^good-comp\.ipynb: written, /);
  });

  it('a pattern that matches nothing fails (exit 1) naming the pattern', () => {
    const r = cli(['zz*.ipynb'], dir());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('dlg-compact: zz*.ipynb: no files match this pattern\n');
  });

  it('an output in a missing directory: the folder is created; a file on the way fails naming the output', () => {
    const d = dir({ 'a.ipynb': GOOD, blocker: 'x' });
    const r = cli(['a.ipynb', '-o', 'missing/dir/out.ipynb'], d);
    expect(r.code).toBe(0);
    expect(existsSync(join(d, 'missing', 'dir', 'out.ipynb'))).toBe(true);
    const f = cli(['a.ipynb', '-o', 'blocker/out.ipynb'], d);
    expect(f.code).toBe(1);
    expect(f.stderr).toBe('dlg-compact: blocker/out.ipynb: cannot write: a component of the path is not a directory\n');
    expect(readdirSync(d).sort()).toEqual(['a.ipynb', 'blocker', 'missing']);
  });

  it.each([
    [['a.ipynb', '-o', 'a.ipynb']],
    [['a.ipynb', '-o', './sub/../a.ipynb']],
    [['a.ipynb', '-o', 'link.ipynb']],
    [['--mode', 'dialog', 'a.ipynb', '-o', 'a.ipynb']],
    // (--to md with -o a.ipynb is refused earlier, for naming a notebook: see cli-papercuts)
    [['--to', 'ipynb', 'a.ipynb', '-o', 'a.ipynb']],
  ])('-o naming the input (%j) is a usage error (exit 2); the input is untouched', (args) => {
    const d = dir({ 'a.ipynb': GOOD });
    symlinkSync('a.ipynb', join(d, 'link.ipynb'));
    const r = cli(args, d);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^dlg-compact: error: refusing to overwrite the input a\.ipynb /);
    expect(readFileSync(join(d, 'a.ipynb'), 'utf8')).toBe(GOOD);
    expect(readdirSync(d).sort()).toEqual(['a.ipynb', 'link.ipynb']);
  });

  it('--in-place without --mode dialog is a usage error; nothing is written', () => {
    const d = dir({ 'a.ipynb': GOOD });
    const r = cli(['-i', 'a.ipynb'], d);
    expect(r.code).toBe(2);
    expect(readFileSync(join(d, 'a.ipynb'), 'utf8')).toBe(GOOD);
    expect(readdirSync(d)).toEqual(['a.ipynb']);
  });
});

describe('standard input', () => {
  it.each([
    ['empty', '', 'dlg-compact: <stdin>: empty file, not a notebook (0 bytes)\n'],
    ['not a notebook', 'hello\n', 'dlg-compact: <stdin>: not a notebook: invalid JSON: expecting a value at line 1 column 1 (char 0)\n'],
    ['a JSON list', '[1, 2]', 'dlg-compact: <stdin>: not a notebook: the JSON value is a list, not an object\n'],
  ])('%s: exit 1, named <stdin>, nothing on standard output', (_name, input, err) => {
    const r = cli(['-'], dir(), input);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(err);
    expect(r.stdout).toBe('');
  });

  it('- twice is a usage error', () => {
    const r = cli(['-', '-'], dir(), GOOD);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^dlg-compact: error: standard input \(-\) can be read only once/);
  });
});

describe('options at and beyond their limits', () => {
  it.each([
    ['--user-toks', '-1'],
    ['--user-toks', '1e3'],
    ['--user-toks', 'abc'],
    ['--user-toks', '1.5'],
    ['--asst-toks', ''],
    ['--call-toks', '0x10'],
    ['--result-toks', '99999999999999999999'],
    ['--jobs', '0'],
    ['--jobs', '-1'],
    ['--jobs', '1.5'],
  ])('%s %j: usage error (exit 2) naming the option; nothing written', (opt, value) => {
    const d = dir({ 'a.ipynb': GOOD });
    const r = cli([opt, value, 'a.ipynb'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`argument '${value}' is invalid`);
    expect(r.stderr).toContain(opt);
    expect(readdirSync(d)).toEqual(['a.ipynb']);
  });

  it('budgets of 0 where SPEC allows them render (exit 0)', () => {
    const r = cli(['--no-legend', '--user-toks', '0', '--asst-toks', '0', '--result-toks', '0', 'a.ipynb', '-o', '-'], dir({ 'a.ipynb': GOOD }));
    expect(r.code).toBe(0);
    // the first turn renders empty (text cut to 0 tokens) and is dropped by joinCompacts
    expect(r.stdout).toBe('#_c1\n```python\nprint(1)\n```\n');
  });

  it.each([['0'], ['3']])('--call-toks %s is below the empty fence: a per-file error naming the code cell, not a crash', (budget) => {
    const d = dir({ 'a.ipynb': GOOD, 'b.ipynb': nb([{ cell_type: 'markdown', id: 'n1', metadata: {}, source: 'no code here' }]) });
    const r = cli(['--call-toks', budget, 'a.ipynb', 'b.ipynb'], d);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `dlg-compact: a.ipynb: cell c1: source: fencedCode: a budget of ${budget} tokens is too small for a fenced block (the empty fence needs 4)\n`,
    );
    expect(r.stdout).toMatch(/^b-comp\.ipynb: written, /);
    expect(readdirSync(d).sort()).toEqual(['a.ipynb', 'b-comp.ipynb', 'b.ipynb']);
  });

  it('--jobs 1000 over good and broken files: the good ones written, the broken one reported (exit 1)', () => {
    const files: Record<string, string> = { 'bad.ipynb': '{' };
    for (let i = 0; i < 5; i++) files[`g${i}.ipynb`] = GOOD;
    const d = dir(files);
    const r = cli(['-j', '1000', '.'], d);
    expect(r.code).toBe(1);
    // Python: json.loads('{') -> "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    expect(r.stderr).toBe(
      'dlg-compact: bad.ipynb: not a notebook: invalid JSON: expecting a property name enclosed in double quotes at line 1 column 2 (char 1)\n',
    );
    const lines = r.stdout.trim().split('\n');
    // The run's total comes last, whatever order the threads finished in.
    expect(tokensT(lines.pop()!)).toBe('6 files: 5 written, 1 failed; T');
    expect(lines.map((l) => l.split(':')[0]).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `g${i}-comp.ipynb`));
  });
});

describe('a hostile 10 MB dialog', () => {
  it('compacts in both modes within seconds; the dialog-mode output reads back with every id', () => {
    const block = (id: string, name: string, args: unknown, result: string) =>
      '```json {.tool}\n' + JSON.stringify({ id, name, args, result }, null, 2) + '\n```';
    const cells = [
      { cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true }, source: 'a'.repeat(200_000) + SEP + 'ok' },
      {
        cell_type: 'markdown',
        id: 'p2',
        metadata: { solveit_ai: true },
        source: 'view it' + SEP + 'look\n\n' + block('t1', 'view', { p: 'x' }, 'QUJD'.repeat(1_250_000)) + '\n\ndone',
      },
      {
        cell_type: 'markdown',
        id: 'p3',
        metadata: { solveit_ai: true },
        source: 'many' + SEP + Array.from({ length: 10_000 }, (_, i) => `step ${i}\n\n` + block(`id${i}`, 'f', { a: i }, `r${i}`)).join('\n\n'),
      },
      {
        cell_type: 'code',
        id: 'c1',
        metadata: {},
        source: 'progress()',
        outputs: [{ output_type: 'stream', name: 'stdout', text: Array.from({ length: 500_000 }, (_, i) => `${i}\r`).join('') }],
        execution_count: 1,
      },
      { cell_type: 'markdown', id: 'p4', metadata: { solveit_ai: true }, source: 'twice' + SEP + 'reply' + SEP + 'more' },
    ];
    const d = dir({ 'big.ipynb': nb(cells) });
    const flat = cli(['big.ipynb'], d);
    expect(flat.code).toBe(0);
    expect(flat.ms).toBeLessThan(30_000);
    const dlg = cli(['--mode', 'dialog', 'big.ipynb', '-o', 'big-dialog.ipynb'], d);
    expect(dlg.code).toBe(0);
    expect(dlg.ms).toBeLessThan(30_000);
    const out = validateDialog(readsIpynb(readFileSync(join(d, 'big-dialog.ipynb'), 'utf8'), 'big-dialog.ipynb'));
    expect(out.messages.map((m) => m.id)).toEqual(['p1', 'p2', 'p3', 'c1', 'p4']);
    expect(out.messages[1].reply).toMatch(/^look\n▶ view\(p='x'\)\n> QUJD.* … .*QUJD\ndone$/);
    expect(out.messages[2].reply.split('\n').slice(0, 3)).toEqual(['step 0', '▶ f(a=0)', '> r0']);
    // a reply holding the separator again keeps it: the cell still splits at the first one
    expect(out.messages[4].content).toBe('twice');
    expect(out.messages[4].reply).toBe('reply' + SEP + 'more');
  }, 90_000);
});
