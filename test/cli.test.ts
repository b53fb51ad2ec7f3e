/**
 * End-to-end tests of the `dlg-compact` command. They run the BUILT command, `node dist/cli.js`,
 * in temporary directories, the way a user would, and look at exit codes, streams and files.
 *
 * Build: CI runs `npm run build` before `npm test`. Run alone (`npx vitest run test/cli.test.ts`),
 * this file rebuilds dist/ with tsc first when some src/*.ts is newer than its dist/*.js (type
 * errors elsewhere do not stop tsc from emitting; a missing dist/cli.js afterwards fails loudly).
 *
 * Expected values: for the conformance dialogs, the reference's files (`NNN.flat.md`,
 * `NNN.compact.ipynb`, manifest counts); for the demo dialog, the library's own functions (which
 * the library's conformance suites pin), since what is tested here is the command's plumbing.
 * One suite runs `main()` in-process to see the progress bar with a fake terminal.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync,
  statSync, utimesSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_SHARED, ROOT, shared } from './support.js';
import { readsIpynbBytes, dumpsIpynb } from '../src/notebook.js';
import { compactDialog, dlg2compact, measureDialog, measureFlat } from '../src/compact.js';
import { main } from '../src/cli.js';

const CLI = join(ROOT, 'dist', 'cli.js');
const DEMO = join(ROOT, 'notebooks', 'demo.ipynb');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const CLASSES = ['user', 'assistant', 'calls', 'results', 'code', 'total'];

/** Rebuild dist/ when a source file is newer than its build output. */
function ensureBuilt(): void {
  const src = join(ROOT, 'src');
  const stale = readdirSync(src)
    .filter((f) => f.endsWith('.ts'))
    .some((f) => {
      const out = join(ROOT, 'dist', f.replace(/\.ts$/, '.js'));
      return !existsSync(out) || statSync(out).mtimeMs < statSync(join(src, f)).mtimeMs;
    });
  if (stale) {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
    if (!existsSync(CLI)) throw new Error(`build failed, no ${CLI}:\n${r.stdout}${r.stderr}`);
  }
}

interface Run { code: number | null; stdout: string; stderr: string }

/** Run `node dist/cli.js ...args` in `cwd`; `input` is fed to standard input. */
function cli(args: string[], cwd: string, input?: string | Buffer): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd, input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, DLG_COMPACT_DEBUG: '' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmpRoots: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dlg-cli-'));
  tmpRoots.push(d);
  return d;
}

/** Every file under `dir` with its bytes, to prove that a run wrote nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) {
      const p = join(e.parentPath, e.name);
      out[p] = readFileSync(p).toString('base64');
    }
  }
  return out;
}

function pct(before: number, after: number): string {
  if (before === 0) return '0.0%';
  const p = (((before - after) / before) * 100).toFixed(1);
  return `${p === '-0.0' ? '0.0' : p}%`;
}

function line(out: string, status: string, messages: number, before: number, after: number): string {
  return `${out}: ${status}, ${messages} messages, ${before} → ${after} tokens (${pct(before, after)} saved)`;
}

/** The source text of a notebook cell (string or list of lines). */
function cellSource(cell: { source: string | string[] }): string {
  return Array.isArray(cell.source) ? cell.source.join('') : cell.source;
}

function expectUsageError(r: Run, fragment: string): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n');
  expect(lines[0]).toMatch(/^dlg-compact: error: /);
  expect(lines[0]).toContain(fragment);
  expect(lines[1]).toBe("Try 'dlg-compact --help' for more information.");
  expect(lines.length).toBe(3);
}

function expectNoStack(r: Run): void {
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => {
  for (const d of tmpRoots) rmSync(d, { recursive: true, force: true });
});

const demoBytes = readFileSync(DEMO);
const demo = () => readsIpynbBytes(demoBytes, 'demo.ipynb');
const demoStats = measureDialog(demo());
const demoFlat = measureFlat(demo());

describe('dlg-compact: help, version, usage errors', () => {
  it('--version prints the package version', () => {
    const r = cli(['--version'], ROOT);
    expect(r).toEqual({ code: 0, stdout: VERSION + '\n', stderr: '' });
    expect(cli(['-V'], ROOT).stdout).toBe(VERSION + '\n');
  });

  it('--help shows usage, every option and examples', () => {
    const r = cli(['--help'], ROOT);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.startsWith('Usage: dlg-compact [options] <inputs...>\n')).toBe(true);
    for (const opt of ['--mode', '--to', '--output', '--in-place', '--user-toks', '--asst-toks', '--call-toks',
      '--result-toks', '--check', '--json', '--jobs', '--no-progress', '--version', '--help']) {
      expect(r.stdout).toContain(opt);
    }
    expect(r.stdout).toContain('Examples:\n  dlg-compact notebooks/demo.ipynb');
    expect(r.stdout).toContain('Exit status: 0 all done; 1 some file failed');
  });

  const dir = tempDir();
  copyFileSync(DEMO, join(dir, 'demo.ipynb'));
  copyFileSync(DEMO, join(dir, 'other.ipynb'));
  const before = snapshot(dir);
  const cases: [string, string[], string][] = [
    ['no input', [], "missing required argument 'inputs'"],
    ['unknown option', ['--frobnicate', 'demo.ipynb'], "unknown option '--frobnicate'"],
    ['misspelt option, with a suggestion on the same line', ['--chek', 'demo.ipynb'], "unknown option '--chek' (Did you mean --check?)"],
    ['negative budget', ['--user-toks', '-1', 'demo.ipynb'], "argument '-1' is invalid"],
    ['negative budget with =', ['--asst-toks=-5', 'demo.ipynb'], "argument '-5' is invalid"],
    ['non-numeric budget', ['--call-toks', 'lots', 'demo.ipynb'], "argument 'lots' is invalid"],
    ['fractional budget', ['--result-toks', '1.5', 'demo.ipynb'], "argument '1.5' is invalid"],
    ['exponent budget', ['--result-toks', '1e3', 'demo.ipynb'], "argument '1e3' is invalid"],
    ['empty budget', ['--user-toks', '', 'demo.ipynb'], "argument '' is invalid"],
    ['budget beyond 2^53', ['--user-toks', '99999999999999999999', 'demo.ipynb'], 'is invalid'],
    ['zero jobs', ['--jobs', '0', 'demo.ipynb'], "argument '0' is invalid"],
    ['unknown mode', ['--mode', 'tiny', 'demo.ipynb'], 'Allowed choices are flat, dialog'],
    ['unknown format', ['--to', 'pdf', 'demo.ipynb'], 'Allowed choices are ipynb, md'],
    ['--in-place in flat mode', ['--in-place', 'demo.ipynb'], '--in-place needs --mode dialog'],
    ['--in-place with --output', ['--mode', 'dialog', '--in-place', '-o', 'x.ipynb', 'demo.ipynb'], '--in-place and --output are exclusive'],
    ['--in-place on stdin', ['--mode', 'dialog', '--in-place', '-'], '--in-place cannot rewrite standard input'],
    ['dialog mode to Markdown', ['--mode', 'dialog', '--to', 'md', 'demo.ipynb'], '--to md makes a flat document'],
    ['--output with two inputs', ['-o', 'x.ipynb', 'demo.ipynb', 'other.ipynb'], '--output needs exactly one input, got 2'],
    ['--output with a glob of two', ['-o', 'x.ipynb', '*.ipynb'], "--output needs exactly one input, got 2 (from '*.ipynb')"],
    ['stdin twice', ['-', '-'], 'standard input (-) can be read only once'],
    ['--output equal to the input', ['-o', 'demo.ipynb', 'demo.ipynb'], 'refusing to overwrite the input demo.ipynb'],
    ['--output equal to the input, other spelling', ['--mode', 'dialog', '-o', './demo.ipynb', 'demo.ipynb'], 'refusing to overwrite the input demo.ipynb'],
  ];
  it.each(cases)('usage error: %s (exit 2, nothing written)', (_name, args, fragment) => {
    const r = cli(args, dir, '');
    expectUsageError(r, fragment);
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('dlg-compact on the demo dialog', () => {
  it('default mode writes <stem>-comp.ipynb holding the flat document in one raw cell', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = cli(['demo.ipynb'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(line('demo-comp.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(readFileSync(join(dir, 'demo.ipynb')).equals(demoBytes)).toBe(true);
    const nb = JSON.parse(readFileSync(join(dir, 'demo-comp.ipynb'), 'utf8'));
    expect(nb.cells.length).toBe(1);
    expect(nb.cells[0].cell_type).toBe('raw');
    expect(cellSource(nb.cells[0])).toBe(dlg2compact(demo()));
    expect(cellSource(nb.cells[0])).toBe(demoFlat.text);
    // the flat document really is smaller, and its first cell is the demo's first note
    expect(demoFlat.tokens.total).toBeLessThan(demoStats.tokens.total / 2);
    expect(demoFlat.text.startsWith('§ # Why does the nightly order import take 15 seconds?')).toBe(true);
  });

  it('an identical output is not rewritten: reported unchanged, mtime kept', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    expect(cli(['demo.ipynb'], dir).code).toBe(0);
    const out = join(dir, 'demo-comp.ipynb');
    const past = new Date('2001-02-03T04:05:06Z');
    utimesSync(out, past, past);
    const r = cli(['demo.ipynb'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(line('demo-comp.ipynb', 'unchanged', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(statSync(out).mtimeMs).toBe(past.getTime());
    // a different output on disk is replaced
    writeFileSync(out, '{}\n');
    expect(cli(['demo.ipynb'], dir).stdout).toContain('demo-comp.ipynb: written,');
    expect(statSync(out).mtimeMs).not.toBe(past.getTime());
  });

  it('--to md writes <stem>-comp.md: the flat document and a final newline', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = cli(['--to', 'md', 'demo.ipynb'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(line('demo-comp.md', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(readFileSync(join(dir, 'demo-comp.md'), 'utf8')).toBe(demoFlat.text + '\n');
    expect(existsSync(join(dir, 'demo-comp.ipynb'))).toBe(false);
  });

  it('-o PATH ending in .md writes Markdown; -o PATH.ipynb a notebook', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    mkdirSync(join(dir, 'out'));
    expect(cli(['demo.ipynb', '-o', 'out/flat.md'], dir).code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'flat.md'), 'utf8')).toBe(demoFlat.text + '\n');
    const r = cli(['--output', 'out/flat.ipynb', 'demo.ipynb'], dir);
    expect(r.stdout).toContain('out/flat.ipynb: written, 15 messages');
    expect(cellSource(JSON.parse(readFileSync(join(dir, 'out', 'flat.ipynb'), 'utf8')).cells[0])).toBe(demoFlat.text);
  });

  it('budget options reach the renderer', () => {
    const policy = { userToks: 40, asstToks: 20, callToks: 10, resultToks: 5 };
    const r = cli(['--user-toks', '40', '--asst-toks', '20', '--call-toks', '10', '--result-toks', '5', '-o', '-', DEMO], ROOT);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(dlg2compact(demo(), policy) + '\n');
    expect(r.stdout).not.toBe(demoFlat.text + '\n');
    const z = cli(['--result-toks=0', '-o', '-', DEMO], ROOT);
    expect(z.stdout).toBe(dlg2compact(demo(), { resultToks: 0 }) + '\n');
  });

  it('--mode dialog writes the compacted dialog, ids and input kept', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const expected = dumpsIpynb(compactDialog(demo()));
    const after = measureDialog(compactDialog(demo())).tokens.total;
    const r = cli(['--mode', 'dialog', 'demo.ipynb'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(line('demo-comp.ipynb', 'written', 15, demoStats.tokens.total, after) + '\n');
    const out = readFileSync(join(dir, 'demo-comp.ipynb'), 'utf8');
    expect(out).toBe(expected);
    expect(out).not.toBe(demoBytes.toString('utf8'));
    const ids = (nb: { cells: { id: string }[] }) => nb.cells.map((c) => c.id);
    expect(ids(JSON.parse(out))).toEqual(ids(JSON.parse(demoBytes.toString('utf8'))));
    expect(readFileSync(join(dir, 'demo.ipynb')).equals(demoBytes)).toBe(true);
  });

  it('--mode dialog --in-place rewrites the input (mode bits kept), then reports unchanged only if idempotent', () => {
    const dir = tempDir();
    const file = join(dir, 'demo.ipynb');
    copyFileSync(DEMO, file);
    chmodSync(file, 0o640);
    const expected = dumpsIpynb(compactDialog(demo()));
    const r = cli(['--mode', 'dialog', '--in-place', 'demo.ipynb'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^demo\.ipynb: written, 15 messages, \d+ → \d+ tokens/);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['demo.ipynb']); // no temporary file left behind
    // the second pass compacts the compacted dialog: unchanged exactly when that is a fixed point
    const again = dumpsIpynb(compactDialog(readsIpynbBytes(Buffer.from(expected), 'demo.ipynb')));
    const r2 = cli(['-i', '--mode=dialog', 'demo.ipynb'], dir);
    expect(r2.code).toBe(0);
    expect(r2.stdout).toContain(again === expected ? ': unchanged,' : ': written,');
    expect(readFileSync(file, 'utf8')).toBe(again);
  });

  it('stdin to stdout: flat Markdown; the report goes to stderr', () => {
    const r = cli(['-'], ROOT, demoBytes);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(demoFlat.text + '\n');
    expect(r.stderr).toBe(line('<stdout>', 'printed', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
  });

  it('stdin to stdout in dialog mode: notebook JSON', () => {
    const r = cli(['--mode', 'dialog', '-'], ROOT, demoBytes);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(dumpsIpynb(compactDialog(demo())));
  });

  it('stdin to a file, and a file to stdout with -o -', () => {
    const dir = tempDir();
    const r = cli(['-', '-o', 'fromstdin.ipynb'], dir, demoBytes);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(line('fromstdin.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(cellSource(JSON.parse(readFileSync(join(dir, 'fromstdin.ipynb'), 'utf8')).cells[0])).toBe(demoFlat.text);
    const r2 = cli(['-o', '-', DEMO], dir);
    expect(r2.stdout).toBe(demoFlat.text + '\n');
    expect(readdirSync(dir)).toEqual(['fromstdin.ipynb']);
  });

  it('--check writes nothing and exits 1 while outputs are pending, 0 once they are up to date', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'a.ipynb'));
    copyFileSync(DEMO, join(dir, 'b.ipynb'));
    const before = snapshot(dir);
    const r = cli(['--check', 'a.ipynb', 'b.ipynb'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      line('a-comp.ipynb', 'would write', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n' +
      line('b-comp.ipynb', 'would write', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(snapshot(dir)).toEqual(before);
    expect(cli(['a.ipynb'], dir).code).toBe(0);
    const r2 = cli(['--check', 'a.ipynb', 'b.ipynb'], dir);
    expect(r2.code).toBe(1);
    expect(r2.stdout).toContain('a-comp.ipynb: unchanged,');
    expect(r2.stdout).toContain('b-comp.ipynb: would write,');
    expect(cli(['b.ipynb'], dir).code).toBe(0);
    const r3 = cli(['--check', 'a.ipynb', 'b.ipynb'], dir);
    expect(r3.code).toBe(0);
    expect(r3.stdout.match(/: unchanged,/g)?.length).toBe(2);
  });

  it('--check --in-place leaves the input alone; --check to stdout prints no document and exits 0', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = cli(['--check', '--mode', 'dialog', '--in-place', 'demo.ipynb'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^demo\.ipynb: would write, 15 messages/);
    expect(readFileSync(join(dir, 'demo.ipynb')).equals(demoBytes)).toBe(true);
    const s = cli(['--check', '-'], dir, demoBytes);
    expect(s.code).toBe(0);
    expect(s.stdout).toBe(line('<stdout>', 'would print', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(s.stderr).toBe('');
  });

  it('--json prints one record per file with exactly the documented fields', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = cli(['--json', 'demo.ipynb'], dir);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(1);
    const rec = JSON.parse(lines[0]);
    expect(Object.keys(rec)).toEqual(['path', 'output', 'status', 'strategy', 'messages', 'prompts', 'toolCalls', 'tokens']);
    expect(Object.keys(rec.tokens)).toEqual(['before', 'after']);
    expect(Object.keys(rec.tokens.before)).toEqual(CLASSES);
    expect(Object.keys(rec.tokens.after)).toEqual(CLASSES);
    expect(rec).toEqual({
      path: 'demo.ipynb', output: 'demo-comp.ipynb', status: 'written', strategy: 'dsl',
      messages: 15, prompts: 4, toolCalls: 5,
      tokens: { before: demoStats.tokens, after: demoFlat.tokens },
    });
    expect(demoStats).toMatchObject({ messages: 15, prompts: 4, toolCalls: 5 });
    // a failing file has a record too, with the message that stderr shows
    writeFileSync(join(dir, 'bad.ipynb'), 'not a notebook');
    const f = cli(['--json', 'bad.ipynb', 'demo.ipynb'], dir);
    expect(f.code).toBe(1);
    const recs = f.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(recs.length).toBe(2);
    expect(Object.keys(recs[0])).toEqual(['path', 'error']);
    expect(recs[0].path).toBe('bad.ipynb');
    expect(f.stderr).toBe(`dlg-compact: ${recs[0].error}\n`);
    expect(recs[1].status).toBe('unchanged');
  });

  it('many files with one broken: the others are written, the broken one is named, exit 1', () => {
    for (const jobs of ['1', '2']) {
      const dir = tempDir();
      for (const n of ['a', 'b', 'c']) copyFileSync(DEMO, join(dir, `${n}.ipynb`));
      writeFileSync(join(dir, 'broken.ipynb'), '{"cells": [ {"cell_type": "code"');
      const r = cli(['--jobs', jobs, '*.ipynb'], dir);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(['a', 'b', 'c']
        .map((n) => line(`${n}-comp.ipynb`, 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n').join(''));
      const err = r.stderr.trimEnd().split('\n');
      expect(err.length).toBe(1);
      expect(err[0]).toMatch(/^dlg-compact: broken\.ipynb: /);
      expectNoStack(r);
      for (const n of ['a', 'b', 'c']) expect(existsSync(join(dir, `${n}-comp.ipynb`))).toBe(true);
      expect(existsSync(join(dir, 'broken-comp.ipynb'))).toBe(false);
    }
  });

  it('--jobs 2 gives the same outputs and report as one job', () => {
    const one = tempDir();
    const two = tempDir();
    for (const d of [one, two]) for (let i = 0; i < 5; i++) copyFileSync(DEMO, join(d, `n${i}.ipynb`));
    const r1 = cli(['--mode', 'dialog', '--json', '.'], one);
    const r2 = cli(['--mode', 'dialog', '--json', '--jobs', '2', '.'], two);
    expect(r1.code).toBe(0);
    expect(r2.code).toBe(0);
    expect(r2.stdout).toBe(r1.stdout);
    expect(r1.stdout.trimEnd().split('\n').length).toBe(5);
    expect(snapshot(two)).toEqual(Object.fromEntries(Object.entries(snapshot(one)).map(([k, v]) => [k.replace(one, two), v])));
  });

  it('an output whose parent is not a writable directory: a clear error naming it, exit 1', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    writeFileSync(join(dir, 'plainfile'), 'x');
    const r = cli(['demo.ipynb', '-o', 'plainfile/out.ipynb'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('dlg-compact: plainfile/out.ipynb: cannot write: a component of the path is not a directory\n');
    // A read-only directory: chmod stops writes only for non-root users; root (as in CI
    // containers) gets a missing directory instead, which must fail the same way.
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) rmSync(ro, { recursive: true });
    else chmodSync(ro, 0o555);
    try {
      const r2 = cli(['demo.ipynb', '-o', 'ro/out.ipynb'], dir);
      expect(r2.code).toBe(1);
      expect(r2.stderr).toBe(`dlg-compact: ro/out.ipynb: cannot write: ${asRoot ? 'no such file or directory' : 'permission denied'}\n`);
    } finally {
      if (!asRoot) chmodSync(ro, 0o755);
    }
  });

  it.each([
    ['plain text', Buffer.from('hello, not a notebook\n')],
    ['JSON that is not a notebook', Buffer.from('{"a": 1}\n')],
    ['invalid UTF-8', Buffer.concat([Buffer.from('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5, "x": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])],
    ['an empty file', Buffer.alloc(0)],
  ])('an input that is not a notebook (%s): exit 1, the message names the file', (_name, bytes) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.ipynb'), bytes);
    const r = cli(['notes.ipynb'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^dlg-compact: notes\.ipynb: \S/);
    expect(r.stderr.trimEnd().split('\n').length).toBe(1);
    expectNoStack(r);
    expect(readdirSync(dir)).toEqual(['notes.ipynb']);
  });

  it('a missing file and a glob without matches fail (exit 1) while the rest is done', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = cli(['missing.ipynb', 'nothing-*.ipynb', 'demo.ipynb'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'dlg-compact: missing.ipynb: cannot read: no such file or directory\n' +
      'dlg-compact: nothing-*.ipynb: no files match this pattern\n');
    expect(r.stdout).toContain('demo-comp.ipynb: written,');
  });

  it('globs are expanded in order; literal names with glob characters work; outputs of other inputs are skipped', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub', '.ipynb_checkpoints'), { recursive: true });
    copyFileSync(DEMO, join(dir, 'sub', 'b.ipynb'));
    copyFileSync(DEMO, join(dir, 'sub', 'a.ipynb'));
    copyFileSync(DEMO, join(dir, 'sub', '.ipynb_checkpoints', 'a-checkpoint.ipynb'));
    copyFileSync(DEMO, join(dir, 'odd[1].ipynb'));
    expect(cli(['sub/a.ipynb'], dir).code).toBe(0); // leaves sub/a-comp.ipynb, an output
    const r = cli(['sub/*.ipynb', 'odd[1].ipynb'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n').map((l) => l.split(':')[0])).toEqual(['sub/a-comp.ipynb', 'sub/b-comp.ipynb', 'odd[1]-comp.ipynb']);
    expect(r.stdout).toContain('sub/a-comp.ipynb: unchanged,');
    // a directory stands for every notebook below it, checkpoints excluded
    const d = cli(['--json', '--check', 'sub'], dir);
    expect(d.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).path)).toEqual(['sub/a.ipynb', 'sub/b.ipynb']);
    // the same file named twice is processed once
    const t = cli(['sub/a.ipynb', './sub/a.ipynb'], dir);
    expect(t.stdout.trimEnd().split('\n').length).toBe(1);
  });
});

/** A writable stream that remembers what was written; `isTTY` as asked. */
function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({ write(chunk, _enc, cb) { chunks.push(String(chunk)); cb(); } }) as Writable & { isTTY: boolean; text: () => string };
  w.isTTY = isTTY;
  w.text = () => chunks.join('');
  return w;
}

describe('main() in-process: progress bar on a terminal', () => {
  it('draws a bar on a TTY stderr, keeps stdout plain', async () => {
    const dir = tempDir();
    for (const n of ['a', 'b', 'c']) copyFileSync(DEMO, join(dir, `${n}.ipynb`));
    const out = sink(false);
    const err = sink(true);
    const code = await main(['*.ipynb'], { stdout: out, stderr: err, cwd: dir, readStdin: async () => new Uint8Array() });
    expect(code).toBe(0);
    expect(out.text()).toBe(['a', 'b', 'c']
      .map((n) => line(`${n}-comp.ipynb`, 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n').join(''));
    expect(err.text()).toContain('3/3 files');
    expect(err.text()).toContain('\x1b[?25l'); // cursor hidden while drawing...
    expect(err.text()).toContain('\x1b[?25h'); // ...and shown again
  });

  it('no bar with --no-progress, for one file, or when stderr is not a terminal', async () => {
    const dir = tempDir();
    for (const n of ['a', 'b']) copyFileSync(DEMO, join(dir, `${n}.ipynb`));
    for (const [args, tty] of [[['--no-progress', 'a.ipynb', 'b.ipynb'], true], [['a.ipynb'], true], [['a.ipynb', 'b.ipynb'], false]] as const) {
      const err = sink(tty);
      const code = await main([...args], { stdout: sink(false), stderr: err, cwd: dir, readStdin: async () => new Uint8Array() });
      expect(code).toBe(0);
      expect(err.text()).toBe('');
    }
  });

  it('report lines for a terminal stdout go through the bar, failures too', async () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'a.ipynb'));
    writeFileSync(join(dir, 'z.ipynb'), 'nope');
    const out = sink(true);
    const err = sink(true);
    const code = await main(['a.ipynb', 'z.ipynb'], { stdout: out, stderr: err, cwd: dir, readStdin: async () => new Uint8Array() });
    expect(code).toBe(1);
    expect(out.text()).toBe('');
    expect(err.text()).toContain(line('a-comp.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(err.text()).toMatch(/dlg-compact: z\.ipynb: \S[^\n]*\n/);
  });
});

describe.skipIf(!HAVE_SHARED)('dlg-compact on the conformance dialogs', () => {
  const dialogs = shared('conformance', 'dialogs');
  const manifest = HAVE_SHARED
    ? (JSON.parse(readFileSync(join(dialogs, 'manifest.json'), 'utf8')) as { name: string; messages: number; prompts: number }[])
    : [];
  const names = manifest.map((m) => m.name);
  const flatDir = tempDir();
  const dialogDir = tempDir();
  let flatRun: Run;
  let dialogRun: Run;
  let validate: (nb: unknown) => boolean;

  beforeAll(() => {
    const schema = JSON.parse(readFileSync(shared('schemas', 'nbformat.v4.5.schema.json'), 'utf8'));
    delete schema.$schema; // draft-04 marker: ajv 8 reads the rest of this schema as is
    validate = new Ajv.default({ strict: false, allErrors: true }).compile(schema);
    for (const n of names) {
      copyFileSync(join(dialogs, `${n}.ipynb`), join(flatDir, `${n}.ipynb`));
      copyFileSync(join(dialogs, `${n}.ipynb`), join(dialogDir, `${n}.ipynb`));
    }
    flatRun = cli(['--json', '--jobs', '2', '*.ipynb'], flatDir);
    dialogRun = cli(['--mode', 'dialog', '--jobs', '2', '.'], dialogDir);
  }, 600_000);

  it('both runs succeed with one report per dialog', () => {
    expect(flatRun.stderr).toBe('');
    expect(flatRun.code).toBe(0);
    expect(flatRun.stdout.trimEnd().split('\n').length).toBe(names.length);
    expect(dialogRun.stderr).toBe('');
    expect(dialogRun.code).toBe(0);
    expect(dialogRun.stdout.trimEnd().split('\n').length).toBe(names.length);
  });

  it('--json records carry the manifest counts of messages and prompts', () => {
    const recs = flatRun.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(recs.map((r) => [r.path, r.output, r.status, r.messages, r.prompts]))
      .toEqual(manifest.map((m) => [`${m.name}.ipynb`, `${m.name}-comp.ipynb`, 'written', m.messages, m.prompts]));
  });

  it.each(names)('%s: default mode output validates and its raw cell equals NNN.flat.md', (n) => {
    const nb = JSON.parse(readFileSync(join(flatDir, `${n}-comp.ipynb`), 'utf8'));
    expect(validate(nb)).toBe(true);
    expect(nb.cells.length).toBe(1);
    expect(nb.cells[0].cell_type).toBe('raw');
    expect(cellSource(nb.cells[0])).toBe(readFileSync(join(dialogs, `${n}.flat.md`), 'utf8'));
    // the input is left as it was (Buffer.equals: vitest's deep equality is slow on megabytes)
    expect(readFileSync(join(flatDir, `${n}.ipynb`)).equals(readFileSync(join(dialogs, `${n}.ipynb`)))).toBe(true);
  });

  it.each(names)('%s: --mode dialog output equals NNN.compact.ipynb byte for byte and validates', (n) => {
    const out = readFileSync(join(dialogDir, `${n}-comp.ipynb`));
    expect(out.equals(readFileSync(join(dialogs, `${n}.compact.ipynb`)))).toBe(true);
    expect(validate(JSON.parse(out.toString('utf8')))).toBe(true);
  });

  it('a second run over the same directory rewrites nothing', () => {
    const before = Object.fromEntries(names.map((n) => [n, statSync(join(flatDir, `${n}-comp.ipynb`)).mtimeMs]));
    const r = cli(['--jobs', '2', '*.ipynb'], flatDir);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/: unchanged,/g)?.length).toBe(names.length);
    expect(Object.fromEntries(names.map((n) => [n, statSync(join(flatDir, `${n}-comp.ipynb`)).mtimeMs]))).toEqual(before);
  }, 600_000);

  const small = ['002', '008', '024', 'odd-010'];
  it.each(small)('%s: --in-place equals NNN.compact.ipynb', (n) => {
    const dir = tempDir();
    copyFileSync(join(dialogs, `${n}.ipynb`), join(dir, `${n}.ipynb`));
    const r = cli(['--mode', 'dialog', '--in-place', `${n}.ipynb`], dir);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, `${n}.ipynb`)).equals(readFileSync(join(dialogs, `${n}.compact.ipynb`)))).toBe(true);
  });

  it.each(small)('%s: stdin to stdout equals NNN.flat.md (flat) and NNN.compact.ipynb (dialog)', (n) => {
    const input = readFileSync(join(dialogs, `${n}.ipynb`));
    const f = cli(['-'], ROOT, input);
    expect(f.code).toBe(0);
    expect(f.stdout).toBe(readFileSync(join(dialogs, `${n}.flat.md`), 'utf8') + '\n');
    const d = cli(['--mode', 'dialog', '-o', '-', '-'], ROOT, input);
    expect(d.code).toBe(0);
    expect(d.stdout).toBe(readFileSync(join(dialogs, `${n}.compact.ipynb`), 'utf8'));
  });

  it('the demo dialog validates against the schema, and so do both of its outputs', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    expect(validate(JSON.parse(demoBytes.toString('utf8')))).toBe(true);
    expect(cli(['demo.ipynb'], dir).code).toBe(0);
    expect(validate(JSON.parse(readFileSync(join(dir, 'demo-comp.ipynb'), 'utf8')))).toBe(true);
    expect(cli(['--mode', 'dialog', '-o', 'd.ipynb', 'demo.ipynb'], dir).code).toBe(0);
    expect(validate(JSON.parse(readFileSync(join(dir, 'd.ipynb'), 'utf8')))).toBe(true);
    expect(validate({ cells: [{ cell_type: 'raw' }], metadata: {}, nbformat: 4, nbformat_minor: 5 })).toBe(false);
  });
});
