#!/usr/bin/env node
/**
 * The `dlg-compact` command: compact dialogs (Jupyter notebooks used as LLM conversations)
 * into token-bounded forms, file by file, following the conventions of nbstripout, jupytext
 * and nbQA (outputs beside inputs, `-` for the standard streams, `--check`, `--in-place`).
 *
 * - Default (`--mode flat`): `<stem>-comp.ipynb` beside each input, a valid notebook whose one
 *   raw cell holds the flat document (`dlg2compact`, SPEC §8); `--to md` writes the document
 *   as Markdown (`<stem>-comp.md`) instead.
 * - `--mode dialog`: the in-place compaction of the dialog (`Dialog.compact`, SPEC §8), a
 *   runnable notebook with every cell id kept; `--in-place` rewrites the input atomically.
 *
 * Exit status: 0 all done (with `--check`: nothing would be written), 1 some file failed (with
 * `--check`: also when some file would be written), 2 usage error.
 *
 * The module exports {@link main} (the whole command, testable in-process) and
 * {@link processFile} (one file's job, also run inside worker threads for `--jobs N`). When
 * this file is the program being run (the `bin` entry), it calls `main` on `process.argv`.
 * Unlike the core modules it uses `node:` APIs freely: it is the Node front end.
 */
import { realpathSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Command, CommanderError, InvalidArgumentError as OptionValueError, Option } from 'commander';
import { glob, isDynamicPattern } from 'tinyglobby';
import writeFileAtomic from 'write-file-atomic';
import cliProgress from 'cli-progress';
import { DlgError } from './errors.js';
import { dumpsIpynb, readsIpynbBytes } from './notebook.js';
import { compactDialog, flatNotebook, measureDialog, measureFlat, type ClassTokens } from './compact.js';
import type { Policy } from './dsl.js';

/** A command-line mistake (bad option value, conflicting options): exit status 2. */
export class UsageError extends DlgError {}

/** A file the command could not read, find or write; the message names the file. */
export class CliFileError extends DlgError {}

/** Output stream the command writes to (a subset of `NodeJS.WriteStream`). */
export interface CliStream {
  write(chunk: string): unknown;
  /** True when the stream is a terminal: enables the progress bar (on stderr). */
  isTTY?: boolean;
}

/** The outside world of {@link main}; every field defaults to the real process's. */
export interface CliIO {
  stdout: CliStream;
  stderr: CliStream;
  /** Reads standard input to its end, as bytes (used for the input `-`). */
  readStdin: () => Promise<Uint8Array>;
  /** Directory relative paths, globs and outputs are resolved against. */
  cwd: string;
}

/** Options of one run, after parsing and validation. */
export interface CliOptions {
  mode: 'flat' | 'dialog';
  to: 'ipynb' | 'md';
  inPlace: boolean;
  output?: string;
  check: boolean;
  json: boolean;
  jobs: number;
  progress: boolean;
  policy: Partial<Policy>;
}

/** One file's job: everything {@link processFile} needs (structured-cloneable for workers). */
export interface FileJob {
  /** Position in the run; reports are printed in this order. */
  index: number;
  /** The input as the user named it (`-` for standard input). */
  path: string;
  /** Absolute path to read, or `null` when `bytes` holds the input (standard input). */
  source: string | null;
  bytes?: Uint8Array;
  /** Name used in error messages (`<stdin>` for standard input). */
  name: string;
  /** The output as shown to the user (`-` for standard output). */
  output: string;
  /** Absolute path to write, or `null` for standard output. */
  target: string | null;
  mode: 'flat' | 'dialog';
  to: 'ipynb' | 'md';
  check: boolean;
  policy: Partial<Policy>;
}

/**
 * What happened to the output: `written`, `unchanged` (identical bytes already on disk, not
 * rewritten), `would write` (`--check`: missing or different on disk), `printed` (sent to
 * standard output), `would print` (`--check` with standard output).
 */
export type FileStatus = 'written' | 'unchanged' | 'would write' | 'printed' | 'would print';

/** A file processed successfully. Token counts are o200k_base tokens. */
export interface FileReport {
  index: number;
  path: string;
  output: string;
  status: FileStatus;
  messages: number;
  prompts: number;
  toolCalls: number;
  /** Tokens of the input dialog by class (`measureDialog`). */
  before: ClassTokens;
  /** Tokens of the output: the flat document's (`measureFlat`) or the compacted dialog's. */
  after: ClassTokens;
  /** The document for standard output (status `printed` only). */
  text?: string;
}

/** A file that failed; `error` is a one-line message naming the file (and cell when known). */
export interface FileFailure {
  index: number;
  path: string;
  error: string;
}

/** The outcome of {@link processFile}: a report, or a failure (told apart by `'error' in r`). */
export type FileResult = FileReport | FileFailure;

const WORKER_FLAG = 'dlgCompactCliWorker';

/** The package's version, read from package.json next to `src/` or `dist/`. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const EXAMPLES = `
Outputs go beside each input as <stem>-comp.ipynb (or <stem>-comp.md with --to md); the input
is never written except with --mode dialog --in-place. An output whose bytes would not change
is left alone and reported "unchanged". Quote globs to let dlg-compact expand them; a directory
stands for every *.ipynb below it (checkpoints excluded).

Examples:
  dlg-compact notebooks/demo.ipynb                 # flat document as notebooks/demo-comp.ipynb
  dlg-compact --to md notebooks/demo.ipynb         # ... as Markdown, notebooks/demo-comp.md
  dlg-compact --mode dialog notebooks/demo.ipynb   # runnable compacted copy, ids kept
  dlg-compact --mode dialog --in-place 'nbs/**/*.ipynb' --jobs 2
  dlg-compact --asst-toks 300 --result-toks 80 demo.ipynb -o - | less
  cat demo.ipynb | dlg-compact - > demo.md         # flat Markdown from stdin to stdout
  dlg-compact --check --json nbs/                  # what would change, one JSON record per file

Exit status: 0 all done; 1 some file failed (and with --check: some output would be written);
2 usage error. With --check nothing is written; standard-output targets never count as changes.
Reports go to standard output, or to standard error when a document is written to standard output.`;

/** Parse a non-negative integer option value (commander calls it; throws its usage error). */
function nonNegInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new OptionValueError('expected a non-negative integer');
  return n;
}

/** Parse a positive integer option value. */
function posInt(value: string): number {
  const n = nonNegInt(value);
  if (n < 1) throw new OptionValueError('expected a positive integer');
  return n;
}

function buildProgram(io: CliIO, onError: (msg: string) => void): Command {
  return new Command('dlg-compact')
    .description('Compact LLM dialogs kept as Jupyter notebooks into token-bounded documents.')
    .argument('<inputs...>', 'notebooks (.ipynb), quoted globs, directories, or - for standard input')
    .addOption(new Option('--mode <mode>', 'flat: one raw cell holding the flat document; dialog: compact prompts in a runnable copy')
      .choices(['flat', 'dialog']).default('flat'))
    .addOption(new Option('--to <format>', 'flat mode output format (default: ipynb, or md when -o ends in .md)')
      .choices(['ipynb', 'md']))
    .option('-o, --output <path>', 'output file for a single input; - for standard output')
    .option('-i, --in-place', 'with --mode dialog: overwrite each input atomically')
    .option('--user-toks <n>', 'token budget of prompts, notes and raw cells (default 2000)', nonNegInt)
    .option('--asst-toks <n>', 'token budget of each reply text (default 150)', nonNegInt)
    .option('--call-toks <n>', 'token budget of each tool call and code cell source (default 60)', nonNegInt)
    .option('--result-toks <n>', 'token budget of each tool result and code output (default 35)', nonNegInt)
    .option('--check', 'write nothing; report what would change; exit 1 if some output would be written')
    .option('--json', 'one JSON record per file instead of the text report')
    .option('-j, --jobs <n>', 'process files in N worker threads (at most one per CPU)', posInt, 1)
    .option('--no-progress', 'no progress bar (shown on standard error when it is a terminal)')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .addHelpText('after', EXAMPLES)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
      outputError: (s) => onError(s),
    });
}

/** Turn commander's option values into {@link CliOptions}, checking the combinations. */
function toOptions(o: Record<string, unknown>, toExplicit: boolean): CliOptions {
  const policy: Partial<Policy> = {};
  if (o.userToks !== undefined) policy.userToks = o.userToks as number;
  if (o.asstToks !== undefined) policy.asstToks = o.asstToks as number;
  if (o.callToks !== undefined) policy.callToks = o.callToks as number;
  if (o.resultToks !== undefined) policy.resultToks = o.resultToks as number;
  const mode = o.mode as 'flat' | 'dialog';
  const output = o.output as string | undefined;
  let to = (o.to as 'ipynb' | 'md' | undefined) ?? 'ipynb';
  if (!toExplicit && mode === 'flat' && output !== undefined && extname(output).toLowerCase() === '.md') to = 'md';
  const inPlace = o.inPlace === true;
  if (inPlace && mode !== 'dialog') throw new UsageError('--in-place needs --mode dialog (the flat forms are new files)');
  if (inPlace && output !== undefined) throw new UsageError('--in-place and --output are exclusive');
  if (mode === 'dialog' && to === 'md') throw new UsageError('--to md makes a flat document; it cannot be combined with --mode dialog');
  return {
    mode, to, inPlace, output, policy,
    check: o.check === true,
    json: o.json === true,
    jobs: o.jobs as number,
    progress: o.progress !== false,
  };
}

/** One input of the run after expansion: a file to read, stdin, or an argument that failed. */
type Input =
  | { kind: 'file'; path: string; abs: string; literal: boolean }
  | { kind: 'stdin' }
  | { kind: 'error'; path: string; error: string };

const CHECKPOINTS = /(^|[\\/])\.ipynb_checkpoints[\\/]/;

/**
 * Expand the arguments: `-` is standard input; an existing file is taken literally (so names
 * with glob characters work); a directory means every `*.ipynb` below it; anything else with
 * glob syntax is expanded with tinyglobby (sorted); the rest is kept and fails when read.
 */
async function expandInputs(args: readonly string[], cwd: string): Promise<Input[]> {
  const out: Input[] = [];
  for (const arg of args) {
    if (arg === '-') { out.push({ kind: 'stdin' }); continue; }
    const abs = resolve(cwd, arg);
    const st = await stat(abs).catch(() => null);
    if (st?.isFile()) { out.push({ kind: 'file', path: arg, abs, literal: true }); continue; }
    let matches: string[];
    if (st?.isDirectory()) {
      matches = (await glob('**/*.ipynb', { cwd: abs, ignore: ['**/.ipynb_checkpoints/**'] })).map((m) => join(arg, m));
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

/** Build the per-file jobs; failures found while planning come back as {@link FileFailure}s. */
async function planJobs(args: readonly string[], opts: CliOptions, io: CliIO): Promise<(FileJob | FileFailure)[]> {
  if (args.filter((a) => a === '-').length > 1) throw new UsageError('standard input (-) can be read only once');
  if (opts.inPlace && args.includes('-')) throw new UsageError('--in-place cannot rewrite standard input');
  const inputs = await expandInputs(args, io.cwd);

  // A glob or directory match that is another input's default output (x-comp.ipynb next to
  // x.ipynb) is this tool's product, not a dialog to compact again: skip it.
  const produced = new Set<string>();
  if (!opts.inPlace && opts.output === undefined) {
    for (const i of inputs) if (i.kind === 'file') produced.add(resolve(io.cwd, defaultOutput(i.path, opts.to)));
  }
  const seen = new Set<string>();
  const kept: Input[] = [];
  for (const i of inputs) {
    if (i.kind === 'file') {
      if (seen.has(i.abs) || (!i.literal && produced.has(i.abs))) continue;
      seen.add(i.abs);
    }
    kept.push(i);
  }
  if (opts.output !== undefined && kept.length !== 1) {
    throw new UsageError(`--output needs exactly one input, got ${kept.length}${args.length === 1 ? ` (from '${args[0]}')` : ''}`);
  }
  let stdinBytes: Uint8Array | undefined;
  if (kept.some((i) => i.kind === 'stdin')) stdinBytes = await io.readStdin();

  const jobs: (FileJob | FileFailure)[] = [];
  for (const [index, i] of kept.entries()) {
    if (i.kind === 'error') { jobs.push({ index, path: i.path, error: i.error }); continue; }
    const stdin = i.kind === 'stdin';
    const path = stdin ? '-' : i.path;
    let output: string;
    if (opts.output !== undefined) output = opts.output;
    else if (opts.inPlace) output = path;
    else output = stdin ? '-' : defaultOutput(path, opts.to);
    const target = output === '-' ? null : resolve(io.cwd, output);
    if (opts.output !== undefined && !stdin && target !== null && (await sameFile(target, i.abs))) {
      throw new UsageError(`refusing to overwrite the input ${path} (use --mode dialog --in-place to rewrite it)`);
    }
    jobs.push({
      index, path, output, target,
      source: stdin ? null : i.abs,
      bytes: stdin ? stdinBytes : undefined,
      name: stdin ? '<stdin>' : path,
      mode: opts.mode, to: opts.to, check: opts.check, policy: opts.policy,
    });
  }
  return jobs;
}

function isFailure(r: FileResult | FileJob): r is FileFailure {
  return 'error' in r;
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a component of the path is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EEXIST: 'file exists',
  ENAMETOOLONG: 'file name too long',
};

/** `what path: reason` for a file-system error, without Node's syscall noise. */
function fsError(what: string, path: string, err: unknown): CliFileError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const reason = (code && FS_REASONS[code]) ?? (err instanceof Error ? err.message : String(err));
  return new CliFileError(`${path}: cannot ${what}: ${reason}`, { cause: err });
}

/** The bytes on disk at `target`, or `null` when there is no such file yet. */
async function existingBytes(target: string, output: string): Promise<Uint8Array | null> {
  try {
    return await readFile(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw fsError('read the existing output', output, err);
  }
}

/**
 * Process one file: read and parse the notebook (invalid UTF-8 and malformed notebooks throw
 * `NotebookError` naming file and cell), compact it, compare with what is on disk, and write
 * atomically unless identical or `job.check`. Never throws: errors come back as a
 * {@link FileFailure} whose message names the file; unexpected (non-{@link DlgError}) errors
 * are prefixed "unexpected error". Token counts: o200k_base tokens.
 */
export async function processFile(job: FileJob): Promise<FileResult> {
  try {
    let bytes: Uint8Array;
    if (job.source === null) bytes = job.bytes ?? new Uint8Array();
    else {
      try {
        bytes = await readFile(job.source);
      } catch (err) {
        throw fsError('read', job.path, err);
      }
    }
    const dialog = readsIpynbBytes(bytes, job.name);
    const stats = measureDialog(dialog);
    let after: ClassTokens;
    let text: string;
    if (job.mode === 'dialog') {
      // The dialog was parsed for this job alone and its stats are taken: compacting it in
      // place (rather than a clone) changes nothing the caller can see.
      const compacted = compactDialog(dialog, job.policy);
      after = measureDialog(compacted).tokens;
      text = dumpsIpynb(compacted);
    } else {
      const flat = measureFlat(dialog, job.policy);
      after = flat.tokens;
      if (job.to === 'md' || job.target === null) text = flat.text === '' ? '' : flat.text + '\n';
      else {
        text = dumpsIpynb(flatNotebook(dialog, job.policy, flat.text));
      }
    }
    const base = {
      index: job.index, path: job.path, output: job.output,
      messages: stats.messages, prompts: stats.prompts, toolCalls: stats.toolCalls,
      before: stats.tokens, after,
    };
    if (job.target === null) {
      return job.check ? { ...base, status: 'would print' } : { ...base, status: 'printed', text };
    }
    const payload = Buffer.from(text, 'utf8');
    const onDisk = job.target === job.source ? bytes : await existingBytes(job.target, job.output);
    if (onDisk !== null && payload.equals(onDisk)) return { ...base, status: 'unchanged' };
    if (job.check) return { ...base, status: 'would write' };
    try {
      await writeFileAtomic(job.target, payload);
    } catch (err) {
      throw fsError('write', job.output, err);
    }
    return { ...base, status: 'written' };
  } catch (err) {
    if (err instanceof DlgError) return { index: job.index, path: job.path, error: err.message };
    const msg = err instanceof Error ? err.message : String(err);
    if (process.env.DLG_COMPACT_DEBUG && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    return { index: job.index, path: job.path, error: `${job.name}: unexpected error: ${msg}` };
  }
}

/**
 * Run jobs in `n` worker threads (this same module, flagged by `workerData`; no more threads
 * than files or than the machine's cores, since each loads the tokenizer); results arrive
 * through `onResult` in completion order. A worker that dies fails its current file; jobs
 * left when every worker has died run in this thread.
 */
async function runInWorkers(jobs: FileJob[], n: number, onResult: (r: FileResult) => void): Promise<void> {
  let next = 0;
  const lane = () =>
    new Promise<void>((done) => {
      const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { [WORKER_FLAG]: true } });
      let current: FileJob | undefined;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        void worker.terminate().then(() => done(), () => done());
      };
      const feed = () => {
        if (next >= jobs.length) { current = undefined; finish(); return; }
        current = jobs[next++];
        worker.postMessage(current);
      };
      const fail = (why: string) => {
        if (current) onResult({ index: current.index, path: current.path, error: `${current.name}: worker failed: ${why}` });
        current = undefined;
        finish();
      };
      worker.on('message', (r: FileResult) => { current = undefined; onResult(r); feed(); });
      worker.on('error', (err) => fail(err.message));
      worker.on('exit', (code) => fail(`exited with code ${code}`));
      feed();
    });
  await Promise.all(Array.from({ length: Math.min(n, jobs.length, availableParallelism()) }, lane));
  while (next < jobs.length) onResult(await processFile(jobs[next++]));
}

function pct(before: number, after: number): string {
  if (before === 0) return '0.0%';
  const p = (((before - after) / before) * 100).toFixed(1);
  return `${p === '-0.0' ? '0.0' : p}%`;
}

/** The text report line of one file. */
export function reportLine(r: FileReport): string {
  const out = r.output === '-' ? '<stdout>' : r.output;
  return `${out}: ${r.status}, ${r.messages} messages, ${r.before.total} → ${r.after.total} tokens (${pct(r.before.total, r.after.total)} saved)`;
}

/**
 * The `--json` record of one file. Fields, in this order: `path` (the input as named, `-` for
 * stdin), `output` (`-` for stdout), `status` ({@link FileStatus}), `messages`, `prompts`,
 * `toolCalls`, `tokens: {before, after}`, each `{user, assistant, calls, results, code, total}`
 * in o200k_base tokens. A failed file gives `{path, error}`.
 */
export function jsonRecord(r: FileResult): Record<string, unknown> {
  if (isFailure(r)) return { path: r.path, error: r.error };
  return {
    path: r.path, output: r.output, status: r.status,
    messages: r.messages, prompts: r.prompts, toolCalls: r.toolCalls,
    tokens: { before: r.before, after: r.after },
  };
}

function defaultIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    },
  };
}

/**
 * Run the command. `argv` holds the arguments after the program name (`process.argv.slice(2)`);
 * `io` replaces the process's streams, standard input and working directory (for tests).
 * Returns the exit status: 0 done, 1 some file failed (or, with `--check`, some output would be
 * written), 2 usage error. Never throws; never prints a stack trace (unless the environment
 * variable DLG_COMPACT_DEBUG is set and the error was unexpected).
 */
export async function main(argv: readonly string[], io: Partial<CliIO> = {}): Promise<number> {
  const env: CliIO = { ...defaultIO(), ...io };
  const usage = (msg: string) => {
    env.stderr.write(`dlg-compact: error: ${msg}\nTry 'dlg-compact --help' for more information.\n`);
    return 2;
  };
  let commanderMsg = '';
  const program = buildProgram(env, (s) => { commanderMsg = s; });
  try {
    program.parse([...argv], { from: 'user' });
    const opts = toOptions(program.opts(), program.getOptionValueSource('to') === 'cli');
    return await run(program.args, opts, env);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0; // --help, --version
      return usage((commanderMsg || err.message).trim().replace(/^error: /, '').replace(/\s*\n\s*/g, ' '));
    }
    if (err instanceof UsageError) return usage(err.message);
    if (err instanceof DlgError) {
      env.stderr.write(`dlg-compact: ${err.message}\n`);
      return 1;
    }
    const msg = err instanceof Error ? err.message : String(err);
    if (process.env.DLG_COMPACT_DEBUG && err instanceof Error && err.stack) env.stderr.write(err.stack + '\n');
    env.stderr.write(`dlg-compact: unexpected error: ${msg}\n`);
    return 1;
  }
}

async function run(args: readonly string[], opts: CliOptions, io: CliIO): Promise<number> {
  const planned = await planJobs(args, opts, io);
  const jobs = planned.filter((j): j is FileJob => !isFailure(j));
  const results: (FileResult | undefined)[] = new Array(planned.length);
  for (const p of planned) if (isFailure(p)) results[p.index] = p;

  // Reports go to stdout unless a document does; then stdout carries only the document.
  const docToStdout = !opts.check && jobs.some((j) => j.target === null);
  const reportStream = docToStdout ? io.stderr : io.stdout;

  const showBar = opts.progress && io.stderr.isTTY === true && planned.length > 1;
  const multibar = showBar
    ? new cliProgress.MultiBar(
        { stream: io.stderr as NodeJS.WritableStream, format: 'dlg-compact {bar} {value}/{total} files', hideCursor: true, clearOnComplete: true, autopadding: true },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const bar = multibar?.create(planned.length, 0) ?? null;
  // While the bar is drawn, lines for the terminal go through it so they don't tear it.
  const emit = (stream: CliStream, line: string) => {
    if (multibar && stream.isTTY) multibar.log(line + '\n');
    else stream.write(line + '\n');
  };

  let failed = 0;
  let pending = 0;
  let printed = 0;
  const flush = () => {
    while (printed < results.length && results[printed] !== undefined) {
      const r = results[printed++]!;
      if (isFailure(r)) {
        failed++;
        emit(io.stderr, `dlg-compact: ${r.error}`);
        if (opts.json) emit(reportStream, JSON.stringify(jsonRecord(r)));
        continue;
      }
      if (r.status === 'would write') pending++;
      if (r.text !== undefined) io.stdout.write(r.text);
      emit(reportStream, opts.json ? JSON.stringify(jsonRecord(r)) : reportLine(r));
    }
  };
  const onResult = (r: FileResult) => {
    results[r.index] = r;
    bar?.increment();
    flush();
  };
  for (const p of planned) if (isFailure(p)) bar?.increment();
  flush();

  try {
    if (opts.jobs > 1 && jobs.length > 1) await runInWorkers(jobs, opts.jobs, onResult);
    else for (const j of jobs) onResult(await processFile(j));
  } finally {
    if (multibar) {
      multibar.update(); // flush lines logged since the last redraw before the bar goes
      multibar.stop();
    }
  }
  return failed > 0 || pending > 0 ? 1 : 0;
}

/** True when this module is the program node was asked to run (not imported, not a worker). */
function invokedAsProgram(): boolean {
  if (!isMainThread || !process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (!isMainThread && (workerData as Record<string, unknown> | null)?.[WORKER_FLAG] === true) {
  parentPort!.on('message', (job: FileJob) => {
    void processFile(job).then((r) => parentPort!.postMessage(r));
  });
} else if (invokedAsProgram()) {
  // A closed pipe (`dlg-compact ... -o - | head`) ends the run quietly; other write errors on
  // standard output (a full disk) are reported like any file error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.stderr.write(`dlg-compact: ${fsError('write', '<stdout>', err).message}\n`);
    process.exit(1);
  });
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
