/**
 * Test support for suites that run the built command (`node dist/bin/main.js`, the package's
 * `bin`: the bundle scripts/build.mjs makes) as a user would: where it is, and a rebuild of
 * dist/ when a source file is newer than its build output (CI builds before testing, so there
 * this does nothing).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll } from 'vitest';
import { dirname, join } from 'node:path';
import { ROOT } from './support.js';

/** The built command: the bundle of dist/cli/ that package.json's `bin` names. */
export const CLI = join(ROOT, 'dist', 'bin', 'main.js');

/** The rank table the build writes beside the tokenizer's modules. */
export const BUILT_TABLE = join(ROOT, 'dist', 'tokens', 'o200k.table');

/** The list of the bundle's recorded V8 code caches (src/host/code-cache.cts). */
export const CODE_CACHE_MANIFEST = join(ROOT, 'dist', 'bin', 'code-cache.json');

/**
 * Run the build (scripts/build.mjs: tsc, the rank table, the command's bundle and its code
 * caches) when any .ts or .cts file under src/ is newer than its .js or .cjs or than the
 * bundle, or an output is missing; throws when the build fails.
 */
export function ensureBuilt(): void {
  const src = join(ROOT, 'src');
  const built = (p: string): number => (existsSync(p) ? statSync(p).mtimeMs : -1);
  const bundle = Math.min(built(CLI), built(BUILT_TABLE), built(CODE_CACHE_MANIFEST));
  const stale = (readdirSync(src, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') || f.endsWith('.cts'))
    .some((f) => {
      const t = statSync(join(src, f)).mtimeMs;
      return built(join(ROOT, 'dist', f.replace(/\.ts$/, '.js').replace(/\.cts$/, '.cjs'))) < t || bundle < t;
    });
  if (stale) {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0 || !existsSync(CLI)) throw new Error(`build failed, no ${CLI}:\n${r.stdout}${r.stderr}`);
  }
}

/** The environment for a run of the command: this process's, without the LLM settings (so no test ever reaches a summariser it did not start). */
export function cliEnv(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, DLG_COMPACT_DEBUG: '' };
  for (const v of ['DLG_COMPACT_MODEL', 'DLG_COMPACT_BASE_URL', 'DLG_COMPACT_API_KEY', 'OPENAI_MODEL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY']) delete e[v];
  return e;
}

/**
 * A report line's token figures and file sizes (`5029 → 1795 tokens (64.3% saved), 21 KB → 9 KB`)
 * as `T`: they belong to the rendering, pinned by its own suites, where a suite tests plumbing.
 */
export function tokensT(s: string): string {
  return s.replace(/\d+ → \d+ tokens \((?:<?[\d.]+% (?:saved|more)|none before)\)(?:, \d+(?:\.\d)? (?:B|KB|MB) → (?:\d+(?:\.\d)? (?:B|KB|MB)|\?))?/g, 'T');
}

/** One finished run of the built command. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `node dist/bin/main.js --no-progress ...args` in `cwd` with {@link cliEnv} (60 s at most). */
export function runCli(args: string[], cwd: string, input?: string | Buffer): CliRun {
  const r = spawnSync(process.execPath, [CLI, '--no-progress', ...args], {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: cliEnv(),
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Make folder `d` (and its parents) holding `files` (relative names; folders on the way are made). */
export function writeTree(d: string, files: Record<string, string | Uint8Array>): string {
  mkdirSync(d, { recursive: true });
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(dirname(join(d, name)), { recursive: true });
    writeFileSync(join(d, name), body);
  }
  return d;
}

/**
 * Scratch folders for a suite of the built command: registers a `beforeAll` that builds dist/
 * when stale and makes a temporary root (named after `prefix`), and an `afterAll` that removes
 * it. Returns a maker of fresh folders under that root, each holding `files` (see {@link writeTree}).
 */
export function scratchFolders(prefix: string): (files?: Record<string, string | Uint8Array>) => string {
  let root = '';
  let n = 0;
  beforeAll(() => {
    ensureBuilt();
    root = mkdtempSync(join(tmpdir(), prefix));
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return (files = {}) => writeTree(join(root, `d${n++}`), files);
}

/**
 * {@link scratchFolders} whose folders each hold a `.git` folder, so that the command looks for
 * settings files no higher than the folder (a repository's root).
 */
export function repoFolders(prefix: string): (files?: Record<string, string | Uint8Array>) => string {
  const folder = scratchFolders(prefix);
  return (files = {}) => {
    const d = folder(files);
    mkdirSync(join(d, '.git'));
    return d;
  };
}

/** {@link runCli} with every token count of both streams written as `T` ({@link tokensT}). */
export function cliT(args: string[], cwd: string): CliRun {
  const r = runCli(args, cwd);
  return { code: r.code, stdout: tokensT(r.stdout), stderr: tokensT(r.stderr) };
}
