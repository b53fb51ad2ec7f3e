/**
 * The BUILT command against the files people and scripts really hand it, in temporary
 * folders: outputs that are not regular files (a FIFO with a reader, a character device made
 * with mknod when run as root), symbolic links, two inputs with one output, names with
 * control characters, reruns over an unquoted glob, killed runs, and the conventions of
 * nbconvert/jupytext (`--output-dir`, `-q`, `-v`, `--dry-run`, `--stdout`, `--to markdown`).
 * Run alone, this file rebuilds dist/ first when a src/*.ts is newer than its output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, type CliRun, cliEnv, runCli, scratchFolders, tokensT } from './built-cli.js';
import { ROOT } from './support.js';
import { lenToks } from '../src/tokens/index.js';

const DEMO = readFileSync(join(ROOT, 'notebooks', 'demo.ipynb'));
const SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';
const nb = (cells: unknown[]): string => JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells }, null, 1) + '\n';
/** A dialog of one prompt cell. */
const ONE = nb([{ cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true }, source: 'hi' + SEP + 'hello' }]);

type Run = CliRun;

/** The built command without settings files, its token figures as `T` (see {@link tokensT}). */
function cli(args: string[], cwd: string): Run {
  const r = runCli(['--no-config', ...args], cwd);
  return { code: r.code, stdout: tokensT(r.stdout), stderr: tokensT(r.stderr) };
}

/** The same, without blocking this process (for FIFOs read by another child). */
function cliAsync(args: string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [CLI, '--no-progress', '--no-config', ...args], { cwd, env: cliEnv() });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => done({ code, stdout: tokensT(stdout), stderr: tokensT(stderr) }));
  });
}

const dir = scratchFolders('dlg-cli-files-');
const ls = (d: string) => readdirSync(d).sort();

describe('outputs that are not regular files are written in place, never replaced, never waited on', () => {
  it('a FIFO with a reader gets the document; it stays a FIFO', async () => {
    const d = dir({ 'demo.ipynb': DEMO });
    expect(spawnSync('mkfifo', [join(d, 'pipe')]).status).toBe(0);
    // `cat` blocks in open() until a writer comes; give it time to get there, and try again
    // if the command came first (it then fails at once: no reader).
    let r: Run | undefined;
    let got = '';
    for (let attempt = 0; attempt < 5; attempt++) {
      const reader = spawn('cat', [join(d, 'pipe')]);
      let text = '';
      reader.stdout.on('data', (c) => (text += c));
      const readerDone = new Promise((done) => reader.on('close', done));
      await new Promise((w) => setTimeout(w, 200 * (attempt + 1)));
      r = await cliAsync(['--to', 'md', 'demo.ipynb', '-o', 'pipe'], d);
      if (r.code !== 0) reader.kill();
      await readerDone;
      got = text;
      if (r.code === 0) break;
    }
    r = r!;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('pipe: written, 15 messages, T\n');
    expect(lstatSync(join(d, 'pipe')).isFIFO()).toBe(true);
    // Same bytes as the regular-file output of the same input.
    expect(cli(['--to', 'md', 'demo.ipynb', '-o', 'ref.md'], d).code).toBe(0);
    expect(got).toBe(readFileSync(join(d, 'ref.md'), 'utf8'));
    expect(ls(d)).toEqual(['demo.ipynb', 'pipe', 'ref.md']);
  });

  it('a FIFO nobody reads fails at once, naming it, and is left a FIFO', () => {
    const d = dir({ 'demo.ipynb': DEMO });
    expect(spawnSync('mkfifo', [join(d, 'pipe')]).status).toBe(0);
    const t0 = Date.now();
    const r = cli(['demo.ipynb', '-o', 'pipe'], d);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('dlg-compact: pipe: cannot write: no process is reading it (a FIFO needs a reader)\n');
    expect(lstatSync(join(d, 'pipe')).isFIFO()).toBe(true);
  });

  it('-o /dev/stdout is -o -: the document on stdout, the report on stderr', () => {
    const d = dir({ 'demo.ipynb': DEMO });
    const viaDev = cli(['demo.ipynb', '-o', '/dev/stdout'], d);
    const viaDash = cli(['demo.ipynb', '-o', '-'], d);
    expect(viaDev.code).toBe(0);
    expect(viaDev.stdout).toContain('§ # Why does the nightly order import take 15 seconds?');
    expect(viaDev.stdout).toBe(viaDash.stdout);
    expect(viaDev.stderr).toBe('demo.ipynb → <stdout>: printed, 15 messages, T\n');
    const viaFlag = cli(['demo.ipynb', '--stdout'], d);
    expect(viaFlag.stdout).toBe(viaDash.stdout);
    expect(ls(d)).toEqual(['demo.ipynb']);
  });

  const isRoot = process.getuid?.() === 0;
  if (!isRoot) console.warn('[cli-files] not root: the character-device test (mknod) is skipped');
  it.skipIf(!isRoot)('(root only: mknod) a character device is written in place and stays a device', () => {
    const d = dir({ 'demo.ipynb': DEMO });
    expect(spawnSync('mknod', [join(d, 'null'), 'c', '1', '3']).status).toBe(0);
    const r = cli(['demo.ipynb', '-o', 'null'], d);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('null: written, 15 messages, T\n');
    const st = statSync(join(d, 'null'));
    expect(st.isCharacterDevice()).toBe(true);
    expect(st.rdev).toBe(statSync('/dev/null').rdev);
    const again = cli(['demo.ipynb', '-o', '/dev/null'], d);
    expect(again.code).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(ls(d)).toEqual(['demo.ipynb', 'null']);
  });
});

describe('a report pipe closed early', () => {
  it("silences the reports but every file is still written; the exit status is the run's", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}.ipynb`);
    const d = dir(Object.fromEntries(names.map((f) => [f, ONE])));
    const code = await new Promise<number | null>((done) => {
      const p = spawn(process.execPath, [CLI, '--no-progress', '--no-config', '--mode', 'dialog', ...names], { cwd: d, env: cliEnv() });
      // Like `| head -1`: read the first line, then close the pipe.
      p.stdout.once('data', () => p.stdout.destroy());
      p.on('close', (c) => done(c));
    });
    expect(code).toBe(0);
    expect(ls(d)).toEqual([...names, ...names.map((f) => f.replace('.ipynb', '-comp.ipynb'))].sort());
  });
});

describe('inputs that are devices', () => {
  it('/dev/zero is refused at once instead of being read without end', () => {
    const d = dir();
    const r = cli(['-o', '-', '/dev/zero'], d);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('dlg-compact: /dev/zero: is a device, not a notebook (give - to read standard input)\n');
    expect(r.stdout).toBe('');
  });
});

describe('--max-tokens with the dsl strategy', () => {
  it('a Markdown output, its final newline included, is within the budget', () => {
    const d = dir({ 'demo.ipynb': readFileSync(join(ROOT, 'notebooks', 'demo.ipynb')) });
    for (const n of [700, 1000, 1500, 2500]) {
      const r = cli(['--max-tokens', String(n), '--to', 'md', '-o', `out-${n}.md`, 'demo.ipynb'], d);
      expect(r.code).toBe(0);
      const text = readFileSync(join(d, `out-${n}.md`), 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      expect(lenToks(text)).toBeLessThanOrEqual(n);
    }
  });

  it('Markdown: the smallest budget the error names holds the final newline, and one less fails', () => {
    const d = dir({ 'demo.ipynb': readFileSync(join(ROOT, 'notebooks', 'demo.ipynb')) });
    const r = cli(['--max-tokens', '10', '--to', 'md', '-o', 'out.md', 'demo.ipynb'], d);
    expect(r.code).toBe(1);
    const min = Number(/use --max-tokens (\d+) or more/.exec(r.stderr)![1]);
    const ok = cli(['--max-tokens', String(min), '--to', 'md', '-o', 'out.md', 'demo.ipynb'], d);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`minimum ${min} tokens),`);
    expect(lenToks(readFileSync(join(d, 'out.md'), 'utf8'))).toBeLessThanOrEqual(min);
    const below = cli(['--max-tokens', String(min - 1), '--to', 'md', '-o', 'low.md', 'demo.ipynb'], d);
    expect(below.code).toBe(1);
    expect(below.stderr).toContain(`--max-tokens ${min - 1} is below the ${min} tokens`);
  });

  it('--json gives the budget chosen and the tokens reached, by class', () => {
    const d = dir({ 'demo.ipynb': readFileSync(join(ROOT, 'notebooks', 'demo.ipynb')) });
    const r = cli(['--max-tokens', '800', '--check', '--json', 'demo.ipynb'], d);
    expect(r.code).toBe(1); // --check: a file would be written
    const rec = JSON.parse(r.stdout);
    // (the code cuts keep `fast = df.assign(…`, which the index named as lost when it had 49 tokens)
    expect(rec.fit).toEqual({ maxTokens: 800, tokens: 781, scale: 0.136313, step: 57, minTokens: 305, indexTokens: 38, raised: 14 });
    expect(rec.note).toBe('fit into --max-tokens 800: latest budgets ×0.136 (14 cells ×0.149), minimum 305 tokens');
    // the pieces by class; the total is the whole document's (the legend in brief and the index too)
    // the floor of each of the 8 code cells is one token higher, for the cut mark in its fence (minimum +8)
    // (code cells' outputs count as code, as in the before counts; results are the replies' tool results)
    expect(rec.tokens.after).toEqual({ user: 227, assistant: 127, calls: 43, results: 10, code: 209, total: 781 });
    expect(ls(d)).toEqual(['demo.ipynb']);
  });

  it('a budget below the structure fails that file, naming it, the flag and the smallest budget', () => {
    const d = dir({ 'a.ipynb': ONE });
    const r = cli(['--max-tokens', '3', 'a.ipynb'], d);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^dlg-compact: a\.ipynb: --max-tokens 3 is below the (\d+) tokens this dialog needs to keep its structure; use --max-tokens \1 or more\n$/,
    );
    expect(ls(d)).toEqual(['a.ipynb']);
    // In dialog mode the message says why its minimum is higher than the flat one.
    const e = dir({ 'a.ipynb': DEMO });
    const m = cli(['--mode', 'dialog', '--max-tokens', '3', 'a.ipynb'], e);
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(
      /^dlg-compact: a\.ipynb: --max-tokens 3 is below the (\d+) tokens this dialog needs to keep its structure; use --max-tokens \1 or more \(dialog mode keeps notes, code cells and their outputs whole; --mode flat cuts them too\)\n$/,
    );
    expect(ls(e)).toEqual(['a.ipynb']);
  });
});

describe('symbolic links', () => {
  it('a derived output that is a link is refused; its target is never written', () => {
    const d = dir({ 'in.ipynb': DEMO, 'victim.txt': 'precious\n' });
    symlinkSync('victim.txt', join(d, 'in-comp.ipynb'));
    const r = cli(['in.ipynb'], d);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'dlg-compact: in-comp.ipynb: cannot write: is a symbolic link; refusing to write through it (remove the link, or name it with -o to write its target)\n',
    );
    expect(readFileSync(join(d, 'victim.txt'), 'utf8')).toBe('precious\n');
    expect(readlinkSync(join(d, 'in-comp.ipynb'))).toBe('victim.txt');
    // A dangling derived link too: nothing is created at its target.
    const e = dir({ 'in.ipynb': DEMO });
    symlinkSync('elsewhere.ipynb', join(e, 'in-comp.ipynb'));
    expect(cli(['in.ipynb'], e).code).toBe(1);
    expect(ls(e)).toEqual(['in-comp.ipynb', 'in.ipynb']);
    // Under --output-dir as well.
    const f = dir({ 'in.ipynb': DEMO, 'victim.txt': 'precious\n' });
    mkdirSync(join(f, 'out'));
    symlinkSync('../victim.txt', join(f, 'out', 'in-comp.ipynb'));
    expect(cli(['--output-dir', 'out', 'in.ipynb'], f).code).toBe(1);
    expect(readFileSync(join(f, 'victim.txt'), 'utf8')).toBe('precious\n');
  });

  it('an explicit -o LINK writes the target atomically and keeps the link, dangling or not', () => {
    const d = dir({ 'in.ipynb': DEMO, 'old.md': 'old\n' });
    symlinkSync('old.md', join(d, 'live.md'));
    symlinkSync('made.md', join(d, 'dangling.md'));
    const a = cli(['in.ipynb', '-o', 'live.md'], d);
    const b = cli(['in.ipynb', '-o', 'dangling.md'], d);
    const ref = cli(['in.ipynb', '-o', 'plain.md'], d);
    expect([a.code, b.code, ref.code]).toEqual([0, 0, 0]);
    expect(a.stdout).toBe('live.md: written, 15 messages, T\n');
    expect(lstatSync(join(d, 'live.md')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(d, 'dangling.md')).isSymbolicLink()).toBe(true);
    const doc = readFileSync(join(d, 'plain.md'), 'utf8');
    expect(doc).toContain('§ # Why does the nightly order import take 15 seconds?');
    expect(readFileSync(join(d, 'old.md'), 'utf8')).toBe(doc);
    expect(readFileSync(join(d, 'made.md'), 'utf8')).toBe(doc);
    expect(ls(d)).toEqual(['dangling.md', 'in.ipynb', 'live.md', 'made.md', 'old.md', 'plain.md']);
  });
});

describe('collisions, reports', () => {
  it('two inputs with one output: the second fails naming both, exit 1', () => {
    const d = dir({ 'x.ipynb': DEMO, 'x.json': ONE });
    const r = cli(['x.ipynb', 'x.json'], d);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('x-comp.ipynb: written, 15 messages, T\n2 files: 1 written, 1 failed; T\n');
    expect(r.stderr).toBe(
      'dlg-compact: x.json: its output x-comp.ipynb is also the output of x.ipynb; refusing to write one output for two inputs (rename one, or use -o for each)\n',
    );
  });

  it('two outputs not written yet that a folder link makes one file: the second fails naming both', () => {
    const d = dir({ 'src/s1/x.ipynb': DEMO, 'src/s2/x.ipynb': ONE });
    mkdirSync(join(d, 'out', 's2'), { recursive: true });
    symlinkSync('s2', join(d, 'out', 's1'));
    const r = cli(['--mode', 'dialog', '--output-dir', 'out', 'src'], d);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('out/s1/x-comp.ipynb: written, 15 messages, T\n2 files: 1 written, 1 failed; T\n');
    expect(r.stderr).toBe(
      'dlg-compact: src/s2/x.ipynb: its output out/s2/x-comp.ipynb is also the output of src/s1/x.ipynb; refusing to write one output for two inputs (rename one, or use -o for each)\n',
    );
    expect(ls(join(d, 'out', 's2'))).toEqual(['x-comp.ipynb']);
  });

  it('--json records are valid JSON whatever the name; text reports escape C0/C1 and bidi controls', () => {
    const name = 'a\u0085b\u202ec\u007f.ipynb';
    const d = dir({ [name]: ONE });
    const j = cli(['--json', name], d);
    expect(j.code).toBe(0);
    const rec = JSON.parse(j.stdout.trim()) as { path: string; output: string; messages: number };
    expect(rec.path).toBe(name);
    expect(rec.output).toBe('a\u0085b\u202ec\u007f-comp.ipynb');
    expect(rec.messages).toBe(1);
    const t = cli(['--check', name], d);
    expect(t.stdout).toBe('a\\x85b\\u{202e}c\\x7f-comp.ipynb: unchanged, 1 message, T\n');
  });
});

describe('own outputs are skipped; reruns over an unquoted glob change nothing', () => {
  for (const [label, flags] of [
    ['flat', []],
    ['dialog mode', ['--mode', 'dialog']],
    ['micro', ['--strategy', 'micro']],
  ] as const) {
    it(`${label}: the second and third runs exit 0 with every output unchanged, no -comp-comp`, () => {
      const d = dir({ 'a.ipynb': DEMO, 'b.ipynb': ONE });
      expect(cli([...flags, 'a.ipynb', 'b.ipynb'], d).code).toBe(0);
      const glob = () => ls(d).filter((f) => f.endsWith('.ipynb')); // what the shell expands nbs/*.ipynb to
      const before = Object.fromEntries(ls(d).map((f) => [f, readFileSync(join(d, f), 'utf8')]));
      for (let round = 0; round < 2; round++) {
        const r = cli([...flags, ...glob()], d);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        // The outputs among the inputs are skipped as inputs, and reported once each, on the
        // line of the source that writes them again.
        const lines = r.stdout.trim().split('\n');
        expect(lines.map((l) => l.split(/[,(;]/)[0]!.trim())).toEqual(['a-comp.ipynb: unchanged', 'b-comp.ipynb: unchanged', '2 files: 2 unchanged']);
        expect(ls(d)).toEqual(['a-comp.ipynb', 'a.ipynb', 'b-comp.ipynb', 'b.ipynb']);
        expect(Object.fromEntries(ls(d).map((f) => [f, readFileSync(join(d, f), 'utf8')]))).toEqual(before);
      }
    });
  }

  it('a flat notebook is recognised by its content under any name, and Markdown outputs by name', () => {
    const d = dir({ 'a.ipynb': DEMO });
    expect(cli(['a.ipynb', '-o', 'renamed.ipynb'], d).code).toBe(0);
    expect(cli(['--to', 'md', 'a.ipynb'], d).code).toBe(0);
    const r = cli(['renamed.ipynb', 'a-comp.md'], d);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('renamed.ipynb: skipped (an output of dlg-compact)\na-comp.md: skipped (an output of dlg-compact)\n2 files: 2 skipped\n');
    // With its source in the run, an output is reported on the source's line alone.
    expect(cli(['--to', 'md', '--check', 'a.ipynb', 'a-comp.md'], d).stdout.split(',')[0]).toBe('a-comp.md: unchanged');
    expect(cli(['--json', 'renamed.ipynb'], d).stdout).toBe('{"path":"renamed.ipynb","status":"skipped","note":"an output of dlg-compact"}\n');
  });

  it('an own output met by a walk keeps its line when it is the only input, or when it is also named', () => {
    const d = dir({ 'a.ipynb': DEMO });
    expect(cli(['a.ipynb', '--output-dir', 'o'], d).code).toBe(0);
    expect(cli(['o'], d).stdout).toBe('o/a-comp.ipynb: skipped (an output of dlg-compact)\n');
    // Walked first, then named: the name wins, whatever the order.
    expect(cli(['o', 'o/a-comp.ipynb'], d).stdout).toBe('o/a-comp.ipynb: skipped (an output of dlg-compact)\n');
    expect(cli(['.', 'o/a-comp.ipynb'], d).stdout.split('\n')).toEqual([
      'a-comp.ipynb: written, 15 messages, T',
      'o/a-comp.ipynb: skipped (an output of dlg-compact)',
      '2 files: 1 written, 1 skipped; T',
      '',
    ]);
  });

  it('an own output on standard input is skipped as <stdin>', () => {
    const d = dir({ 'a.ipynb': DEMO });
    expect(cli(['a.ipynb'], d).code).toBe(0);
    const r = runCli(['--no-config', '-'], d, readFileSync(join(d, 'a-comp.ipynb')));
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '<stdin>: skipped (an output of dlg-compact)\n']);
  });

  it('a file named -comp that is not an output of its sibling is compacted like any dialog', () => {
    const d = dir({ 'x.ipynb': DEMO, 'y-comp.ipynb': ONE });
    const r = cli(['y-comp.ipynb'], d);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('y-comp-comp.ipynb: written, 1 message, T\n');
  });
});

describe('no litter', () => {
  const temps = (d: string) => ls(d).filter((f) => f.includes('.dlg-compact-'));

  it('stale temporary files of a dead run are removed; a live process keeps its own', () => {
    const d = dir({ 'x.ipynb': DEMO });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    writeFileSync(join(d, `.x.ipynb.dlg-compact-${deadPid}-0badc0de.tmp`), '{"partial');
    writeFileSync(join(d, `.x.ipynb.dlg-compact-${process.pid}-00c0ffee.tmp`), '{"in progress');
    const r = cli(['--mode', 'dialog', '--in-place', 'x.ipynb'], d);
    expect(r.code).toBe(0);
    expect(temps(d)).toEqual([`.x.ipynb.dlg-compact-${process.pid}-00c0ffee.tmp`]);
    // An unchanged rerun cleans up too.
    writeFileSync(join(d, `.x.ipynb.dlg-compact-${deadPid}-0badc0de.tmp`), '{"partial');
    expect(cli(['--mode', 'dialog', '--in-place', 'x.ipynb'], d).stdout.split(',')[0]).toBe('x.ipynb: unchanged');
    expect(temps(d)).toEqual([`.x.ipynb.dlg-compact-${process.pid}-00c0ffee.tmp`]);
  });

  it('a run killed with SIGKILL while writing leaves the input intact; the next run removes its temporary file', async () => {
    // A large dialog, so that the write takes long enough to be caught.
    const big = JSON.parse(DEMO.toString('utf8')) as { cells: { source: string | string[] }[] };
    const cells = [];
    for (let i = 0; i < 400; i++) cells.push({ ...big.cells[0], id: `n${i}`, source: 'lorem ipsum dolor sit amet '.repeat(2000) + i });
    const text = JSON.stringify({ ...big, cells: [...big.cells, ...cells] });
    let caught = false;
    for (let attempt = 0; attempt < 5 && !caught; attempt++) {
      const d = dir({ 'x.ipynb': text });
      const p = spawn(process.execPath, [CLI, '--no-progress', '--no-config', '--mode', 'dialog', '--in-place', 'x.ipynb'], { cwd: d, env: cliEnv() });
      const closed = new Promise((r) => p.on('close', r));
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && p.exitCode === null) {
        if (temps(d).length > 0) {
          p.kill('SIGKILL');
          caught = true;
          break;
        }
        await new Promise((r) => setImmediate(r));
      }
      await closed;
      if (!caught) continue;
      expect(readFileSync(join(d, 'x.ipynb'), 'utf8')).toBe(text);
      expect(temps(d)).toHaveLength(1);
      expect(temps(d)[0]).toMatch(/^\.x\.ipynb\.dlg-compact-\d+-[0-9a-f]{8}\.tmp$/);
      const r = cli(['--mode', 'dialog', '--in-place', 'x.ipynb'], d);
      expect(r.code).toBe(0);
      expect(temps(d)).toEqual([]);
      expect(ls(d)).toEqual(['x.ipynb']);
    }
    expect(caught).toBe(true);
  });

  it('a failed write names the real output, never a temporary file, and leaves none', () => {
    const d = dir({ 'x.ipynb': DEMO, 'file.txt': 'not a folder\n' });
    const r = cli(['x.ipynb', '-o', 'file.txt/out.ipynb'], d);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('dlg-compact: file.txt/out.ipynb: cannot write: a component of the path is not a directory\n');
    expect(ls(d)).toEqual(['file.txt', 'x.ipynb']);
  });
});

describe('conventions of nbconvert, jupytext, nbstripout, black', () => {
  it('a walk of the folder above never compacts micro or dialog-mode copies written into --output-dir again', () => {
    const d = dir({ 'nbs/a.ipynb': DEMO, 'nbs/sub/b.ipynb': ONE });
    expect(cli(['--strategy', 'micro', '--output-dir', 'm', 'nbs'], d).code).toBe(0);
    expect(cli(['--mode', 'dialog', '--output-dir', 'dm', 'nbs'], d).code).toBe(0);
    const r = cli(['--check', '.'], d);
    expect(r.code).toBe(1); // the two sources would be written
    // Outputs met in a folder walk are counted in the total; -v names them.
    expect(r.stdout.split('\n').map((l) => l.split(/[,;]/)[0])).toEqual([
      'nbs/a-comp.ipynb: would write',
      'nbs/sub/b-comp.ipynb: would write',
      '6 files: 2 would write',
      '',
    ]);
    expect(r.stdout.split('\n').at(-2)).toBe('6 files: 2 would write, 4 skipped; T');
    const v = cli(['--check', '-v', '.'], d);
    expect(v.stdout.split('\n').map((l) => l.split(/[,;]/)[0])).toEqual([
      'dm/a-comp.ipynb: skipped (an output of dlg-compact)',
      'dm/sub/b-comp.ipynb: skipped (an output of dlg-compact)',
      'm/a-comp.ipynb: skipped (an output of dlg-compact)',
      'm/sub/b-comp.ipynb: skipped (an output of dlg-compact)',
      'nbs/a-comp.ipynb: would write',
      'nbs/sub/b-comp.ipynb: would write',
      '6 files: 2 would write',
      '',
    ]);
    expect(ls(d)).toEqual(['dm', 'm', 'nbs']);
  });

  it('--output-dir is created and keeps the layout of directory inputs', () => {
    const d = dir({ 'nbs/a.ipynb': DEMO, 'nbs/sub/b.ipynb': ONE, 'c.ipynb': ONE });
    const r = cli(['--output-dir', 'out/x', 'nbs', 'c.ipynb'], d);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'out/x/a-comp.ipynb: written, 15 messages, T',
        'out/x/sub/b-comp.ipynb: written, 1 message, T',
        'out/x/c-comp.ipynb: written, 1 message, T',
        '3 files: 3 written; T',
        '',
      ].join('\n'),
    );
    expect(ls(join(d, 'nbs'))).toEqual(['a.ipynb', 'sub']);
    // Rerun with the output folder inside the input folder: its files are not inputs.
    const again = cli(['--output-dir', 'nbs/out', 'nbs'], d);
    expect(again.code).toBe(0);
    expect(
      cli(['--output-dir', 'nbs/out', 'nbs'], d)
        .stdout.split('\n')
        .map((l) => l.split(',')[0]),
    ).toEqual(['nbs/out/a-comp.ipynb: unchanged', 'nbs/out/sub/b-comp.ipynb: unchanged', '2 files: 2 unchanged; T', '']);
  });

  it('a folder link inside --output-dir is followed: the output lands in the folder it names', () => {
    const d = dir({ 'nbs/sub/b.ipynb': ONE });
    mkdirSync(join(d, 'out'));
    mkdirSync(join(d, 'elsewhere'));
    symlinkSync('../elsewhere', join(d, 'out', 'sub'));
    const r = cli(['--output-dir', 'out', 'nbs'], d);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('out/sub/b-comp.ipynb: written, 1 message, T\n');
    expect(lstatSync(join(d, 'out', 'sub')).isSymbolicLink()).toBe(true);
    expect(ls(join(d, 'elsewhere'))).toEqual(['b-comp.ipynb']);
  });

  it('-o into a missing folder creates it', () => {
    const d = dir({ 'x.ipynb': DEMO });
    const r = cli(['x.ipynb', '-o', 'new/deep/x.md'], d);
    expect(r.code).toBe(0);
    expect(readFileSync(join(d, 'new', 'deep', 'x.md'), 'utf8')).toContain('§ # Why does the nightly order import take 15 seconds?');
  });

  it('-q prints only errors; -v names the settings file', () => {
    const d = dir({ 'x.ipynb': DEMO, 'bad.ipynb': '[]' });
    const q = cli(['-q', 'x.ipynb', 'bad.ipynb'], d);
    expect(q.code).toBe(1);
    expect(q.stdout).toBe('');
    expect(q.stderr).toBe('dlg-compact: bad.ipynb: not a notebook: the JSON value is a list, not an object\n');
    const e = dir({ 'x.ipynb': DEMO, '.git/HEAD': '', '.dlg-compact.json': '{"asst-toks": 150}' });
    const v = spawnSync(process.execPath, [CLI, '--no-progress', '-v', 'x.ipynb'], { cwd: e, encoding: 'utf8', env: cliEnv() });
    expect(tokensT(v.stdout)).toBe('x.ipynb: settings from .dlg-compact.json\nx-comp.ipynb: written, 15 messages, T\n');
  });

  it('--dry-run says what would be written and exits 0; --check exits 1', () => {
    const d = dir({ 'x.ipynb': DEMO });
    const dry = cli(['--dry-run', 'x.ipynb'], d);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe('x-comp.ipynb: would write, 15 messages, T\n');
    expect(cli(['--check', 'x.ipynb'], d).code).toBe(1);
    expect(ls(d)).toEqual(['x.ipynb']);
  });

  it('--to markdown and --to notebook are md and ipynb', () => {
    const d = dir({ 'x.ipynb': DEMO });
    expect(cli(['--to', 'markdown', 'x.ipynb'], d).stdout).toBe('x-comp.md: written, 15 messages, T\n');
    expect(cli(['--to', 'notebook', 'x.ipynb'], d).stdout).toBe('x-comp.ipynb: written, 15 messages, T\n');
    expect(cli(['--to', 'md', 'x.ipynb', '-o', 'same.md'], d).code).toBe(0);
    expect(readFileSync(join(d, 'x-comp.md'))).toEqual(readFileSync(join(d, 'same.md')));
  });

  it('clear messages: an empty file, a directory given as the output, a missing input, no input', () => {
    const d = dir({ 'empty.ipynb': '', 'blank.ipynb': '  \n', 'x.ipynb': DEMO });
    mkdirSync(join(d, 'folder'));
    const r = cli(['empty.ipynb', 'blank.ipynb', 'missing.ipynb'], d);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        'dlg-compact: empty.ipynb: empty file, not a notebook (0 bytes)',
        'dlg-compact: blank.ipynb: empty file, not a notebook (only white space)',
        'dlg-compact: missing.ipynb: cannot read: no such file or directory',
        '',
      ].join('\n'),
    );
    const o = cli(['x.ipynb', '-o', 'folder'], d);
    expect(o.code).toBe(2);
    expect(o.stderr).toBe(
      "dlg-compact: error: -o folder is a directory; to write the outputs into it use --output-dir folder\nTry 'dlg-compact --help' for more information.\n",
    );
    const none = cli([], d);
    expect(none.code).toBe(2);
    expect(none.stderr.split('\n')[0]).toBe('dlg-compact: error: missing input: name notebooks, directories, quoted globs, or - for standard input');
    expect(existsSync(join(d, 'folder', 'x-comp.ipynb'))).toBe(false);
  });

  it('--help describes every option', () => {
    const h = cli(['--help'], dir()).stdout;
    for (const flag of ['--output-dir', '--stdout', '--dry-run', '-q, --quiet', '-v, --verbose', '--watch', '--print-config', '--no-config', 'markdown']) {
      expect(h).toContain(flag);
    }
  });
});
