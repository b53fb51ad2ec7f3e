/**
 * End-to-end tests of the `dlg-compact` command. They run the BUILT command, `node dist/bin/main.js`,
 * in temporary directories, the way a user would, and look at exit codes, streams and files.
 *
 * Build: CI runs `npm run build` before `npm test`. Run alone (`npx vitest run test/cli.test.ts`),
 * this file runs the build first when some src/*.ts is newer than its output (type
 * errors elsewhere do not stop tsc from emitting; a missing command afterwards fails loudly).
 *
 * Expected values: for the conformance dialogs, the reference's files (`NNN.flat.md`,
 * `NNN.compact.ipynb`, manifest counts); for the demo dialog, the library's own functions (which
 * the library's conformance suites pin), since what is tested here is the command's plumbing.
 * One suite runs `main()` in-process to see the progress bar with a fake terminal.
 *
 * Strategies (`--strategy summary|micro`): expected cell ids and counts come from the planner
 * (`planDialogSummary`) or, for micro, from the dialog itself (its tool results parsed with
 * `fmt2hist`, the clearing rule applied in this file); the LLM summariser is exercised against
 * a real HTTP server on 127.0.0.1. The spawned command never sees the machine's LLM settings
 * (DLG_COMPACT_* and OPENAI_* are removed from its environment unless a test sets them).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt } from './built-cli.js';
import { HAVE_SHARED, ROOT, shared } from './support.js';
import { schemaErrors } from './nbschema.js';
import { readsIpynbBytes, dumpsIpynb } from '../src/notebook/index.js';
import { compactDialog, dlg2compact, measureFlat } from '../src/dialog/compact.js';
import { compactBody } from '../src/dsl/continuation.js';
import { flatDocument } from '../src/notebook/flat-notebook.js';
import { measureDialog } from '../src/dialog/measure.js';
import { Dialog } from '../src/dialog/dialog.js';
import { planDialogSummary } from '../src/dialog/summarize.js';
import { fmt2hist } from '../src/chat/index.js';
import { main, printable } from '../src/cli/main.js';

const DEMO = join(ROOT, 'notebooks', 'demo.ipynb');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const CLASSES = ['user', 'assistant', 'calls', 'results', 'code', 'total'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const LLM_VARS = ['DLG_COMPACT_MODEL', 'DLG_COMPACT_BASE_URL', 'DLG_COMPACT_API_KEY', 'OPENAI_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'];

/** The command's environment: this process's, without LLM settings, plus `extra`. */
function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DLG_COMPACT_DEBUG: '' };
  for (const v of LLM_VARS) delete env[v];
  return { ...env, ...extra };
}

/** Run `node dist/bin/main.js ...args` in `cwd`; `input` is fed to standard input. */
function rawCli(args: string[], cwd: string, input?: string | Buffer, env?: Record<string, string>): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: cliEnv(env),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The file sizes that end each text report line (`, 45 KB → 9 KB`); their own test checks them. */
const REPORT_SIZES = /(tokens \([^\n]*?\)), \d+(?:\.\d)? (?:B|KB|MB) → (?:\d+(?:\.\d)? (?:B|KB|MB)|\?)$/gm;
const noSizes = (s: string): string => s.replace(REPORT_SIZES, '$1');

/** {@link rawCli} with the file sizes left out of the report lines. */
function cli(args: string[], cwd: string, input?: string | Buffer, env?: Record<string, string>): Run {
  const r = rawCli(args, cwd, input, env);
  return { code: r.code, stdout: noSizes(r.stdout), stderr: noSizes(r.stderr) };
}

/**
 * Like {@link cli}, without blocking this process's event loop (so that a server running in
 * it can answer the command); the command is killed after `timeoutMs`.
 */
function cliAsync(args: string[], cwd: string, env?: Record<string, string>, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: noSizes(stdout), stderr: noSizes(stderr) });
    });
  });
}

/** Schema errors of a notebook text, or '' when valid; the schema lives in ../shared/, so without it this checks nothing. */
function schemaErrorsIfShared(text: string): string {
  return HAVE_SHARED ? schemaErrors(text) : '';
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

function change(before: number, after: number): string {
  if (before === 0) return after === 0 ? '0.0% saved' : 'none before';
  if (after === before) return '0.0% saved';
  const p = ((Math.abs(before - after) / before) * 100).toFixed(1);
  return `${p === '0.0' ? '<0.1' : p}% ${after > before ? 'more' : 'saved'}`;
}

function line(out: string, status: string, messages: number, before: number, after: number): string {
  return `${out}: ${status}, ${messages} messages, ${before} → ${after} tokens (${change(before, after)})`;
}

/** The closing line of a run over several inputs: `N files: COUNTS; BEFORE → AFTER tokens (…)`. */
function totalLine(files: number, counts: string, before: number, after: number): string {
  return `${files} files: ${counts}; ${before} → ${after} tokens (${change(before, after)})`;
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
/** The flat document the command writes for the demo: the legend names `source` (relative to the output). */
const demoDoc = (source: string | null, policy?: Record<string, number>): string => flatDocument(demo(), { source, policy });

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
    expect(r.stdout.startsWith('Usage: dlg-compact [options] [inputs...]\n')).toBe(true);
    for (const opt of [
      '--mode',
      '--to',
      '--output',
      '--in-place',
      '--user-toks',
      '--asst-toks',
      '--call-toks',
      '--result-toks',
      '--strategy',
      '--max-tokens',
      '--keep-recent',
      '--llm-url',
      '--llm-model',
      '--check',
      '--json',
      '--jobs',
      '--no-progress',
      '--profile',
      '--no-legend',
      '--output-dir',
      '--stdout',
      '--quiet',
      '--verbose',
      '--dry-run',
      '--watch',
      '--print-config',
      '--keep-tools',
      '--min-saving',
      '--version',
      '--help',
    ]) {
      expect(r.stdout).toContain(opt);
    }
    expect(r.stdout).toContain('Examples:\n  dlg-compact notebooks/demo.ipynb');
    expect(r.stdout).toContain('\n  dlg-compact --strategy summary --max-tokens 100000 --keep-recent 6 nbs/\n');
    expect(r.stdout).toContain('\n  dlg-compact --strategy micro --in-place --check demo.ipynb');
    expect(r.stdout).toContain('OPENAI_MODEL alone never sends a dialog anywhere');
    expect(r.stdout).toContain('Exit status: 0 all done; 1 some file failed');
  });

  const dir = tempDir();
  copyFileSync(DEMO, join(dir, 'demo.ipynb'));
  copyFileSync(DEMO, join(dir, 'other.ipynb'));
  const before = snapshot(dir);
  const cases: [string, string[], string][] = [
    ['no input', [], 'missing input: name notebooks, directories, quoted globs, or - for standard input'],
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
    ['dialog mode into a .md file', ['--mode', 'dialog', '-o', 'z.md', 'demo.ipynb'], '--mode dialog writes a notebook; -o z.md names a Markdown file'],
    ['micro into a .md file', ['--strategy', 'micro', '-o', 'z.MD', 'demo.ipynb'], '--strategy micro writes a notebook; -o z.MD names a Markdown file'],
    ['--output with two inputs', ['-o', 'x.ipynb', 'demo.ipynb', 'other.ipynb'], '--output needs exactly one input, got 2'],
    ['--output with a glob of two', ['-o', 'x.ipynb', '*.ipynb'], "--output needs exactly one input, got 2 (from '*.ipynb')"],
    ['--stdout with two inputs: the message names the flag given', ['--stdout', 'demo.ipynb', 'other.ipynb'], '--stdout needs exactly one input, got 2'],
    ['--stdout with --output-dir', ['--stdout', '--output-dir', 'out', 'demo.ipynb'], '--output-dir and --stdout are exclusive'],
    ['stdin twice', ['-', '-'], 'standard input (-) can be read only once'],
    ['--output equal to the input', ['-o', 'demo.ipynb', 'demo.ipynb'], 'refusing to overwrite the input demo.ipynb'],
    ['--output equal to the input, other spelling', ['--mode', 'dialog', '-o', './demo.ipynb', 'demo.ipynb'], 'refusing to overwrite the input demo.ipynb'],
    ['unknown strategy', ['--strategy', 'magic', 'demo.ipynb'], 'Allowed choices are dsl, summary, micro'],
    ['summary --in-place', ['--strategy', 'summary', '--in-place', 'demo.ipynb'], '--in-place cannot be used with --strategy summary'],
    [
      '--mode flat with micro',
      ['--mode', 'flat', '--strategy', 'micro', 'demo.ipynb'],
      '--strategy micro writes a dialog notebook; it cannot be combined with --mode flat',
    ],
    [
      '--mode flat with summary',
      ['--strategy', 'summary', '--mode=flat', 'demo.ipynb'],
      '--strategy summary writes a dialog notebook; it cannot be combined with --mode flat',
    ],
    [
      '--to md with summary',
      ['--strategy', 'summary', '--to', 'md', 'demo.ipynb'],
      '--strategy summary writes a dialog notebook; it cannot be combined with --to md',
    ],
    ['--max-tokens with micro', ['--strategy', 'micro', '--max-tokens', '1000', 'demo.ipynb'], '--max-tokens has no effect with --strategy micro'],
    ['--keep-recent with dsl', ['--mode', 'dialog', '--keep-recent', '2', 'demo.ipynb'], '--keep-recent needs --strategy summary or micro'],
    ['--keep-recent -1', ['--strategy', 'micro', '--keep-recent', '-1', 'demo.ipynb'], "argument '-1' is invalid"],
    ['--max-tokens 0', ['--strategy', 'summary', '--max-tokens', '0', 'demo.ipynb'], "argument '0' is invalid"],
    ['--llm-url with dsl', ['--llm-url', 'http://127.0.0.1:9/v1', 'demo.ipynb'], '--llm-url needs --strategy summary'],
    ['--llm-model with micro', ['--strategy', 'micro', '--llm-model', 'x', 'demo.ipynb'], '--llm-model has no effect with --strategy micro'],
    ['--llm-url without a model', ['--strategy', 'summary', '--llm-url', 'http://127.0.0.1:9/v1', 'demo.ipynb'], 'the LLM summariser needs a model'],
    [
      '--llm-url not a URL',
      ['--strategy', 'summary', '--llm-url', 'localhost 8080', '--llm-model', 'x', 'demo.ipynb'],
      'the LLM base URL is not a URL: localhost 8080',
    ],
    ['--llm-url not http', ['--strategy', 'summary', '--llm-url', 'file:///tmp/x', '--llm-model', 'x', 'demo.ipynb'], 'the LLM base URL must be http or https'],
    ['a DSL budget with micro', ['--strategy', 'micro', '--result-toks', '5', 'demo.ipynb'], '--result-toks has no effect with --strategy micro'],
    [
      'a DSL budget with an LLM summary',
      ['--strategy', 'summary', '--llm-model', 'x', '--asst-toks', '5', 'demo.ipynb'],
      '--asst-toks has no effect with an LLM summariser',
    ],
    ['--in-place in flat mode, with the strategy named', ['--strategy', 'dsl', '-i', 'demo.ipynb'], '--in-place needs --mode dialog or --strategy micro'],
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
    expect(compactBody(cellSource(nb.cells[0]))).toBe(dlg2compact(demo()));
    expect(cellSource(nb.cells[0])).toBe(demoDoc('demo.ipynb'));
    // the flat document really is smaller, and its first cell is the demo's first note
    expect(demoFlat.tokens.total).toBeLessThan(demoStats.tokens.total / 2);
    expect(demoFlat.text.startsWith('§ # Why does the nightly order import take 15 seconds?')).toBe(true);
  });

  it('the report line gives the file sizes before and after', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = rawCli(['--to', 'md', 'demo.ipynb'], dir);
    expect(r.code).toBe(0);
    const out = readFileSync(join(dir, 'demo-comp.md'));
    const kb = (n: number): string => (n < 1024 ? `${n} B` : `${Math.round(n / 1024)} KB`);
    expect(r.stdout).toBe(
      `${line('demo-comp.md', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total)}, ${kb(demoBytes.length)} → ${kb(out.length)}\n`,
    );
  });

  it('never writes over another input of the same run: that file fails, the others complete', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'a.ipynb'));
    // a real notebook (other cells) that happens to carry the name of a.ipynb's default output
    const other = readsIpynbBytes(demoBytes, 'a-comp.ipynb');
    other.messages.forEach((m, i) => (m.id = `own-${i}`));
    const otherBytes = Buffer.from(dumpsIpynb(other));
    writeFileSync(join(dir, 'a-comp.ipynb'), otherBytes);
    const r = cli(['a.ipynb', 'a-comp.ipynb'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'dlg-compact: a.ipynb: its output a-comp.ipynb is also an input of this run; refusing to overwrite an input (rename it, or choose another output with -o)\n',
    );
    expect(r.stdout.startsWith('a-comp-comp.ipynb: written, 15 messages, ')).toBe(true);
    expect(r.stdout.split('\n')[1]).toMatch(/^2 files: 1 written, 1 failed; \d+ → \d+ tokens \(\d+\.\d% saved\)$/);
    expect(r.stdout.split('\n').length).toBe(3);
    expect(readFileSync(join(dir, 'a-comp.ipynb')).equals(otherBytes)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['a-comp-comp.ipynb', 'a-comp.ipynb', 'a.ipynb']);
  });

  it('--to ipynb sends the flat notebook to standard output; without it standard output gets Markdown', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const nbRun = cli(['--to', 'ipynb', 'demo.ipynb', '-o', '-'], dir);
    expect(nbRun.code).toBe(0);
    const nb = JSON.parse(nbRun.stdout);
    expect(nb.cells.length).toBe(1);
    expect(cellSource(nb.cells[0])).toBe(demoDoc('demo.ipynb'));
    expect(schemaErrorsIfShared(nbRun.stdout)).toBe('');
    const mdRun = cli(['demo.ipynb', '-o', '-'], dir);
    expect(mdRun.code).toBe(0);
    expect(mdRun.stdout).toBe(demoDoc('demo.ipynb') + '\n');
    expect(readdirSync(dir)).toEqual(['demo.ipynb']);
  });

  it('file names with control characters are reported escaped; symlinked folders are not followed; link loops are named', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'tree', 'a'), { recursive: true });
    copyFileSync(DEMO, join(dir, 'tree', 'a', 'x.ipynb'));
    symlinkSync('..', join(dir, 'tree', 'a', 'up'));
    const t = cli(['tree'], dir);
    expect(t.code).toBe(0);
    expect(t.stdout).toBe(line('tree/a/x-comp.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    copyFileSync(DEMO, join(dir, 'c\x1b[31mred.ipynb'));
    const c = cli(['c\x1b[31mred.ipynb'], dir);
    expect(c.code).toBe(0);
    expect(c.stdout).toBe(line('c\\x1b[31mred-comp.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(printable('a\x00b\x7f\x9fc\n')).toBe('a\\x00b\\x7f\\x9fc\\x0a');
    symlinkSync('loop', join(dir, 'loop'));
    const l = cli(['loop'], dir);
    expect(l.code).toBe(1);
    expect(l.stderr).toBe('dlg-compact: loop: cannot read: too many levels of symbolic links\n');
  });

  it('a quoted glob with --in-place skips outputs of earlier runs beside their inputs', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'nbs'));
    copyFileSync(DEMO, join(dir, 'nbs', 'a.ipynb'));
    expect(cli(['nbs/a.ipynb'], dir).code).toBe(0); // leaves the flat nbs/a-comp.ipynb
    const flatOut = readFileSync(join(dir, 'nbs', 'a-comp.ipynb'));
    const r = cli(['--mode', 'dialog', '--in-place', 'nbs/*.ipynb'], dir);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(':')[0]),
    ).toEqual(['nbs/a.ipynb', '2 files']);
    expect(r.stdout.split('\n')[1]).toMatch(/^2 files: 1 written, 1 skipped; \d+ → \d+ tokens /);
    // -v names the output the glob met (the input, rewritten already, is now unchanged).
    const v = cli(['--mode', 'dialog', '--in-place', '-v', 'nbs/*.ipynb'], dir);
    expect(v.stdout.split('\n')[0]).toBe('nbs/a-comp.ipynb: skipped (an output of dlg-compact)');
    expect(readFileSync(join(dir, 'nbs', 'a-comp.ipynb')).equals(flatOut)).toBe(true);
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
    expect(readFileSync(join(dir, 'demo-comp.md'), 'utf8')).toBe(demoDoc('demo.ipynb') + '\n');
    expect(existsSync(join(dir, 'demo-comp.ipynb'))).toBe(false);
  });

  it('-o PATH ending in .md writes Markdown; -o PATH.ipynb a notebook', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    mkdirSync(join(dir, 'out'));
    expect(cli(['demo.ipynb', '-o', 'out/flat.md'], dir).code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'flat.md'), 'utf8')).toBe(demoDoc('../demo.ipynb') + '\n');
    const r = cli(['--output', 'out/flat.ipynb', 'demo.ipynb'], dir);
    expect(r.stdout).toContain('out/flat.ipynb: written, 15 messages');
    expect(cellSource(JSON.parse(readFileSync(join(dir, 'out', 'flat.ipynb'), 'utf8')).cells[0])).toBe(demoDoc('../demo.ipynb'));
  });

  it('budget options reach the renderer', () => {
    const policy = { userToks: 40, asstToks: 20, callToks: 10, resultToks: 5 };
    const r = cli(['--user-toks', '40', '--asst-toks', '20', '--call-toks', '10', '--result-toks', '5', '-o', '-', DEMO], ROOT);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(demoDoc(relative(ROOT, DEMO), policy) + '\n');
    expect(r.stdout).not.toBe(demoDoc(relative(ROOT, DEMO)) + '\n');
    const z = cli(['--result-toks=0', '-o', '-', DEMO], ROOT);
    expect(z.stdout).toBe(demoDoc(relative(ROOT, DEMO), { resultToks: 0 }) + '\n');
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
    expect(r.stdout).toBe(demoDoc(null) + '\n');
    expect(r.stderr).toBe(line('<stdin> → <stdout>', 'printed', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
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
    expect(cellSource(JSON.parse(readFileSync(join(dir, 'fromstdin.ipynb'), 'utf8')).cells[0])).toBe(demoDoc(null));
    const r2 = cli(['-o', '-', DEMO], dir);
    expect(r2.stdout).toBe(demoDoc(relative(dir, DEMO)) + '\n');
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
      line('a-comp.ipynb', 'would write', 15, demoStats.tokens.total, demoFlat.tokens.total) +
        '\n' +
        line('b-comp.ipynb', 'would write', 15, demoStats.tokens.total, demoFlat.tokens.total) +
        '\n' +
        totalLine(2, '2 would write', 2 * demoStats.tokens.total, 2 * demoFlat.tokens.total) +
        '\n',
    );
    expect(totalLine(2, '2 would write', 2 * demoStats.tokens.total, 2 * demoFlat.tokens.total)).toBe(
      '2 files: 2 would write; 10058 → 4396 tokens (56.3% saved)',
    );
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
    // The report goes where it would go if the document were printed: to standard error.
    const s = cli(['--check', '-'], dir, demoBytes);
    expect(s.code).toBe(0);
    expect(s.stderr).toBe(line('<stdin> → <stdout>', 'would print', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expect(s.stdout).toBe('');
  });

  it('--json prints one record per file with exactly the documented fields', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = cli(['--json', 'demo.ipynb'], dir);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(1);
    const rec = JSON.parse(lines[0]);
    expect(Object.keys(rec)).toEqual(['path', 'output', 'status', 'strategy', 'mode', 'format', 'messages', 'prompts', 'toolCalls', 'tokens', 'bytes']);
    expect(Object.keys(rec.tokens)).toEqual(['before', 'after']);
    expect(Object.keys(rec.tokens.before)).toEqual(CLASSES);
    expect(Object.keys(rec.tokens.after)).toEqual(CLASSES);
    expect(rec).toEqual({
      path: 'demo.ipynb',
      output: 'demo-comp.ipynb',
      status: 'written',
      strategy: 'dsl',
      mode: 'flat',
      format: 'ipynb',
      messages: 15,
      prompts: 4,
      toolCalls: 5,
      tokens: { before: demoStats.tokens, after: demoFlat.tokens },
      // the sizes of the files as they are on disk
      bytes: { before: statSync(DEMO).size, after: statSync(join(dir, 'demo-comp.ipynb')).size },
    });
    expect(demoStats).toMatchObject({ messages: 15, prompts: 4, toolCalls: 5 });
    // a failing file has a record too, with the message that stderr shows
    writeFileSync(join(dir, 'bad.ipynb'), 'not a notebook');
    const f = cli(['--json', 'bad.ipynb', 'demo.ipynb'], dir);
    expect(f.code).toBe(1);
    const recs = f.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(recs.length).toBe(2);
    expect(Object.keys(recs[0])).toEqual(['path', 'status', 'error']);
    expect(recs[0].path).toBe('bad.ipynb');
    expect(f.stderr).toBe(`dlg-compact: ${recs[0].error}\n`);
    expect(recs[1].status).toBe('unchanged');
  });

  it('--json says what each output is: mode and format', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const rec = (args: string[]) => {
      const r = cli(['--json', ...args], dir);
      expect(r.code).toBe(0);
      const { mode, format, strategy } = JSON.parse(r.stdout);
      return { mode, format, strategy };
    };
    expect(rec(['demo.ipynb'])).toEqual({ mode: 'flat', format: 'ipynb', strategy: 'dsl' });
    expect(rec(['demo.ipynb', '-o', 'flat.md'])).toEqual({ mode: 'flat', format: 'md', strategy: 'dsl' });
    expect(rec(['demo.ipynb', '--mode', 'dialog'])).toEqual({ mode: 'dialog', format: 'ipynb', strategy: 'dsl' });
    expect(rec(['demo.ipynb', '--strategy', 'micro', '-o', 'micro.ipynb'])).toEqual({ mode: 'dialog', format: 'ipynb', strategy: 'micro' });
  });

  it('many files with one broken: the others are written, the broken one is named, exit 1', () => {
    for (const jobs of ['1', '2']) {
      const dir = tempDir();
      for (const n of ['a', 'b', 'c']) copyFileSync(DEMO, join(dir, `${n}.ipynb`));
      writeFileSync(join(dir, 'broken.ipynb'), '{"cells": [ {"cell_type": "code"');
      const r = cli(['--jobs', jobs, '*.ipynb'], dir);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(
        ['a', 'b', 'c'].map((n) => line(`${n}-comp.ipynb`, 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n').join('') +
          totalLine(4, '3 written, 1 failed', 3 * demoStats.tokens.total, 3 * demoFlat.tokens.total) +
          '\n',
      );
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

  it('--jobs 2 starts its workers before planning: a run that plans one job or fails to plan still ends at once', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'a.ipynb'));
    copyFileSync(DEMO, join(dir, 'b.ipynb'));
    // A run left waiting on an unused worker would hit the spawn's timeout (code null).
    const one = cli(['--jobs', '2', 'a.ipynb'], dir);
    expect([one.code, one.stderr]).toEqual([0, '']);
    expect(one.stdout).toBe(line('a-comp.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
    expectUsageError(cli(['--jobs', '2', '-o', 'x.ipynb', 'a.ipynb', 'b.ipynb'], dir), '--output needs exactly one input, got 2');
    const none = cli(['--jobs', '2', 'a-comp.ipynb'], dir);
    expect(none).toEqual({ code: 0, stdout: 'a-comp.ipynb: skipped (an output of dlg-compact)\n', stderr: '' });
    expect(readdirSync(dir).sort()).toEqual(['a-comp.ipynb', 'a.ipynb', 'b.ipynb']);
  });

  it('--jobs 2 whose worker cannot load: this thread does the files it was given, exit 0', () => {
    // A copy of the built command without its worker module (the bundle needs nothing else).
    const pkg = tempDir();
    cpSync(join(ROOT, 'dist', 'bin'), join(pkg, 'dist', 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist', 'tokens', 'o200k.table'), join(pkg, 'dist', 'tokens', 'o200k.table'));
    cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    rmSync(join(pkg, 'dist', 'bin', 'worker.js'));
    const dir = tempDir();
    for (const n of ['a', 'b', 'c', 'd']) copyFileSync(DEMO, join(dir, `${n}.ipynb`));
    const r = spawnSync(process.execPath, [join(pkg, 'dist', 'bin', 'main.js'), '--no-progress', '--no-config', '--jobs', '2', '.'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(noSizes(r.stdout)).toBe(
      ['a', 'b', 'c', 'd'].map((n) => line(`${n}-comp.ipynb`, 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n').join('') +
        totalLine(4, '4 written', 4 * demoStats.tokens.total, 4 * demoFlat.tokens.total) +
        '\n',
    );
  });

  it('an output whose parent is not a writable directory: a clear error naming it, exit 1', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    writeFileSync(join(dir, 'plainfile'), 'x');
    const r = cli(['demo.ipynb', '-o', 'plainfile/out.ipynb'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('dlg-compact: plainfile/out.ipynb: cannot write: a component of the path is not a directory\n');
    // A read-only directory stops writes only for non-root users; root (as in CI containers)
    // writes anyway. A missing folder is created, as nbconvert creates it.
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    const asRoot = process.getuid?.() === 0;
    chmodSync(ro, 0o555);
    try {
      const r2 = cli(['demo.ipynb', '-o', 'ro/out.ipynb'], dir);
      expect(r2.code).toBe(asRoot ? 0 : 1);
      expect(r2.stderr).toBe(asRoot ? '' : 'dlg-compact: ro/out.ipynb: cannot write: permission denied\n');
    } finally {
      chmodSync(ro, 0o755);
    }
    const r3 = cli(['demo.ipynb', '-o', 'new/dir/out.ipynb'], dir);
    expect(r3.code).toBe(0);
    expect(existsSync(join(dir, 'new', 'dir', 'out.ipynb'))).toBe(true);
  });

  it.each([
    ['plain text', Buffer.from('hello, not a notebook\n')],
    ['JSON that is not a notebook', Buffer.from('{"a": 1}\n')],
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5, "x": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    ],
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
      'dlg-compact: missing.ipynb: cannot read: no such file or directory\n' + 'dlg-compact: nothing-*.ipynb: no files match this pattern\n',
    );
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
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split(':')[0]),
    ).toEqual(['sub/a-comp.ipynb', 'sub/b-comp.ipynb', 'odd[1]-comp.ipynb', '3 files']);
    // The glob's sub/a-comp.ipynb is skipped as an input and reported once, as a.ipynb's output.
    expect(r.stdout).not.toContain('skipped');
    expect(r.stdout).toContain('sub/a-comp.ipynb: unchanged,');
    // a directory stands for every notebook below it, checkpoints excluded
    const d = cli(['--json', '--check', 'sub'], dir);
    expect(
      d.stdout
        .trimEnd()
        .split('\n')
        .map((l) => `${JSON.parse(l).path} ${JSON.parse(l).status}`),
    ).toEqual(['sub/a.ipynb unchanged', 'sub/b.ipynb unchanged']);
    // the same file named twice is processed once
    const t = cli(['sub/a.ipynb', './sub/a.ipynb'], dir);
    expect(t.stdout.trimEnd().split('\n').length).toBe(1);
  });
});

/** A writable stream that remembers what was written; `isTTY` as asked. */
function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  }) as Writable & { isTTY: boolean; text: () => string };
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
    expect(noSizes(out.text())).toBe(
      ['a', 'b', 'c'].map((n) => line(`${n}-comp.ipynb`, 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n').join('') +
        totalLine(3, '3 written', 3 * demoStats.tokens.total, 3 * demoFlat.tokens.total) +
        '\n',
    );
    expect(err.text()).toContain('3/3 files');
    expect(err.text()).toContain('\x1b[?25l'); // cursor hidden while drawing...
    expect(err.text()).toContain('\x1b[?25h'); // ...and shown again
  });

  it('with both streams on a terminal, every report line and the total reach stdout around the bar', async () => {
    const dir = tempDir();
    for (const n of ['a', 'b']) copyFileSync(DEMO, join(dir, `${n}.ipynb`));
    const out = sink(true);
    const err = sink(true);
    const code = await main(['*.ipynb'], { stdout: out, stderr: err, cwd: dir, readStdin: async () => new Uint8Array() });
    expect(code).toBe(0);
    // The bar's log carries the report lines to its terminal; the total comes after the bar is gone.
    expect(out.text()).toBe('');
    const lines = noSizes(err.text().replace(/\x1b\[[0-9;?]*[A-Za-z]|\r/g, '\n'))
      .split('\n')
      .filter((l) => /^(?:[ab]-comp\.ipynb: |\d+ files: )/.test(l));
    expect(lines).toEqual([
      line('a-comp.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total),
      line('b-comp.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total),
      totalLine(2, '2 written', 2 * demoStats.tokens.total, 2 * demoFlat.tokens.total),
    ]);
    expect(err.text().endsWith(totalLine(2, '2 written', 2 * demoStats.tokens.total, 2 * demoFlat.tokens.total) + '\n')).toBe(true);
  });

  it('no bar with --no-progress, for one file, or when stderr is not a terminal', async () => {
    const dir = tempDir();
    for (const n of ['a', 'b']) copyFileSync(DEMO, join(dir, `${n}.ipynb`));
    for (const [args, tty] of [
      [['--no-progress', 'a.ipynb', 'b.ipynb'], true],
      [['a.ipynb'], true],
      [['a.ipynb', 'b.ipynb'], false],
    ] as const) {
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
    expect(err.text().endsWith(totalLine(2, '1 written, 1 failed', demoStats.tokens.total, demoFlat.tokens.total) + '\n')).toBe(true);
    expect(noSizes(err.text())).toContain(line('a-comp.ipynb', 'written', 15, demoStats.tokens.total, demoFlat.tokens.total) + '\n');
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
    flatRun = cli(['--profile', 'reference', '--json', '--jobs', '2', '*.ipynb'], flatDir);
    dialogRun = cli(['--profile', 'reference', '--mode', 'dialog', '--jobs', '2', '.'], dialogDir);
  }, 600_000);

  it('both runs succeed with one report per dialog', () => {
    expect(flatRun.stderr).toBe('');
    expect(flatRun.code).toBe(0);
    expect(flatRun.stdout.trimEnd().split('\n').length).toBe(names.length);
    expect(dialogRun.stderr).toBe('');
    expect(dialogRun.code).toBe(0);
    const lines = dialogRun.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(names.length + 1);
    expect(lines.at(-1)).toMatch(new RegExp(`^${names.length} files: ${names.length} written; \\d+ → \\d+ tokens \\(\\d+\\.\\d% saved\\)$`));
  });

  it('--json records carry the manifest counts of messages and prompts', () => {
    const recs = flatRun.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(recs.map((r) => [r.path, r.output, r.status, r.messages, r.prompts])).toEqual(
      manifest.map((m) => [`${m.name}.ipynb`, `${m.name}-comp.ipynb`, 'written', m.messages, m.prompts]),
    );
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
    const r = cli(['--profile', 'reference', '--jobs', '2', '*.ipynb'], flatDir);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/: unchanged,/g)?.length).toBe(names.length);
    expect(Object.fromEntries(names.map((n) => [n, statSync(join(flatDir, `${n}-comp.ipynb`)).mtimeMs]))).toEqual(before);
  }, 600_000);

  const small = ['002', '008', '024', 'odd-010'];
  it.each(small)('%s: --in-place equals NNN.compact.ipynb', (n) => {
    const dir = tempDir();
    copyFileSync(join(dialogs, `${n}.ipynb`), join(dir, `${n}.ipynb`));
    const r = cli(['--profile', 'reference', '--mode', 'dialog', '--in-place', `${n}.ipynb`], dir);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, `${n}.ipynb`)).equals(readFileSync(join(dialogs, `${n}.compact.ipynb`)))).toBe(true);
  });

  it.each(small)('%s: stdin to stdout equals NNN.flat.md (flat) and NNN.compact.ipynb (dialog)', (n) => {
    const input = readFileSync(join(dialogs, `${n}.ipynb`));
    const f = cli(['--profile', 'reference', '-'], ROOT, input);
    expect(f.code).toBe(0);
    expect(f.stdout).toBe(readFileSync(join(dialogs, `${n}.flat.md`), 'utf8') + '\n');
    const d = cli(['--profile', 'reference', '--mode', 'dialog', '-o', '-', '-'], ROOT, input);
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

// ---------------------------------------------------------------------------------------------
// Strategies: --strategy summary | micro

/**
 * The text of each cell of a notebook written as nbformat writes it (indent 1): the lines from
 * `  {` to `  }` (a cell's own lines are indented deeper, so these lines only open and close
 * cells). Used to prove that kept cells are byte-identical.
 */
function cellChunks(text: string): string[] {
  const out: string[] = [];
  let cur: string[] | null = null;
  for (const l of text.split('\n')) {
    if (cur === null) {
      if (l === '  {') cur = [l];
      continue;
    }
    if (l === '  }' || l === '  },') {
      cur.push('  }');
      out.push(cur.join('\n'));
      cur = null;
    } else cur.push(l);
  }
  return out;
}

/** One tool call of a dialog, with its result text (`null` when the call has none). */
interface ToolRes {
  messageId: string;
  tool: string;
  text: string | null;
}

/** Every tool call in the replies of non-skipped prompts, in dialog order (as fmt2hist reads them). */
function toolResults(d: Dialog): ToolRes[] {
  const out: ToolRes[] = [];
  for (const m of d.messages) {
    if (m.type !== 'prompt' || m.skipped || m.reply === '') continue;
    const calls: { id: string; name: string }[] = [];
    const results = new Map<string, string[]>();
    for (const msg of fmt2hist(m.reply)) {
      for (const p of msg.content) {
        if (p.type === 'tool_use') calls.push({ id: p.id, name: p.name });
        else if (p.type === 'tool_result') {
          const q = results.get(p.id) ?? [];
          q.push(p.text);
          results.set(p.id, q);
        }
      }
    }
    for (const c of calls) out.push({ messageId: m.id, tool: c.name, text: results.get(c.id)?.shift() ?? null });
  }
  return out;
}

const PLACEHOLDER = /^\[Previous: used [^\]\n]*\]$/;

/**
 * Indexes (into {@link toolResults}) of the results micro-compaction clears (SPEC §9): all but
 * the newest `keep`, with a result of more than 100 code points that is not a placeholder
 * already, whose tool is not `read_file` (a leading `tools.` ignored).
 */
function expectedCleared(all: ToolRes[], keep = 3): number[] {
  const out: number[] = [];
  for (let i = 0; i < all.length - keep; i++) {
    const r = all[i]!;
    const tool = r.tool.startsWith('tools.') ? r.tool.slice(6) : r.tool;
    if (r.text === null || [...r.text].length <= 100 || PLACEHOLDER.test(r.text) || tool === 'read_file') continue;
    out.push(i);
  }
  return out;
}

/** Check a micro output against its input: cleared results are placeholders, the rest as it was. */
function expectMicroOutput(input: Dialog, output: Dialog, cleared: number[]): void {
  expect(output.messages.map((m) => [m.id, m.type, m.content])).toEqual(input.messages.map((m) => [m.id, m.type, m.content]));
  const all = toolResults(input);
  // The clean profile's placeholder names the tool and the UTF-8 size cleared (1 KB = 1024 B).
  const size = (t: string): string => {
    const n = Buffer.byteLength(t, 'utf8');
    return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`;
  };
  const want = all.map((r, i) => (cleared.includes(i) ? { ...r, text: `[Previous: used ${r.tool} · ${size(r.text ?? '')} cleared]` } : r));
  expect(toolResults(output)).toEqual(want);
  const touched = new Set(cleared.map((k) => all[k]!.messageId));
  for (const [i, m] of input.messages.entries()) {
    if (!touched.has(m.id)) expect(output.messages[i]!.reply).toBe(m.reply);
  }
}

const demoText = demoBytes.toString('utf8');
const demoIds = (JSON.parse(demoText) as { cells: { id: string }[] }).cells.map((c) => c.id);
const HEADER = (n: number) => `[Conversation summary - ${n} earlier cell(s) condensed]\n\n`;
const TRANSCRIPT = '\n\nIf further detail is needed, read the complete transcript at:';

interface NbCell {
  cell_type: string;
  id: string;
  metadata: Record<string, unknown>;
  source: string | string[];
}

function readNb(path: string): { text: string; nb: { cells: NbCell[] }; dialog: Dialog } {
  const bytes = readFileSync(path);
  const text = bytes.toString('utf8');
  return { text, nb: JSON.parse(text), dialog: readsIpynbBytes(bytes, path) };
}

function showIds(ids: string[]): string {
  return ids.length <= 8 ? ids.join(', ') : ids.slice(0, 8).join(', ') + ', …';
}

describe('dlg-compact --strategy summary (offline DSL summariser)', () => {
  const plan = planDialogSummary(demo(), null, { force: true });

  it('the planner replaces the first 11 of the 15 demo cells (default keep: max(2, ceil(15/4)) = 4, nothing pinned)', () => {
    expect(plan.wouldChange).toBe(true);
    expect(plan.replacedIds).toEqual(demoIds.slice(0, 11));
  });

  it('forced: <stem>-comp.ipynb holds one summary note then the kept cells, byte for byte; a rerun is unchanged', () => {
    const dir = realpathSync(tempDir());
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = cli(['--strategy', 'summary', 'demo.ipynb'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = readNb(join(dir, 'demo-comp.ipynb'));
    const after = measureDialog(out.dialog).tokens.total;
    expect(r.stdout).toBe(line('demo-comp.ipynb', 'written (summary of 11 cells)', 15, demoStats.tokens.total, after) + '\n');
    expect(after).toBeLessThan(demoStats.tokens.total);
    expect(readFileSync(join(dir, 'demo.ipynb')).equals(demoBytes)).toBe(true);
    // the note, then the 4 kept cells exactly as they were written in the input
    expect(out.nb.cells.length).toBe(5);
    expect(cellChunks(out.text).slice(1)).toEqual(cellChunks(demoText).slice(11));
    expect(cellChunks(demoText).length).toBe(15);
    const note = out.nb.cells[0]!;
    expect(note.cell_type).toBe('markdown');
    expect(note.id).toMatch(/^[0-9a-f]{8}$/);
    expect(demoIds).not.toContain(note.id);
    // the planner's estimate, with the source path the command records (part of the note):
    // the input relative to the output's folder, never an absolute local path
    const withSource = planDialogSummary(demo(), null, { force: true, sourcePath: 'demo.ipynb' });
    expect(withSource.replacedIds).toEqual(plan.replacedIds);
    expect(note.metadata).toEqual({
      dlg_compact: {
        kind: 'summary',
        replaced: 11,
        ids: demoIds.slice(0, 11),
        skipped_ids: [],
        source: 'demo.ipynb',
        summarizer: 'dsl',
        tokens_before: plan.tokensBefore,
        tokens_after: withSource.estimatedTokensAfter,
      },
    });
    const src = cellSource(note);
    expect(src.startsWith(HEADER(11))).toBe(true);
    expect(src.endsWith(`${TRANSCRIPT} demo.ipynb`)).toBe(true);
    expect(src).toContain(dlg2compact(new Dialog(demo().messages.slice(0, 11)), { recency: false }).trim());
    // the note's id is derived from the input, so the same run gives the same bytes
    const past = new Date('2001-02-03T04:05:06Z');
    utimesSync(join(dir, 'demo-comp.ipynb'), past, past);
    const r2 = cli(['--strategy', 'summary', 'demo.ipynb'], dir);
    expect(r2.code).toBe(0);
    expect(r2.stdout).toBe(line('demo-comp.ipynb', 'unchanged (summary of 11 cells)', 15, demoStats.tokens.total, after) + '\n');
    expect(statSync(join(dir, 'demo-comp.ipynb')).mtimeMs).toBe(past.getTime());
  });

  it('--max-tokens above the dialog: nothing to summarise, the dialog written as it was with the reason, exit 0', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    expect(planDialogSummary(demo(), null, { maxTokens: 1_000_000 })).toMatchObject({ wouldChange: false, reason: 'not-needed' });
    const c = cli(['--strategy', 'summary', '--max-tokens', '1000000', '--check', 'demo.ipynb'], dir);
    expect(c.code).toBe(1); // the output is missing: pending
    expect(c.stdout).toBe(line('demo-comp.ipynb', 'would write (summary refused: not-needed)', 15, demoStats.tokens.total, demoStats.tokens.total) + '\n');
    expect(readdirSync(dir)).toEqual(['demo.ipynb']);
    const r = cli(['--strategy', 'summary', '--max-tokens', '1000000', 'demo.ipynb'], dir);
    expect(r).toEqual({
      code: 0,
      stderr: '',
      stdout: line('demo-comp.ipynb', 'written (summary refused: not-needed)', 15, demoStats.tokens.total, demoStats.tokens.total) + '\n',
    });
    expect(readdirSync(dir)).toEqual(['demo-comp.ipynb', 'demo.ipynb']);
    // The demo notebook is in nbformat's own layout, so the copy is byte for byte the input.
    expect(readFileSync(join(dir, 'demo-comp.ipynb'))).toEqual(readFileSync(DEMO));
    const j = cli(['--strategy', 'summary', '--max-tokens', '1000000', '--json', 'demo.ipynb'], dir);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({
      path: 'demo.ipynb',
      output: 'demo-comp.ipynb',
      status: 'unchanged',
      strategy: 'summary',
      mode: 'dialog',
      format: 'ipynb',
      messages: 15,
      prompts: 4,
      toolCalls: 5,
      tokens: { before: demoStats.tokens, after: demoStats.tokens },
      bytes: { before: statSync(DEMO).size, after: statSync(DEMO).size },
      note: 'summary refused: not-needed',
      reason: 'not-needed',
      summary: { summarizer: 'dsl', replaced: 0, ids: [] },
    });
    expect(readdirSync(dir)).toEqual(['demo-comp.ipynb', 'demo.ipynb']);
  });

  it('--max-tokens below the dialog and --keep-recent reach the planner', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const p = planDialogSummary(demo(), null, { maxTokens: 5000, keepRecent: 6 });
    expect(p.wouldChange).toBe(true);
    expect(p.replacedIds).toEqual(demoIds.slice(0, 9));
    const r = cli(['--strategy', 'summary', '--max-tokens', '5000', '--keep-recent', '6', '--json', 'demo.ipynb'], dir);
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.stdout);
    expect(rec.summary).toEqual({ summarizer: 'dsl', replaced: 9, ids: demoIds.slice(0, 9) });
    const out = readNb(join(dir, 'demo-comp.ipynb'));
    expect(out.nb.cells.map((c) => c.id).slice(1)).toEqual(demoIds.slice(9));
    expect(rec.tokens.after).toEqual(measureDialog(out.dialog).tokens);
    // a budget the dialog stays under (90% trigger): refused
    const p2 = planDialogSummary(demo(), null, { maxTokens: Math.ceil(p.tokensBefore / 0.9) + 10 });
    expect(p2.reason).toBe('not-needed');
    const r2 = cli(['--strategy', 'summary', '--max-tokens', String(Math.ceil(p.tokensBefore / 0.9) + 10), '-o', 'x.ipynb', 'demo.ipynb'], dir);
    expect(r2.stdout).toContain('x.ipynb: written (summary refused: not-needed),');
    expect(readFileSync(join(dir, 'x.ipynb'))).toEqual(readFileSync(DEMO));
  });

  it('--check: nothing written, the plan shown (cells, ids, tokens before → after), exit 1; 0 once written', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const before = snapshot(dir);
    const c = cli(['--strategy', 'summary', '--check', 'demo.ipynb'], dir);
    expect(c.code).toBe(1);
    expect(c.stderr).toBe('');
    expect(snapshot(dir)).toEqual(before);
    const cj = cli(['--strategy', 'summary', '--check', '--json', 'demo.ipynb'], dir);
    expect(cj.code).toBe(1);
    expect(snapshot(dir)).toEqual(before);
    // the prediction equals what a run then writes
    expect(cli(['--strategy', 'summary', 'demo.ipynb'], dir).code).toBe(0);
    const after = measureDialog(readNb(join(dir, 'demo-comp.ipynb')).dialog).tokens;
    const ids = plan.replacedIds;
    expect(c.stdout).toBe(
      line('demo-comp.ipynb', `would write (summary of ${ids.length} cells: ${showIds(ids)})`, 15, demoStats.tokens.total, after.total) + '\n',
    );
    expect(c.stdout).toContain(`(summary of 11 cells: ${demoIds.slice(0, 8).join(', ')}, …)`);
    const rec = JSON.parse(cj.stdout);
    expect(rec).toMatchObject({ status: 'would write', strategy: 'summary', tokens: { before: demoStats.tokens, after } });
    expect(rec.summary).toEqual({ summarizer: 'dsl', replaced: ids.length, ids });
    expect(rec.reason).toBeUndefined();
    const c2 = cli(['--strategy', 'summary', '--check', 'demo.ipynb'], dir);
    expect(c2.code).toBe(0);
    expect(c2.stdout).toMatch(/^demo-comp\.ipynb: unchanged \(summary of 11 cells: /);
  });

  it('standard input to standard output: the notebook JSON (no source path), or the dialog unchanged when refused', () => {
    const r = cli(['--strategy', 'summary', '-'], ROOT, demoBytes);
    expect(r.code).toBe(0);
    const nb = JSON.parse(r.stdout) as { cells: NbCell[] };
    expect(nb.cells.map((c) => c.id).slice(1)).toEqual(demoIds.slice(11));
    expect((nb.cells[0]!.metadata.dlg_compact as { source: unknown }).source).toBe(null);
    expect(cellSource(nb.cells[0]!)).not.toContain(TRANSCRIPT);
    expect(r.stderr).toMatch(/^<stdin> → <stdout>: printed \(summary of 11 cells\), 15 messages, /);
    const n = cli(['--strategy', 'summary', '--max-tokens', '1000000', '-'], ROOT, demoBytes);
    expect(n.code).toBe(0);
    expect(n.stdout).toBe(demoText);
    expect(n.stderr).toBe(line('<stdin> → <stdout>', 'printed (summary refused: not-needed)', 15, demoStats.tokens.total, demoStats.tokens.total) + '\n');
  });

  it('--jobs 2 gives the same outputs and report as one job', () => {
    // one directory (the note records the input's absolute path), outputs removed in between
    const dir = tempDir();
    for (let i = 0; i < 3; i++) copyFileSync(DEMO, join(dir, `n${i}.ipynb`));
    const r1 = cli(['--strategy', 'summary', '--json', '.'], dir);
    expect(r1.code).toBe(0);
    const first = snapshot(dir);
    for (let i = 0; i < 3; i++) rmSync(join(dir, `n${i}-comp.ipynb`));
    const r2 = cli(['--strategy', 'summary', '--json', '--jobs', '2', '.'], dir);
    expect(r2.code).toBe(0);
    expect(r2.stdout).toBe(r1.stdout);
    expect(r1.stdout.match(/"status":"written"/g)?.length).toBe(3);
    expect(snapshot(dir)).toEqual(first);
  });
});

describe('dlg-compact --strategy micro', () => {
  const all = toolResults(demo());
  const clear = expectedCleared(all);

  it('the demo has 5 tool calls; the 2 older than the newest 3 have long (python) results', () => {
    expect(all.length).toBe(5);
    expect(clear).toEqual([0, 1]);
    expect(all.map((r) => r.tool)).toEqual(['python', 'python', 'bash', 'bash', 'python']);
  });

  it('writes <stem>-comp.ipynb with the older results cleared, everything else as it was', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const r = cli(['--strategy', 'micro', '--json', 'demo.ipynb'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = readNb(join(dir, 'demo-comp.ipynb'));
    expectMicroOutput(demo(), out.dialog, clear);
    const changed = new Set(clear.map((i) => all[i]!.messageId));
    const inChunks = cellChunks(demoText);
    const outChunks = cellChunks(out.text);
    expect(outChunks.length).toBe(15);
    for (let i = 0; i < 15; i++) {
      if (changed.has(demoIds[i]!)) expect(outChunks[i]).not.toBe(inChunks[i]);
      else expect(outChunks[i]).toBe(inChunks[i]);
    }
    const after = measureDialog(out.dialog).tokens;
    expect(JSON.parse(r.stdout)).toEqual({
      path: 'demo.ipynb',
      output: 'demo-comp.ipynb',
      status: 'written',
      strategy: 'micro',
      mode: 'dialog',
      format: 'ipynb',
      messages: 15,
      prompts: 4,
      toolCalls: 5,
      tokens: { before: demoStats.tokens, after },
      bytes: { before: statSync(DEMO).size, after: statSync(join(dir, 'demo-comp.ipynb')).size },
      note: 'micro: 2 tool results cleared',
      micro: { cleared: clear.map((i) => ({ messageId: all[i]!.messageId, tool: all[i]!.tool })), refused: [] },
    });
    expect(after.results).toBeLessThan(demoStats.tokens.results);
    const t = cli(['--strategy', 'micro', 'demo.ipynb'], dir);
    expect(t.stdout).toBe(line('demo-comp.ipynb', 'unchanged (micro: 2 tool results cleared)', 15, demoStats.tokens.total, after.total) + '\n');
  });

  it('--keep-recent 0 clears every long result', () => {
    const want = expectedCleared(all, 0);
    expect(want.length).toBeGreaterThan(clear.length);
    const r = cli(['--strategy', 'micro', '--keep-recent', '0', '-o', '-', DEMO], ROOT);
    expect(r.code).toBe(0);
    expectMicroOutput(demo(), readsIpynbBytes(Buffer.from(r.stdout), 'stdout'), want);
    expect(r.stderr).toContain(`(micro: ${want.length} tool results cleared)`);
  });

  it('--in-place rewrites the input (mode bits kept); a second run leaves it alone', () => {
    const dir = tempDir();
    const file = join(dir, 'demo.ipynb');
    copyFileSync(DEMO, file);
    chmodSync(file, 0o640);
    const r = cli(['--strategy', 'micro', '--in-place', 'demo.ipynb'], dir);
    expect(r.code).toBe(0);
    const out = readNb(file);
    expect(r.stdout).toBe(
      line('demo.ipynb', 'written (micro: 2 tool results cleared)', 15, demoStats.tokens.total, measureDialog(out.dialog).tokens.total) + '\n',
    );
    expectMicroOutput(demo(), out.dialog, clear);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['demo.ipynb']);
    const past = new Date('2001-02-03T04:05:06Z');
    utimesSync(file, past, past);
    const r2 = cli(['--strategy', 'micro', '-i', 'demo.ipynb'], dir);
    expect(r2.code).toBe(0);
    expect(r2.stdout).toMatch(/^demo\.ipynb: unchanged \(micro: 0 tool results cleared\), 15 messages, /);
    expect(statSync(file).mtimeMs).toBe(past.getTime());
    expect(readFileSync(file, 'utf8')).toBe(out.text);
  });

  it('--check: nothing written, the count shown, exit 1; (messageId, tool) pairs in --json', () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    const before = snapshot(dir);
    const c = cli(['--strategy', 'micro', '--check', 'demo.ipynb'], dir);
    const cj = cli(['--strategy', 'micro', '--check', '--in-place', '--json', 'demo.ipynb'], dir);
    expect(c.code).toBe(1);
    expect(cj.code).toBe(1);
    expect(snapshot(dir)).toEqual(before);
    expect(cli(['--strategy', 'micro', 'demo.ipynb'], dir).code).toBe(0);
    const after = measureDialog(readNb(join(dir, 'demo-comp.ipynb')).dialog).tokens;
    expect(c.stdout).toBe(line('demo-comp.ipynb', 'would write (micro: 2 tool results cleared)', 15, demoStats.tokens.total, after.total) + '\n');
    const rec = JSON.parse(cj.stdout);
    expect(rec).toMatchObject({ output: 'demo.ipynb', status: 'would write', strategy: 'micro', tokens: { before: demoStats.tokens, after } });
    expect(rec.micro.cleared).toEqual([
      { messageId: 'd4f1b7c9', tool: 'python' },
      { messageId: 'a7c4e0f5', tool: 'python' },
    ]);
    expect(rec.micro.cleared).toEqual(clear.map((i) => ({ messageId: all[i]!.messageId, tool: all[i]!.tool })));
    expect(cli(['--strategy', 'micro', '--check', 'demo.ipynb'], dir).code).toBe(0);
  });
});

describe('cells without ids get ids derived from the input: outputs are reproducible', () => {
  const nb = JSON.parse(demoText) as { nbformat_minor: number; cells: Record<string, unknown>[] };
  nb.nbformat_minor = 4;
  for (const c of nb.cells) delete c.id;
  const bytes = Buffer.from(JSON.stringify(nb, null, 1) + '\n');

  it.each([
    ['--mode', 'dialog'],
    ['--strategy', 'micro'],
    ['--strategy', 'summary'],
  ])('%s %s: a second run is unchanged', (...args) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'old.ipynb'), bytes);
    const r = cli([...args, 'old.ipynb'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('old-comp.ipynb: written');
    const ids = (JSON.parse(readFileSync(join(dir, 'old-comp.ipynb'), 'utf8')) as { cells: { id: string }[] }).cells.map((c) => c.id);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const r2 = cli([...args, 'old.ipynb'], dir);
    expect(r2.stdout).toContain('old-comp.ipynb: unchanged');
    // the same bytes elsewhere get the same ids
    const other = tempDir();
    writeFileSync(join(other, 'old.ipynb'), bytes);
    expect(cli([...args, 'old.ipynb'], other).code).toBe(0);
    expect((JSON.parse(readFileSync(join(other, 'old-comp.ipynb'), 'utf8')) as { cells: { id: string }[] }).cells.map((c) => c.id)).toEqual(ids);
  });
});

/** A request the test server received. */
interface Received {
  url: string;
  body: { model: string; messages: { role: string; content: string }[] };
  authorization?: string;
}

/**
 * A chat-completions server on 127.0.0.1 (port 0): answers every request with `status` and
 * `reply` (a summary wrapped as `choices[0].message.content` for status 200, else the raw
 * text), records the requests, and closes itself after 120 s at the latest.
 */
async function chatServer(status: number, reply: string): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', body: JSON.parse(body), authorization: req.headers.authorization });
      res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'text/plain' });
      res.end(status === 200 ? JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: reply } }] }) : reply);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  let closed = false;
  const close = () => {
    if (closed) return Promise.resolve();
    closed = true;
    server.closeAllConnections();
    return new Promise<void>((ok) => server.close(() => ok()));
  };
  setTimeout(() => void close(), 120_000).unref();
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, received, close };
}

describe('dlg-compact --strategy summary with an LLM (local HTTP server)', () => {
  const SUMMARY = 'The nightly import spent its time in strptime; switching to fromisoformat and reading with pandas brought it from 14.7 s to 0.31 s.';

  it("--llm-url/--llm-model: the note holds the server's summary", async () => {
    const srv = await chatServer(200, `  ${SUMMARY}\n`);
    try {
      const dir = realpathSync(tempDir());
      copyFileSync(DEMO, join(dir, 'demo.ipynb'));
      const r = await cliAsync(['--strategy', 'summary', '--llm-url', srv.url, '--llm-model', 'test', 'demo.ipynb'], dir);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(srv.received.length).toBe(1);
      const req = srv.received[0]!;
      expect(req.url).toBe('/v1/chat/completions');
      expect(req.body.model).toBe('test');
      expect(req.authorization).toBeUndefined();
      const prompt = req.body.messages.at(-1)!;
      expect(prompt.role).toBe('user');
      expect(prompt.content).toContain('Why does the nightly order import take 15 seconds?');
      const out = readNb(join(dir, 'demo-comp.ipynb'));
      expect(r.stdout).toBe(
        line('demo-comp.ipynb', 'written (summary of 11 cells)', 15, demoStats.tokens.total, measureDialog(out.dialog).tokens.total) + '\n',
      );
      const note = out.nb.cells[0]!;
      // An LLM summary ends with the deterministic index of what it replaced.
      const index =
        '\n\n[Index of what this summary replaced]\n- #_b27d9e10\n- #_c3e85a41\n' +
        "- ▶ python(code='import cProfile, pstats ¶ cProfile.run … sort_stats(\\'tottime\\').print_stats(14)')\n- #_e5a2c8d3\n" +
        '- ▶ python(code="import pandas as pd ¶ df = pd.read_csv(\'orders.csv\') ¶ df.dtypes")\n- ! head -n 41 orders.csv | tail -n 40\n' +
        "- #_b8d5f1a6\n- #_c9e6a2b7 → error ValueError\n- ! grep -n 'T[0-9][0-9 …  'T[0-9][0-9]:' orders.csv\n" +
        "- ▶ python(code=\"s = df['placed'] ¶ print(s.str … \\\\d:\\\\d\\\\d$')].head().tolist())\")\n- #_e1a8c4d9\n- paths: orders.csv";
      expect(cellSource(note)).toBe(`${HEADER(11)}${SUMMARY}${index}${TRANSCRIPT} demo.ipynb`);
      expect(note.metadata.dlg_compact).toMatchObject({ kind: 'summary', ids: demoIds.slice(0, 11), summarizer: 'http:test', source: 'demo.ipynb' });
      expect(cellChunks(out.text).slice(1)).toEqual(cellChunks(demoText).slice(11));
    } finally {
      await srv.close();
    }
  });

  it('HTTP 500: exit 1, nothing written, the message names the file and the status', async () => {
    const srv = await chatServer(500, 'model overloaded');
    try {
      const dir = tempDir();
      copyFileSync(DEMO, join(dir, 'demo.ipynb'));
      const r = await cliAsync(['--strategy', 'summary', '--llm-url', srv.url, '--llm-model', 'test', 'demo.ipynb'], dir);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('dlg-compact: demo.ipynb: summary failed (http:test): summariser HTTP 500: model overloaded\n');
      expect(srv.received.length).toBe(1);
      expect(readdirSync(dir)).toEqual(['demo.ipynb']);
      expect(readFileSync(join(dir, 'demo.ipynb')).equals(demoBytes)).toBe(true);
      const j = await cliAsync(['--json', '--strategy', 'summary', '--llm-url', srv.url, '--llm-model', 'test', 'demo.ipynb'], dir);
      expect(j.code).toBe(1);
      expect(JSON.parse(j.stdout)).toEqual({
        path: 'demo.ipynb',
        status: 'failed',
        error: 'demo.ipynb: summary failed (http:test): summariser HTTP 500: model overloaded',
      });
    } finally {
      await srv.close();
    }
  });

  it('--check plans without calling the LLM: cells and ids shown, no token estimate, exit 1', async () => {
    const srv = await chatServer(200, SUMMARY);
    try {
      const dir = tempDir();
      copyFileSync(DEMO, join(dir, 'demo.ipynb'));
      const before = snapshot(dir);
      const r = await cliAsync(['--strategy', 'summary', '--check', '--llm-url', srv.url, '--llm-model', 'test', 'demo.ipynb'], dir);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(
        `demo-comp.ipynb: would write (summary of 11 cells: ${showIds(plan().replacedIds)}), 15 messages, ` +
          `${demoStats.tokens.total} → ? tokens (not estimated: --check does not call the LLM)\n`,
      );
      const j = await cliAsync(['--strategy', 'summary', '--check', '--json', '--llm-url', srv.url, '--llm-model', 'test', 'demo.ipynb'], dir);
      expect(JSON.parse(j.stdout)).toMatchObject({
        status: 'would write',
        tokens: { before: demoStats.tokens, after: null },
        summary: { summarizer: 'http:test', replaced: 11, ids: demoIds.slice(0, 11) },
      });
      expect(srv.received.length).toBe(0);
      expect(snapshot(dir)).toEqual(before);
    } finally {
      await srv.close();
    }
  });

  it('DLG_COMPACT_MODEL switches the LLM on (key and URL from the environment); OPENAI_MODEL alone does not', async () => {
    const srv = await chatServer(200, SUMMARY);
    try {
      const dir = tempDir();
      copyFileSync(DEMO, join(dir, 'demo.ipynb'));
      const o = await cliAsync(['--strategy', 'summary', '--json', 'demo.ipynb'], dir, {
        OPENAI_MODEL: 'gpt-test',
        OPENAI_BASE_URL: srv.url,
        OPENAI_API_KEY: 'sk-test',
      });
      expect(o.code).toBe(0);
      expect(JSON.parse(o.stdout).summary.summarizer).toBe('dsl');
      expect(srv.received.length).toBe(0);
      const d = await cliAsync(['--strategy', 'summary', '--json', '-o', 'llm.ipynb', 'demo.ipynb'], dir, {
        DLG_COMPACT_MODEL: 'test',
        DLG_COMPACT_BASE_URL: srv.url,
        DLG_COMPACT_API_KEY: 'k-test',
      });
      expect(d.stderr).toBe('');
      expect(d.code).toBe(0);
      expect(JSON.parse(d.stdout).summary.summarizer).toBe('http:test');
      expect(srv.received.length).toBe(1);
      expect(srv.received[0]!.authorization).toBe('Bearer k-test');
      expect(cellSource(readNb(join(dir, 'llm.ipynb')).nb.cells[0]!)).toContain(SUMMARY);
      // with the LLM asked for by a flag, OPENAI_MODEL names the model
      const f = await cliAsync(['--strategy', 'summary', '--json', '-o', 'llm2.ipynb', '--llm-url', srv.url, 'demo.ipynb'], dir, { OPENAI_MODEL: 'gpt-test' });
      expect(f.code).toBe(0);
      expect(JSON.parse(f.stdout).summary.summarizer).toBe('http:gpt-test');
      expect(srv.received.length).toBe(2);
      expect(srv.received[1]!.body.model).toBe('gpt-test');
    } finally {
      await srv.close();
    }
  });

  function plan() {
    return planDialogSummary(demo(), null, { force: true });
  }
});

describe.skipIf(!HAVE_SHARED)('strategies on real dialogs, and schema validity of their outputs', () => {
  const dialogs = shared('conformance', 'dialogs');

  it.each(['001', '020'])('%s: micro clears exactly the older long results; the output validates', (n) => {
    const dir = tempDir();
    copyFileSync(join(dialogs, `${n}.ipynb`), join(dir, `${n}.ipynb`));
    const input = readsIpynbBytes(readFileSync(join(dialogs, `${n}.ipynb`)), n);
    const all = toolResults(input);
    const clear = expectedCleared(all);
    expect(clear.length).toBeGreaterThan(0);
    const r = cli(['--strategy', 'micro', '--json', `${n}.ipynb`], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.stdout);
    expect(rec.note).toBe(`micro: ${clear.length} tool results cleared`);
    expect(rec.micro).toEqual({ cleared: clear.map((i) => ({ messageId: all[i]!.messageId, tool: all[i]!.tool })), refused: [] });
    const out = readNb(join(dir, `${n}-comp.ipynb`));
    expect(schemaErrors(out.text)).toBe('');
    expectMicroOutput(input, out.dialog, clear);
    expect(rec.tokens.after).toEqual(measureDialog(out.dialog).tokens);
  });

  it("the demo dialog's summary and micro outputs validate against the nbformat schema", () => {
    const dir = tempDir();
    copyFileSync(DEMO, join(dir, 'demo.ipynb'));
    expect(cli(['--strategy', 'summary', '-o', 's.ipynb', 'demo.ipynb'], dir).code).toBe(0);
    expect(cli(['--strategy', 'micro', '-o', 'm.ipynb', 'demo.ipynb'], dir).code).toBe(0);
    for (const f of ['s.ipynb', 'm.ipynb']) expect(schemaErrors(readFileSync(join(dir, f), 'utf8'))).toBe('');
  });

  it('001: a forced summary keeps the recent cells byte for byte and validates', () => {
    const dir = tempDir();
    copyFileSync(join(dialogs, '001.ipynb'), join(dir, '001.ipynb'));
    const input = readsIpynbBytes(readFileSync(join(dir, '001.ipynb')), '001');
    const p = planDialogSummary(input, null, { force: true });
    expect(p.wouldChange).toBe(true);
    const r = cli(['--strategy', 'summary', '--json', '001.ipynb'], dir);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).summary).toEqual({ summarizer: 'dsl', replaced: p.replacedIds.length, ids: p.replacedIds });
    const out = readNb(join(dir, '001-comp.ipynb'));
    expect(schemaErrors(out.text)).toBe('');
    const kept = input.messages.filter((m) => !p.replacedIds.includes(m.id)).map((m) => m.id);
    expect(out.nb.cells.map((c) => c.id).filter((id) => kept.includes(id))).toEqual(kept);
    expect(out.nb.cells.length).toBe(kept.length + 1);
  });
});
