/**
 * From arguments to jobs: expand globs and directories, read standard input once, skip this
 * tool's own outputs and files reached twice, choose each output (beside the input, under
 * `--output-dir`, or `-o`), and refuse to write over an input of the same run or to write
 * one output for two inputs.
 */
import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { describeFileError } from '../notebook/file-errors.js';
import { UsageError } from './errors.js';
import type { CliIO } from './io.js';
import type { FileFailure, FileJob, FileSkip } from './job.js';
import type { CliOptions } from './options.js';
import { OWN_OUTPUT_NOTE, hasOutputName, isOwnOutput } from './own-output.js';
import { printable } from './report.js';

/**
 * One input of the run after expansion: a file to read (`rel`: its path below the directory
 * or glob base it came from, for `--output-dir`), stdin, or an argument that failed.
 */
type Input = { kind: 'file'; path: string; abs: string; rel: string; literal: boolean } | { kind: 'stdin' } | { kind: 'error'; path: string; error: string };

const CHECKPOINTS = /(^|[\\/])\.ipynb_checkpoints[\\/]/;

/** The folder part of a glob before its first dynamic segment (`nbs/**\/*.ipynb` gives `nbs`). */
function globBase(pattern: string): string {
  const parts = pattern.split(/[\\/]/);
  const fixed: string[] = [];
  for (const p of parts.slice(0, -1)) {
    if (isDynamicPattern(p)) break;
    fixed.push(p);
  }
  return fixed.join('/');
}

/**
 * Expand the arguments: `-` is standard input; an existing file is taken literally (so names
 * with glob characters work); a directory means every `*.ipynb` below it; anything else with
 * glob syntax is expanded with tinyglobby (sorted); a missing file fails with its name.
 */
export async function expandInputs(args: readonly string[], cwd: string): Promise<Input[]> {
  const out: Input[] = [];
  for (const arg of args) {
    if (arg === '-') {
      out.push({ kind: 'stdin' });
      continue;
    }
    const abs = resolve(cwd, arg);
    let statError: unknown;
    const st = await stat(abs).catch((e: unknown) => {
      statError = e;
      return null;
    });
    if (st !== null && (st.isCharacterDevice() || st.isBlockDevice())) {
      // /dev/zero or a disk would be read without end: only files, pipes and - are read.
      out.push({ kind: 'error', path: arg, error: `${arg}: is a device, not a notebook (give - to read standard input)` });
      continue;
    }
    if (st !== null && !st.isDirectory()) {
      out.push({ kind: 'file', path: arg, abs, rel: basename(arg), literal: true });
      continue;
    }
    let matches: string[];
    let base: string;
    if (st?.isDirectory()) {
      // Symlinked folders are not followed: a link back up the tree would repeat every file.
      matches = (await glob('**/*.ipynb', { cwd: abs, ignore: ['**/.ipynb_checkpoints/**'], followSymbolicLinks: false })).map((m) => join(arg, m));
      base = arg;
    } else if (isDynamicPattern(arg)) {
      matches = await glob(arg, { cwd, absolute: isAbsolute(arg), expandDirectories: false });
      matches = matches.filter((m) => !CHECKPOINTS.test(m));
      base = globBase(arg);
    } else {
      out.push({ kind: 'error', path: arg, error: `${arg}: cannot read: ${describeFileError(statError)}` });
      continue;
    }
    if (matches.length === 0) {
      out.push({ kind: 'error', path: arg, error: st ? `${arg}: no .ipynb files in this directory` : `${arg}: no files match this pattern` });
      continue;
    }
    matches.sort();
    for (const m of matches) {
      const mAbs = resolve(cwd, m);
      out.push({ kind: 'file', path: m, abs: mAbs, rel: relative(resolve(cwd, base), mAbs), literal: false });
    }
  }
  return out;
}

/** Default output name of an input: `<stem>-comp.ipynb` (or `.md`). */
function outputName(path: string, to: 'ipynb' | 'md'): string {
  const base = basename(path);
  const ext = extname(base);
  return `${ext === '' ? base : base.slice(0, -ext.length)}-comp.${to}`;
}

/** Default output of an input: beside it, or under `outputDir` at its relative place `rel`. */
function defaultOutput(path: string, rel: string, to: 'ipynb' | 'md', outputDir: string | undefined): string {
  if (outputDir === undefined) return join(dirname(path), outputName(path, to));
  return join(outputDir, dirname(rel), outputName(path, to));
}

/** True when both paths name the same file (same path, or same device and inode). */
async function sameFile(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [sa, sb] = await Promise.all([stat(a).catch(() => null), stat(b).catch(() => null)]);
  return sa !== null && sb !== null && sa.dev === sb.dev && sa.ino === sb.ino;
}

/** The settings of one input: the run's options merged with its folder's config file. */
export type SettingsFor = (dir: string) => Promise<{ opts: CliOptions; config?: string }>;

/** What {@link planJobs} found: jobs, failures and skipped inputs, in the order of the inputs. */
export type Planned = FileJob | FileFailure | FileSkip;

/**
 * Build the per-file jobs; failures found while planning come back as {@link FileFailure}s and
 * the command's own outputs given as inputs as {@link FileSkip}s. `settingsFor` gives each
 * input's options (its folder's config file merged in); without it every input uses `opts`.
 * @throws UsageError for impossible combinations (stdin twice, `-o` with several inputs, `-o`
 *   naming the input or a directory).
 */
export async function planJobs(args: readonly string[], opts: CliOptions, io: CliIO, settingsFor?: SettingsFor): Promise<Planned[]> {
  if (args.filter((a) => a === '-').length > 1) throw new UsageError('standard input (-) can be read only once');
  if (opts.inPlace && args.includes('-')) throw new UsageError('--in-place cannot rewrite standard input');
  if (opts.output !== undefined && opts.output !== '-') {
    const st = await stat(resolve(io.cwd, opts.output)).catch(() => null);
    if (st?.isDirectory()) throw new UsageError(`-o ${opts.output} is a directory; to write the outputs into it use --output-dir ${opts.output}`);
  }
  let inputs = await expandInputs(args, io.cwd);
  if (opts.outputDir !== undefined) {
    // What a directory or glob finds inside --output-dir is an earlier run's output.
    const outDir = resolve(io.cwd, opts.outputDir) + sep;
    inputs = inputs.filter((i) => i.kind !== 'file' || i.literal || !i.abs.startsWith(outDir));
  }
  const settings: SettingsFor = settingsFor ?? (async () => ({ opts }));

  // Files named like another input's default output, or like any output (x-comp.ipynb), are
  // looked at: the command's own outputs are skipped, not compacted again.
  const produced = new Set<string>();
  for (const i of inputs) if (i.kind === 'file') produced.add(resolve(dirname(i.abs), outputName(i.path, opts.to)));
  // The run's notebooks by name without extension: where an output elsewhere may have come from.
  const byStem = new Map<string, string[]>();
  for (const i of inputs) {
    if (i.kind !== 'file') continue;
    const stem = /^(.+)\.(?:ipynb|json)$/i.exec(basename(i.abs))?.[1];
    if (stem !== undefined) byStem.set(stem, [...(byStem.get(stem) ?? []), i.abs]);
  }
  // What each real path was kept as: a later mention on the command line makes it named.
  const seen = new Map<string, Input | FileSkip>();
  const kept: (Input | FileSkip)[] = [];
  // Real path of each skipped own output: one that a job of this run writes again is that
  // job's output, reported on its line, not a skipped input as well.
  const skippedAt = new Map<FileSkip, string>();
  for (const i of inputs) {
    if (i.kind === 'file') {
      // The same file reached twice (named twice, or through a symlinked folder) runs once.
      const real = await realOrSelf(i.abs);
      const first = seen.get(real);
      if (first !== undefined) {
        if (opts.verbose) io.stderr.write(printable(`${i.path}: dropped, the same file as ${'path' in first ? first.path : i.path}`) + '\n');
        if (i.literal) {
          if ('skipped' in first) first.named = true;
          else if (first.kind === 'file') first.literal = true;
        }
        continue;
      }
      const stem = /^(.+)-comp\.ipynb$/i.exec(basename(i.abs))?.[1];
      if ((produced.has(i.abs) || hasOutputName(basename(i.abs))) && (await isOwnOutput(i.abs, stem === undefined ? [] : (byStem.get(stem) ?? [])))) {
        const skip: FileSkip = { index: 0, path: i.path, skipped: OWN_OUTPUT_NOTE, named: i.literal };
        skippedAt.set(skip, real);
        seen.set(real, skip);
        kept.push(skip);
        continue;
      }
      seen.set(real, i);
    }
    kept.push(i);
  }
  const real = kept.filter((i) => !('skipped' in i));
  if (opts.output !== undefined && real.length !== 1) {
    throw new UsageError(`${opts.outputFlag ?? '--output'} needs exactly one input, got ${real.length}${args.length === 1 ? ` (from '${args[0]}')` : ''}`);
  }
  let stdinBytes: Uint8Array | undefined;
  if (kept.some((i) => 'kind' in i && i.kind === 'stdin')) stdinBytes = await io.readStdin();
  // Real paths of the inputs: no job may write over another input of the same run.
  const inputPaths = new Set<string>();
  for (const i of kept) if ('kind' in i && i.kind === 'file') inputPaths.add(await realOrSelf(i.abs));
  // Outputs already claimed by an earlier input (real path → that input).
  const claimed = new Map<string, string>();

  const jobs: Planned[] = [];
  for (const [index, i] of kept.entries()) {
    if ('skipped' in i) {
      jobs.push(i);
      continue;
    }
    if (i.kind === 'error') {
      jobs.push({ index, path: i.path, error: i.error });
      continue;
    }
    const stdin = i.kind === 'stdin';
    const path = stdin ? '-' : i.path;
    const { opts: o, config } = await settings(stdin ? io.cwd : dirname(i.abs));
    let output: string;
    const derived = o.output === undefined && !o.inPlace && !stdin;
    if (o.output !== undefined) output = o.output;
    else if (o.inPlace) output = path;
    else output = stdin ? '-' : defaultOutput(path, i.rel, o.to, o.outputDir);
    const target = output === '-' ? null : resolve(io.cwd, output);
    if (o.output !== undefined && !stdin && target !== null && (await sameFile(target, i.abs))) {
      // Advice that works in this mode: --in-place rewrites only dialog-mode and micro copies.
      const advice =
        o.mode === 'dialog' && o.strategy !== 'summary'
          ? 'use --in-place to rewrite it'
          : `leave out -o to write ${defaultOutput(path, i.rel, o.to, undefined)}, or name another output`;
      throw new UsageError(`refusing to overwrite the input ${path} (${advice})`);
    }
    const realTarget = target === null ? null : await realOrSelf(target);
    if (realTarget !== null && !o.inPlace && inputPaths.has(realTarget)) {
      jobs.push({
        index,
        path,
        error: `${path}: its output ${output} is also an input of this run; refusing to overwrite an input (rename it, or choose another output with -o)`,
      });
      continue;
    }
    if (realTarget !== null) {
      const first = claimed.get(realTarget);
      if (first !== undefined) {
        jobs.push({
          index,
          path,
          error: `${path}: its output ${output} is also the output of ${first}; refusing to write one output for two inputs (rename one, or use -o for each)`,
        });
        continue;
      }
      claimed.set(realTarget, path);
    }
    jobs.push({
      index,
      path,
      output,
      target,
      source: stdin ? null : i.abs,
      bytes: stdin ? stdinBytes : undefined,
      name: stdin ? '<stdin>' : path,
      mode: o.mode,
      // Flat output to standard output is Markdown unless --to asked for a notebook.
      to: target === null && !o.toExplicit ? 'md' : o.to,
      check: o.check,
      derived,
      named: stdin || i.literal,
      ...(config !== undefined ? { config } : {}),
      policy: o.policy,
      ...(o.legend === false ? { legend: false } : {}),
      strategy: o.strategy,
      ...(o.summary ? { summary: o.summary } : {}),
      ...(o.micro ? { micro: o.micro } : {}),
      // A text line shows only totals, --quiet no counts (--json records show every class).
      counts: o.json ? 'classes' : o.quiet ? 'none' : 'total',
    });
  }
  const planned = jobs.filter((j) => !('skipped' in j) || !claimed.has(skippedAt.get(j)!));
  for (const [index, j] of planned.entries()) j.index = index;
  return planned;
}

/**
 * The real path of `p` (symlinks resolved); for a path that does not exist (yet), the real
 * path of its nearest folder that does, followed by the rest of `p`, so that two outputs not
 * written yet are one file when a folder link leads both to the same place
 * (`out/a/x-comp.ipynb` and `out/b/x-comp.ipynb` with `out/a -> b`). Asked directly (the
 * system's realpath, as `fs.promises.realpath` asks it in the thread pool): the planner asks it
 * two or three times per input, one after the other, and a round trip through the pool costs
 * more than the call.
 */
async function realOrSelf(p: string): Promise<string> {
  try {
    return realpathSync.native(p);
  } catch {
    const parent = dirname(p);
    return parent === p ? p : join(await realOrSelf(parent), basename(p));
  }
}
