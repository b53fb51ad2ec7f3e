/**
 * From arguments to jobs: expand globs and directories, read standard input once, skip this
 * tool's own outputs and files reached twice, choose each output, and refuse to write over an
 * input of the same run.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { UsageError } from './errors.js';
import type { CliIO } from './io.js';
import type { FileFailure, FileJob } from './job.js';
import type { CliOptions } from './options.js';

/** One input of the run after expansion: a file to read, stdin, or an argument that failed. */
type Input = { kind: 'file'; path: string; abs: string; literal: boolean } | { kind: 'stdin' } | { kind: 'error'; path: string; error: string };

const CHECKPOINTS = /(^|[\\/])\.ipynb_checkpoints[\\/]/;

/**
 * Expand the arguments: `-` is standard input; an existing file is taken literally (so names
 * with glob characters work); a directory means every `*.ipynb` below it; anything else with
 * glob syntax is expanded with tinyglobby (sorted); the rest is kept and fails when read.
 */
async function expandInputs(args: readonly string[], cwd: string): Promise<Input[]> {
  const out: Input[] = [];
  for (const arg of args) {
    if (arg === '-') {
      out.push({ kind: 'stdin' });
      continue;
    }
    const abs = resolve(cwd, arg);
    const st = await stat(abs).catch(() => null);
    if (st?.isFile()) {
      out.push({ kind: 'file', path: arg, abs, literal: true });
      continue;
    }
    let matches: string[];
    if (st?.isDirectory()) {
      // Symlinked folders are not followed: a link back up the tree would repeat every file.
      matches = (await glob('**/*.ipynb', { cwd: abs, ignore: ['**/.ipynb_checkpoints/**'], followSymbolicLinks: false })).map((m) => join(arg, m));
    } else if (isDynamicPattern(arg)) {
      matches = await glob(arg, { cwd, absolute: isAbsolute(arg), expandDirectories: false });
      matches = matches.filter((m) => !CHECKPOINTS.test(m));
    } else {
      out.push({ kind: 'file', path: arg, abs, literal: true });
      continue;
    }
    if (matches.length === 0) {
      out.push({ kind: 'error', path: arg, error: st ? `${arg}: no .ipynb files in this directory` : `${arg}: no files match this pattern` });
      continue;
    }
    matches.sort();
    for (const m of matches) out.push({ kind: 'file', path: m, abs: resolve(cwd, m), literal: false });
  }
  return out;
}

/** Default output of an input: `<stem>-comp.ipynb` (or `.md`) in the input's directory. */
function defaultOutput(path: string, to: 'ipynb' | 'md'): string {
  const base = basename(path);
  const ext = extname(base);
  const stem = ext === '' ? base : base.slice(0, -ext.length);
  return join(dirname(path), `${stem}-comp.${to}`);
}

/** True when both paths name the same file (same path, or same device and inode). */
async function sameFile(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [sa, sb] = await Promise.all([stat(a).catch(() => null), stat(b).catch(() => null)]);
  return sa !== null && sb !== null && sa.dev === sb.dev && sa.ino === sb.ino;
}

export /** Build the per-file jobs; failures found while planning come back as {@link FileFailure}s. */
async function planJobs(args: readonly string[], opts: CliOptions, io: CliIO): Promise<(FileJob | FileFailure)[]> {
  if (args.filter((a) => a === '-').length > 1) throw new UsageError('standard input (-) can be read only once');
  if (opts.inPlace && args.includes('-')) throw new UsageError('--in-place cannot rewrite standard input');
  const inputs = await expandInputs(args, io.cwd);

  // A glob or directory match that is another input's default output (x-comp.ipynb next to
  // x.ipynb) is this tool's product, not a dialog to compact again: skip it.
  const produced = new Set<string>();
  if (opts.output === undefined) {
    for (const i of inputs) if (i.kind === 'file') produced.add(resolve(io.cwd, defaultOutput(i.path, opts.to)));
  }
  const seen = new Set<string>();
  const kept: Input[] = [];
  for (const i of inputs) {
    if (i.kind === 'file') {
      // The same file reached twice (named twice, or through a symlinked folder) runs once.
      const real = await realOrSelf(i.abs);
      if (seen.has(real) || (!i.literal && produced.has(i.abs))) continue;
      seen.add(real);
    }
    kept.push(i);
  }
  if (opts.output !== undefined && kept.length !== 1) {
    throw new UsageError(`--output needs exactly one input, got ${kept.length}${args.length === 1 ? ` (from '${args[0]}')` : ''}`);
  }
  let stdinBytes: Uint8Array | undefined;
  if (kept.some((i) => i.kind === 'stdin')) stdinBytes = await io.readStdin();
  // Real paths of the inputs: no job may write over another input of the same run.
  const inputPaths = new Set<string>();
  for (const i of kept) if (i.kind === 'file') inputPaths.add(await realOrSelf(i.abs));

  const jobs: (FileJob | FileFailure)[] = [];
  for (const [index, i] of kept.entries()) {
    if (i.kind === 'error') {
      jobs.push({ index, path: i.path, error: i.error });
      continue;
    }
    const stdin = i.kind === 'stdin';
    const path = stdin ? '-' : i.path;
    let output: string;
    if (opts.output !== undefined) output = opts.output;
    else if (opts.inPlace) output = path;
    else output = stdin ? '-' : defaultOutput(path, opts.to);
    const target = output === '-' ? null : resolve(io.cwd, output);
    if (opts.output !== undefined && !stdin && target !== null && (await sameFile(target, i.abs))) {
      throw new UsageError(`refusing to overwrite the input ${path} (use --in-place to rewrite it)`);
    }
    if (target !== null && !opts.inPlace && inputPaths.has(await realOrSelf(target))) {
      jobs.push({
        index,
        path,
        error: `${path}: its output ${output} is also an input of this run; refusing to overwrite an input (rename it, or choose another output with -o)`,
      });
      continue;
    }
    jobs.push({
      index,
      path,
      output,
      target,
      source: stdin ? null : i.abs,
      bytes: stdin ? stdinBytes : undefined,
      name: stdin ? '<stdin>' : path,
      mode: opts.mode,
      // Flat output to standard output is Markdown unless --to asked for a notebook.
      to: target === null && !opts.toExplicit ? 'md' : opts.to,
      check: opts.check,
      policy: opts.policy,
      strategy: opts.strategy,
      ...(opts.summary ? { summary: opts.summary } : {}),
      ...(opts.micro ? { micro: opts.micro } : {}),
    });
  }
  return jobs;
}

/** The real path of `p` (symlinks resolved), or `p` itself when it does not exist. */
async function realOrSelf(p: string): Promise<string> {
  return realpath(p).catch(() => p);
}
