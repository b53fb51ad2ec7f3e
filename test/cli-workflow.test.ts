/**
 * The BUILT command in a notebook project's workflow, in temporary folders: settings files
 * (`.dlg-compact.json`, `package.json`, `pyproject.toml`) found upward from each input and
 * `--print-config`; the pre-commit hooks of `.pre-commit-hooks.yaml`, their entries run on a
 * temporary git repository as pre-commit runs them; `--watch` while files are saved into a
 * folder; and the package as `npm pack` makes it, installed into another project.
 * Run alone, this file rebuilds dist/ first when a src/*.ts is newer than its output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, cliT, repoFolders, scratchFolders, tokensT } from './built-cli.js';
import { ROOT } from './support.js';

const DEMO = readFileSync(join(ROOT, 'notebooks', 'demo.ipynb'));

const cli = cliT;

const folder = scratchFolders('dlg-cli-flow-');
/** A fresh folder holding `files`, with a `.git` folder so that settings are not looked for above it. */
const repo = repoFolders('dlg-cli-flow-');

describe('settings files', () => {
  it('the nearest of .dlg-compact.json, package.json "dlg-compact", pyproject.toml [tool.dlg-compact] applies to each input', () => {
    const d = repo({
      'pyproject.toml': '[project]\nname = "nbs"\n\n[tool.dlg-compact]\nmode = "dialog"\n',
      'a/x.ipynb': DEMO,
      'b/package.json': '{"name": "b", "dlg-compact": {"to": "markdown"}}',
      'b/x.ipynb': DEMO,
      'c/.dlg-compact.json': '{"strategy": "micro"}',
      'c/package.json': '{"name": "c", "dlg-compact": {"to": "md"}}',
      'c/x.ipynb': DEMO,
      'd/package.json': '{"name": "d"}',
      'd/pyproject.toml': '[project]\nname = "d"\n',
      'd/x.ipynb': DEMO,
    });
    const r = cli(['-v', 'a/x.ipynb', 'b/x.ipynb', 'c/x.ipynb', 'd/x.ipynb'], d);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'a/x.ipynb: settings from pyproject.toml',
        'a/x-comp.ipynb: written, 15 messages, T',
        'b/x.ipynb: settings from b/package.json',
        'b/x-comp.md: written, 15 messages, T',
        'c/x.ipynb: settings from c/.dlg-compact.json',
        'c/x-comp.ipynb: written (micro: 2 tool results cleared), 15 messages, T',
        // d's package.json and pyproject.toml have no settings: the search goes on up.
        'd/x.ipynb: settings from pyproject.toml',
        'd/x-comp.ipynb: written, 15 messages, T',
        '4 files: 4 written; T',
        '',
      ].join('\n'),
    );
    // a: dialog mode keeps every cell; the flat form has one.
    expect((JSON.parse(readFileSync(join(d, 'a', 'x-comp.ipynb'), 'utf8')) as { cells: unknown[] }).cells).toHaveLength(15);
  });

  it('flags override the file; --no-config ignores it; --print-config says where each setting comes from', () => {
    const d = repo({ '.dlg-compact.json': '{"mode": "dialog", "asst-toks": 100}', 'x.ipynb': DEMO });
    const p = cli(['--print-config', '--user-toks', '900', 'x.ipynb'], d);
    expect(p.code).toBe(0);
    expect(p.stdout).toBe(
      [
        'x.ipynb: settings from .dlg-compact.json',
        '  mode = dialog  (.dlg-compact.json)',
        '  strategy = dsl  (default)',
        '  profile = clean  (default)',
        '  to = ipynb  (default)',
        '  user-toks = 900  (--user-toks)',
        '  asst-toks = 100  (.dlg-compact.json)',
        '  call-toks = 60  (default)',
        '  result-toks = 35  (default)',
        '  max-tokens = (no limit)  (default)',
        '  keep-recent = (summary and micro only)  (default)',
        '  min-saving = (summary only)  (default)',
        '  keep-tools = (micro only)  (default)',
        '',
      ].join('\n'),
    );
    expect(readdirSync(d).sort()).toEqual(['.dlg-compact.json', '.git', 'x.ipynb']);
    const j = JSON.parse(cli(['--print-config', '--json', '--mode', 'flat'], d).stdout) as {
      config: string;
      settings: Record<string, { value: unknown; source: string }>;
    };
    expect(j.config).toBe('.dlg-compact.json');
    expect(j.settings.mode).toEqual({ value: 'flat', source: '--mode' });
    expect(j.settings['asst-toks']).toEqual({ value: 100, source: '.dlg-compact.json' });
    const flat = JSON.parse(cli(['--json', '--mode', 'flat', 'x.ipynb'], d).stdout) as { output: string };
    expect(flat.output).toBe('x-comp.ipynb');
    expect((JSON.parse(readFileSync(join(d, 'x-comp.ipynb'), 'utf8')) as { cells: unknown[] }).cells).toHaveLength(1);
    expect(cli(['--no-config', '--print-config'], d).stdout.split('\n')[1]).toBe('  mode = flat  (default)');
  });

  it('--print-config shows the defaults of the strategy in use', () => {
    const d = repo({ 'x.ipynb': DEMO });
    const tail = (strategy: string) => cli(['--print-config', '--strategy', strategy, 'x.ipynb'], d).stdout.split('\n').slice(-5);
    expect(tail('summary')).toEqual([
      '  max-tokens = (always summarise)  (default)',
      '  keep-recent = (25% of the cells, at least 2)  (default)',
      '  min-saving = 0.1  (default)',
      '  keep-tools = (micro only)  (default)',
      '',
    ]);
    expect(tail('micro')).toEqual([
      '  max-tokens = (dsl and summary only)  (default)',
      '  keep-recent = 3  (default)',
      '  min-saving = (summary only)  (default)',
      '  keep-tools = (none beyond read_file)  (default)',
      '',
    ]);
    const j = JSON.parse(cli(['--print-config', '--json', '--strategy', 'micro', 'x.ipynb'], d).stdout) as {
      settings: Record<string, { value: unknown; source: string }>;
    };
    expect(j.settings['keep-recent']).toEqual({ value: 3, source: 'default' });
    expect(j.settings['min-saving']).toEqual({ value: null, source: 'default' });
    expect(j.settings['keep-tools']).toEqual({ value: null, source: 'default' });
    expect(j.settings['max-tokens']).toEqual({ value: null, source: 'default' });
  });

  it('min-saving and keep-tools: a share or percentage, a list of tool names', () => {
    const d = repo({ '.dlg-compact.json': '{"strategy": "micro", "min-saving": "20%", "keep-tools": ["memory", "load_dialog"]}', 'x.ipynb': DEMO });
    const j = JSON.parse(cli(['--print-config', '--json'], d).stdout) as { settings: Record<string, { value: unknown; source: string }> };
    // Parsed as a share; a micro run leaves it out, and says so.
    expect(j.settings['min-saving']).toEqual({ value: 0.2, source: '.dlg-compact.json', ignored: 'summary only' });
    expect(j.settings['keep-tools']).toEqual({ value: ['memory', 'load_dialog'], source: '.dlg-compact.json' });
  });

  it('a malformed settings file is a usage error naming the file and the key', () => {
    const cases: [string, string, string][] = [
      ['.dlg-compact.json', '{"mode": "diolog"}', '.dlg-compact.json: "mode": expected one of flat, dialog, got "diolog"'],
      [
        '.dlg-compact.json',
        '{"asst_toks": 100}',
        '.dlg-compact.json: "asst_toks": unknown setting (known: mode, strategy, profile, to, user-toks, asst-toks, call-toks, result-toks, max-tokens, keep-recent, min-saving, keep-tools)',
      ],
      ['package.json', '{"dlg-compact": {"user-toks": -1}}', 'package.json: "dlg-compact".user-toks: expected a non-negative integer, got -1'],
      ['package.json', '{"dlg-compact": {"user-toks": "9"}}', 'package.json: "dlg-compact".user-toks: expected an integer, got "9"'],
      ['pyproject.toml', '[tool.dlg-compact]\nstrategy = 3\n', 'pyproject.toml: [tool.dlg-compact] strategy: expected one of dsl, summary, micro, got 3'],
      ['pyproject.toml', '[tool.dlg-compact\n', 'pyproject.toml: invalid TOML: Invalid TOML document: illegal character in key'],
      ['.dlg-compact.json', '{"keep-tools": 5}', '.dlg-compact.json: "keep-tools": expected a list of tool names, got 5'],
      ['.dlg-compact.json', '{"min-saving": true}', '.dlg-compact.json: "min-saving": expected a share such as 0.1 or "10%", got true'],
      ['.dlg-compact.json', '["mode"]', '.dlg-compact.json: the dlg-compact settings must be an object (a table), got a list'],
    ];
    for (const [file, body, msg] of cases) {
      const d = repo({ [file]: body, 'x.ipynb': DEMO });
      const r = cli(['x.ipynb'], d);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `dlg-compact: error: ${join(d, msg.split(':')[0]!)}${msg.slice(msg.indexOf(':'))}\nTry 'dlg-compact --help' for more information.\n`,
      );
      expect(existsSync(join(d, 'x-comp.ipynb'))).toBe(false);
    }
  });
});

describe('pre-commit hooks', () => {
  /** The hooks of .pre-commit-hooks.yaml: id, entry and files pattern of each (the file keeps one key per line). */
  function hooks(): { id: string; entry: string; files: RegExp; language: string }[] {
    const text = readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8');
    return text
      .split(/^- /m)
      .slice(1)
      .map((block) => {
        const get = (k: string) => new RegExp(`^\\s*${k}: (.*)$`, 'm').exec('  ' + block)?.[1]?.trim() ?? '';
        return { id: get('id'), entry: get('entry'), files: new RegExp(get('files')), language: get('language') };
      });
  }

  it('declares the two hooks, language node', () => {
    expect(hooks().map((h) => [h.id, h.language, h.entry])).toEqual([
      ['dlg-compact', 'node', 'dlg-compact --quiet --no-progress'],
      ['dlg-compact-check', 'node', 'dlg-compact --mode dialog --check --no-progress'],
    ]);
  });

  it('each entry, run on the staged notebooks of a temporary git repository as pre-commit runs it', () => {
    if (spawnSync('git', ['--version']).status !== 0) throw new Error('git is needed for this test');
    const d = folder();
    mkdirSync(join(d, 'nbs'), { recursive: true });
    const git = (...a: string[]) => spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...a], { cwd: d, encoding: 'utf8' });
    expect(git('init', '-q').status).toBe(0);
    writeFileSync(join(d, 'nbs', 'a.ipynb'), DEMO);
    writeFileSync(join(d, 'notes.txt'), 'not a notebook\n');
    expect(git('add', '.').status).toBe(0);
    const run = (entry: string) => {
      const staged = git('diff', '--cached', '--name-only').stdout.trim().split('\n');
      const h = hooks().find((x) => x.entry === entry)!;
      const [, ...args] = h.entry.split(' ');
      return cli([...args, ...staged.filter((f) => h.files.test(f))], d);
    };
    const [write, check] = hooks();
    // The check hook fails while the copy is missing, and says which.
    const c1 = run(check!.entry);
    expect(c1.code).toBe(1);
    expect(c1.stdout).toBe('nbs/a-comp.ipynb: would write, 15 messages, T\n');
    // The writing hook is quiet and writes the flat copy.
    const w = run(write!.entry);
    expect([w.code, w.stdout, w.stderr]).toEqual([0, '', '']);
    expect(existsSync(join(d, 'nbs', 'a-comp.ipynb'))).toBe(true);
    // Dialog-mode copy staged: the check passes, and skips the staged copy itself.
    expect(cli(['--mode', 'dialog', 'nbs/a.ipynb'], d).code).toBe(0);
    git('add', '.');
    const c2 = run(check!.entry);
    expect(c2.code).toBe(0);
    expect(c2.stdout).toBe('nbs/a-comp.ipynb: unchanged, 15 messages, T\n');
  });
});

describe('--watch', () => {
  it('keeps outputs up to date as files are saved; reports a broken save and recovers; Ctrl-C exits 0', async () => {
    const d = repo({ 'nbs/a.ipynb': DEMO });
    const p = spawn(process.execPath, [CLI, '--no-progress', '--watch', 'nbs'], { cwd: d, env: cliEnv() });
    let out = '';
    let err = '';
    p.stdout.on('data', (c) => (out += c));
    p.stderr.on('data', (c) => (err += c));
    const closed = new Promise<number | null>((r) => p.on('close', (code) => r(code)));
    const until = async (what: () => boolean, label: string) => {
      const deadline = Date.now() + 20_000;
      while (!what()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}\nstdout: ${out}\nstderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await until(() => err.includes('dlg-compact: watching nbs (Ctrl-C to stop)\n'), 'the watcher');
      expect(tokensT(out)).toBe('nbs/a-comp.ipynb: written, 15 messages, T\n');
      // A new notebook saved into the folder.
      writeFileSync(join(d, 'nbs', 'b.ipynb'), DEMO);
      await until(() => out.includes('nbs/b-comp.ipynb: written'), 'b');
      // A half-written save: reported, the output kept as it was, the watcher goes on.
      const before = readFileSync(join(d, 'nbs', 'a-comp.ipynb'));
      writeFileSync(join(d, 'nbs', 'a.ipynb'), DEMO.subarray(0, 100));
      await until(() => err.includes('(watching: retried on the next save)'), 'the error');
      expect(err).toContain('dlg-compact: nbs/a.ipynb: not a notebook: invalid JSON');
      expect(readFileSync(join(d, 'nbs', 'a-comp.ipynb'))).toEqual(before);
      // The next save completes it.
      writeFileSync(join(d, 'nbs', 'a.ipynb'), DEMO);
      await until(() => out.split('\n').filter((l) => l.startsWith('nbs/a-comp.ipynb: ')).length === 2, 'the retry');
      expect(tokensT(out).split('\n')).toEqual([
        'nbs/a-comp.ipynb: written, 15 messages, T',
        'nbs/b-comp.ipynb: written, 15 messages, T',
        'nbs/a-comp.ipynb: unchanged, 15 messages, T',
        '',
      ]);
    } finally {
      p.kill('SIGINT');
    }
    expect(await closed).toBe(0);
    expect(err.endsWith('dlg-compact: stopped watching\n')).toBe(true);
    // Its own outputs were never taken as inputs, and nothing was left behind.
    expect(readdirSync(join(d, 'nbs')).sort()).toEqual(['a-comp.ipynb', 'a.ipynb', 'b-comp.ipynb', 'b.ipynb']);
  }, 60_000);
});

describe('the package', () => {
  /** A folder without a node_modules above it, so that the installed package resolves only its own. */
  function isolated(): string {
    for (const base of [tmpdir(), '/var/tmp', ROOT]) {
      let clean = true;
      for (let d = base; ; d = dirname(d)) {
        if (existsSync(join(d, 'node_modules')) && d !== ROOT) clean = false;
        if (dirname(d) === d) break;
      }
      if (clean) return mkdtempSync(join(base, 'dlg-pack-'));
    }
    return mkdtempSync(join(tmpdir(), 'dlg-pack-'));
  }

  it('npm pack: dist and docs, no tests or fixtures, no install scripts; installs and runs with npx', () => {
    const d = isolated();
    try {
      const npm = (args: string[], cwd: string) =>
        spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...cliEnv(), npm_config_update_notifier: 'false' }, timeout: 300_000 });
      // --ignore-scripts: dist/ is built already (this suite built it); prepack would rebuild it.
      const pack = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', d], ROOT);
      expect(pack.status).toBe(0);
      const info = (JSON.parse(pack.stdout) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[])[0]!;
      console.log(`[package] ${info.filename}: ${info.size} bytes packed, ${info.unpackedSize} unpacked, ${info.files.length} files`);
      const paths = info.files.map((f) => f.path);
      expect(paths).toContain('dist/cli/main.js');
      expect(paths).toContain('dist/bin/main.js');
      expect(paths).toContain('dist/bin/worker.js');
      expect(paths).toContain('dist/bin/package.json'); // the bundle is CommonJS
      expect(paths).toContain('dist/tokens/o200k.table');
      expect(paths).toContain('dist/index.d.ts');
      expect(paths).toContain('README.md');
      expect(paths).toContain('docs/benchmarks.md');
      expect(paths.filter((p) => !p.startsWith('dist/') && !p.startsWith('docs/')).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
      expect(paths.filter((p) => /(^|\/)(test|tests|fixtures)\//.test(p) || p.includes('.test.'))).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
      // No script runs when the tarball is installed: `prepare` (the build, for a git install)
      // is not run for a tarball, though npm names it among the scripts it would not allow.
      expect(Object.keys(manifest.scripts).filter((s) => ['preinstall', 'install', 'postinstall'].includes(s))).toEqual([]);
      const proj = join(d, 'proj');
      mkdirSync(proj);
      writeFileSync(join(proj, 'package.json'), '{"name": "proj", "version": "1.0.0", "private": true}\n');
      const inst = npm(['install', '--no-audit', '--no-fund', '--prefer-offline', join(d, info.filename)], proj);
      expect(inst.status, inst.stderr).toBe(0);
      expect(inst.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm warn install-scripts'))).toEqual([]);
      expect(existsSync(join(proj, 'node_modules', 'dlg-compact', 'scripts'))).toBe(false); // (not packed: a prepare run would have failed the install)
      writeFileSync(join(proj, 'demo.ipynb'), DEMO);
      const run = spawnSync('npx', ['--no-install', 'dlg-compact', 'demo.ipynb'], { cwd: proj, encoding: 'utf8', env: cliEnv() });
      expect(run.stderr).toBe('');
      expect(tokensT(run.stdout)).toBe('demo-comp.ipynb: written, 15 messages, T\n');
      const lib = spawnSync(process.execPath, ['--input-type=module', '-e', "import { dlg2compact } from 'dlg-compact'; console.log(typeof dlg2compact)"], {
        cwd: proj,
        encoding: 'utf8',
      });
      expect(lib.stdout).toBe('function\n');
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  }, 300_000);
});
