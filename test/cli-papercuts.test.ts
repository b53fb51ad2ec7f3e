/**
 * The BUILT command on the rough edges a first-time user meets: settings-file keys meant for
 * another strategy or mode, arguments dropped as duplicates under `-v`, an output path whose
 * extension contradicts `--to`, the advice when `-o` names the input, an LLM endpoint that
 * cannot be reached, `--json` records of failed files, and where `--check -o -` reports.
 * Expected values are written out by hand; token figures and sizes are `T` (pinned elsewhere).
 * Run alone, this file rebuilds dist/ first when a src/*.ts is newer than its output.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, type CliRun, cliEnv, cliT, repoFolders, runCli } from './built-cli.js';
import { ROOT } from './support.js';

const DEMO = readFileSync(join(ROOT, 'notebooks', 'demo.ipynb'));
const TRY = "Try 'dlg-compact --help' for more information.\n";

const cli = cliT;

/** A fresh folder holding `files`, with a `.git` folder so that settings are not looked for above it. */
const repo = repoFolders('dlg-cli-papercuts-');

describe('settings-file keys that do not apply to the run are ignored', () => {
  it('keep-recent and keep-tools in a flat run: written, no error; -v names what was ignored', () => {
    const d = repo({ 'pyproject.toml': '[tool.dlg-compact]\nkeep-recent = 6\nkeep-tools = "memory"\n', 'x.ipynb': DEMO });
    const r = cli(['x.ipynb'], d);
    expect(r).toEqual({ code: 0, stdout: 'x-comp.ipynb: written, 15 messages, T\n', stderr: '' });
    const v = cli(['-v', 'x.ipynb'], d);
    expect(v).toEqual({
      code: 0,
      stdout:
        'x.ipynb: settings from pyproject.toml, ignoring keep-recent (summary and micro only), keep-tools (micro only)\n' +
        'x-comp.ipynb: unchanged, 15 messages, T\n',
      stderr: '',
    });
  });

  it('max-tokens and the budgets with --strategy micro; min-saving with micro; mode flat and to md with a notebook-writing strategy', () => {
    const d = repo({
      '.dlg-compact.json': '{"max-tokens": 5000, "asst-toks": 100, "min-saving": 0.2, "mode": "flat", "to": "md"}',
      'x.ipynb': DEMO,
    });
    const r = cli(['-v', '--strategy', 'micro', 'x.ipynb'], d);
    expect(r).toEqual({
      code: 0,
      stdout:
        'x.ipynb: settings from .dlg-compact.json, ignoring max-tokens (dsl and summary only), asst-toks (dsl and summary only), ' +
        'min-saving (summary only), mode flat (not with --strategy micro), to md (flat mode only)\n' +
        'x-comp.ipynb: written (micro: 2 tool results cleared), 15 messages, T\n',
      stderr: '',
    });
  });

  it('to md with mode dialog given as a flag: the file\'s "to" is ignored', () => {
    const d = repo({ '.dlg-compact.json': '{"to": "md"}', 'x.ipynb': DEMO });
    expect(cli(['--mode', 'dialog', 'x.ipynb'], d)).toEqual({ code: 0, stdout: 'x-comp.ipynb: written, 15 messages, T\n', stderr: '' });
    expect(JSON.parse(readFileSync(join(d, 'x-comp.ipynb'), 'utf8')).cells).toHaveLength(15);
  });

  it('a key that applies is still used: keep-recent with --strategy micro', () => {
    const d = repo({ '.dlg-compact.json': '{"keep-recent": 0}', 'x.ipynb': DEMO });
    const r = cli(['-v', '--strategy', 'micro', 'x.ipynb'], d);
    expect(r).toEqual({
      code: 0,
      stdout: 'x.ipynb: settings from .dlg-compact.json\nx-comp.ipynb: written (micro: 4 tool results cleared), 15 messages, T\n',
      stderr: '',
    });
  });

  it('--print-config marks the keys the run would ignore', () => {
    const d = repo({ '.dlg-compact.json': '{"keep-recent": 6, "asst-toks": 100}', 'x.ipynb': DEMO });
    const lines = cli(['--print-config', 'x.ipynb'], d).stdout.split('\n');
    expect(lines.filter((l) => l.includes('.dlg-compact.json'))).toEqual([
      'x.ipynb: settings from .dlg-compact.json',
      '  asst-toks = 100  (.dlg-compact.json)',
      '  keep-recent = 6  (.dlg-compact.json; ignored: summary and micro only)',
    ]);
    const j = JSON.parse(cli(['--print-config', '--json', 'x.ipynb'], d).stdout) as { settings: Record<string, unknown> };
    expect(j.settings['keep-recent']).toEqual({ value: 6, source: '.dlg-compact.json', ignored: 'summary and micro only' });
    expect(j.settings['asst-toks']).toEqual({ value: 100, source: '.dlg-compact.json' });
    const micro = JSON.parse(cli(['--print-config', '--json', '--strategy', 'micro', 'x.ipynb'], d).stdout) as { settings: Record<string, unknown> };
    expect(micro.settings['keep-recent']).toEqual({ value: 6, source: '.dlg-compact.json' });
    expect(micro.settings['asst-toks']).toEqual({ value: 100, source: '.dlg-compact.json', ignored: 'dsl and summary only' });
  });

  it('flags given on the command line are still refused, and so are bad values in the file', () => {
    const d = repo({ 'x.ipynb': DEMO });
    expect(cli(['--keep-recent', '6', 'x.ipynb'], d)).toEqual({
      code: 2,
      stdout: '',
      stderr: `dlg-compact: error: --keep-recent needs --strategy summary or micro\n${TRY}`,
    });
    const bad = repo({ 'pyproject.toml': '[tool.dlg-compact]\nkeep-recent = -1\n', 'x.ipynb': DEMO });
    expect(cli(['x.ipynb'], bad)).toEqual({
      code: 2,
      stdout: '',
      stderr: `dlg-compact: error: ${join(bad, 'pyproject.toml')}: [tool.dlg-compact] keep-recent: expected a non-negative integer, got -1\n${TRY}`,
    });
    expect(existsSync(join(bad, 'x-comp.ipynb'))).toBe(false);
  });
});

describe('-v names the arguments dropped as duplicates', () => {
  it('a file named twice, and a symbolic link to it: one line each on standard error', () => {
    const d = repo({ 'x.ipynb': DEMO });
    symlinkSync('x.ipynb', join(d, 'link.ipynb'));
    const r = cli(['-v', '--check', 'x.ipynb', 'x.ipynb', 'link.ipynb'], d);
    expect(r).toEqual({
      code: 1,
      stdout: 'x-comp.ipynb: would write, 15 messages, T\n',
      stderr: 'x.ipynb: dropped, the same file as x.ipynb\nlink.ipynb: dropped, the same file as x.ipynb\n',
    });
    // Without -v the duplicates go silently.
    expect(cli(['--check', 'x.ipynb', 'x.ipynb', 'link.ipynb'], d)).toEqual({ code: 1, stdout: 'x-comp.ipynb: would write, 15 messages, T\n', stderr: '' });
  });
});

describe('the output path and the format', () => {
  it('--to md with -o NAME.ipynb is refused, naming the flag; --to ipynb with -o NAME.md too', () => {
    const d = repo({ 'x.ipynb': DEMO });
    expect(cli(['--to', 'md', '-o', 'y.ipynb', 'x.ipynb'], d)).toEqual({
      code: 2,
      stdout: '',
      stderr: `dlg-compact: error: --to md writes Markdown; -o y.ipynb names a notebook\n${TRY}`,
    });
    expect(cli(['--to', 'markdown', '-o', 'y.IPYNB', 'x.ipynb'], d).stderr).toBe(
      `dlg-compact: error: --to md writes Markdown; -o y.IPYNB names a notebook\n${TRY}`,
    );
    expect(cli(['--to', 'ipynb', '-o', 'y.md', 'x.ipynb'], d)).toEqual({
      code: 2,
      stdout: '',
      stderr: `dlg-compact: error: --to ipynb writes a notebook; -o y.md names a Markdown file\n${TRY}`,
    });
    expect(readdirSync(d).sort()).toEqual(['.git', 'x.ipynb']);
  });

  it('a settings file\'s "to" gives way to the extension of -o', () => {
    const d = repo({ '.dlg-compact.json': '{"to": "md"}', 'x.ipynb': DEMO });
    expect(cli(['-v', '-o', 'y.ipynb', 'x.ipynb'], d)).toEqual({
      code: 0,
      stdout: 'x.ipynb: settings from .dlg-compact.json, ignoring to md (not with -o y.ipynb)\ny.ipynb: written, 15 messages, T\n',
      stderr: '',
    });
    expect(JSON.parse(readFileSync(join(d, 'y.ipynb'), 'utf8')).cells).toHaveLength(1);
  });

  it('-o naming the input: the advice fits the mode', () => {
    const d = repo({ 'x.ipynb': DEMO, 'n.json': DEMO });
    expect(cli(['-o', 'x.ipynb', 'x.ipynb'], d)).toEqual({
      code: 2,
      stdout: '',
      stderr: `dlg-compact: error: refusing to overwrite the input x.ipynb (leave out -o to write x-comp.ipynb, or name another output)\n${TRY}`,
    });
    expect(cli(['--to', 'md', '-o', './n.json', 'n.json'], d).stderr).toBe(
      `dlg-compact: error: refusing to overwrite the input n.json (leave out -o to write n-comp.md, or name another output)\n${TRY}`,
    );
    expect(cli(['--mode', 'dialog', '-o', 'x.ipynb', 'x.ipynb'], d).stderr).toBe(
      `dlg-compact: error: refusing to overwrite the input x.ipynb (use --in-place to rewrite it)\n${TRY}`,
    );
    expect(cli(['--strategy', 'summary', '-o', 'x.ipynb', 'x.ipynb'], d).stderr).toBe(
      `dlg-compact: error: refusing to overwrite the input x.ipynb (leave out -o to write x-comp.ipynb, or name another output)\n${TRY}`,
    );
    expect(readdirSync(d).sort()).toEqual(['.git', 'n.json', 'x.ipynb']);
  });
});

describe('reports', () => {
  it('an LLM endpoint nobody listens on: the message names the URL and the cause', async () => {
    // A port that was free a moment ago: bound, then closed.
    const port = await new Promise<number>((res) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => res(p));
      });
    });
    const d = repo({ 'x.ipynb': DEMO });
    const r = await new Promise<CliRun>((res) => {
      const p = spawn(
        process.execPath,
        [CLI, '--no-progress', '--strategy', 'summary', '--llm-url', `http://127.0.0.1:${port}/v1`, '--llm-model', 'qwen', 'x.ipynb'],
        { cwd: d, env: cliEnv() },
      );
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      p.on('close', (code) => res({ code, stdout, stderr }));
    });
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `dlg-compact: x.ipynb: summary failed (http:qwen): summariser request to http://127.0.0.1:${port}/v1/chat/completions failed: ` +
        `connect ECONNREFUSED 127.0.0.1:${port}\n`,
    });
  });

  it('a port fetch never connects to (9): the message says so', () => {
    const d = repo({ 'x.ipynb': DEMO });
    expect(cli(['--strategy', 'summary', '--llm-url', 'http://127.0.0.1:9/v1', '--llm-model', 'qwen', 'x.ipynb'], d)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'dlg-compact: x.ipynb: summary failed (http:qwen): summariser request to http://127.0.0.1:9/v1/chat/completions failed: ' +
        'fetch refuses to connect to port 9 (bad port)\n',
    });
    // Credentials in the URL are masked wherever the message repeats it.
    const r = cli(['--strategy', 'summary', '--llm-url', 'http://me:secret@127.0.0.1:9/v1', '--llm-model', 'qwen', 'x.ipynb'], d);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('summariser request to http://***@127.0.0.1:9/v1/chat/completions failed: ');
    expect(r.stderr).not.toContain('secret');
  });

  it('--json: a failed file has "status": "failed" like every other record has a status', () => {
    const d = repo({ 'x.ipynb': DEMO });
    const r = runCli(['--json', '--check', 'missing.ipynb', 'x.ipynb'], d);
    expect(r.code).toBe(1);
    const recs = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(recs[0]).toEqual({ path: 'missing.ipynb', status: 'failed', error: 'missing.ipynb: cannot read: no such file or directory' });
    expect(Object.keys(recs[0]!)).toEqual(['path', 'status', 'error']);
    expect(recs[1]!.status).toBe('would write');
  });

  it('--check -o -: the report goes to standard error, standard output stays empty', () => {
    const d = repo({ 'x.ipynb': DEMO });
    expect(cli(['--check', '-o', '-', 'x.ipynb'], d)).toEqual({ code: 0, stdout: '', stderr: 'x.ipynb → <stdout>: would print, 15 messages, T\n' });
    expect(cli(['--check', '--json', '--stdout', 'x.ipynb'], d).stdout).toBe('');
    expect(cli(['--dry-run', '-o', '-', 'x.ipynb'], d)).toEqual({ code: 0, stdout: '', stderr: 'x.ipynb → <stdout>: would print, 15 messages, T\n' });
  });
});
