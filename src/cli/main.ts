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
 * - `--strategy summary`: the older cells replaced by one summary note (`summarizeDialog`,
 *   SPEC §9 applied to dialogs), written as a notebook; the summariser is the offline DSL one
 *   (`dslSummarizer`) unless an LLM is asked for (`--llm-url`, `--llm-model`, or the
 *   environment variable `DLG_COMPACT_MODEL`; see {@link CliOptions.summary}).
 * - `--strategy micro`: older tool results inside replies cleared (`microCompactDialog`,
 *   SPEC §9), written as a notebook; `--in-place` allowed.
 *
 * Cells without an id (nbformat < 4.5 notebooks) and a new summary note get ids derived from
 * the SHA-256 of the input's bytes, so the same input always gives the same output bytes and a
 * second run reports "unchanged".
 *
 * Exit status: 0 all done (with `--check`: nothing would be written), 1 some file failed (with
 * `--check`: also when some file would be written), 2 usage error. A summary the dialog does
 * not need or that would not help (refusals `not-needed`, `nothing-to-summarize`,
 * `empty-summary`, `not-shrinking`) is not a failure: nothing is written, status `unchanged`.
 * A summariser that fails (`summarizer-failed`, `invalid-summary`, `dialog-changed`) fails
 * the file.
 *
 * The module exports {@link main} (the whole command, testable in-process) and
 * {@link processFile} (one file's job, also run inside worker threads for `--jobs N`). When
 * this file is the program being run (the `bin` entry), it calls `main` on `process.argv`.
 * Unlike the core modules it uses `node:` APIs freely: it is the Node front end.
 */
import { createHash } from 'node:crypto';
import { realpathSync, readFileSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Command, CommanderError, InvalidArgumentError as OptionValueError, Option } from 'commander';
import { glob, isDynamicPattern } from 'tinyglobby';
import writeFileAtomic from 'write-file-atomic';
import cliProgress from 'cli-progress';
import { DlgError } from '../errors.js';
import { dumpsIpynb, readsIpynbBytes } from '../notebook/ipynb.js';
import { compactDialog, flatNotebook, measureDialog, measureFlat, type ClassTokens } from '../dialog/compact.js';
import type { Policy } from '../dsl/render.js';
import type { Dialog } from '../dialog/dialog.js';
import {
  dslSummarizer, httpDialogSummarizer, planDialogSummary, summarizeDialog,
  type DialogSummarizer, type SummarizeDialogOptions, type SummarizeDialogRefusal,
} from '../dialog/summarize.js';
import { microCompactDialog } from '../dialog/micro.js';

/** A command-line mistake (bad option value, conflicting options): exit status 2. */
export class UsageError extends DlgError {}

/** A file the command could not read, find or write; the message names the file. */
export class CliFileError extends DlgError {}

/** A summary whose summariser failed (or gave an unusable answer); the message names the file. */
export class SummaryFailedError extends DlgError {}

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
  /**
   * Environment the LLM settings are read from (`DLG_COMPACT_MODEL`, `DLG_COMPACT_BASE_URL`,
   * `DLG_COMPACT_API_KEY`, `OPENAI_MODEL`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`); default
   * `process.env`.
   */
  env: Readonly<Record<string, string | undefined>>;
}

/** The compaction strategy: `dsl` (the flat or dialog DSL forms), `summary` or `micro`. */
export type Strategy = 'dsl' | 'summary' | 'micro';

/** Where the HTTP summariser sends its request (resolved from flags and environment). */
export interface LlmSettings {
  /** API root, e.g. `http://127.0.0.1:8080/v1` (requests go to `baseUrl + '/chat/completions'`). */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token when set (from `DLG_COMPACT_API_KEY`, else `OPENAI_API_KEY`). */
  apiKey?: string;
}

/** Settings of `--strategy summary` (plain data: it travels to worker threads). */
export interface SummarySettings {
  /**
   * `--max-tokens`: the context budget in tokens (o200k_base, AI-visible text of the cells);
   * summary happens when the dialog reaches 90% of it. Absent: forced, whatever the size.
   * With an LLM it also caps the summary request (`maxRequestTokens`).
   */
  maxTokens?: number;
  /** `--keep-recent`: cells kept verbatim at the end (default: the planner's). */
  keepRecent?: number;
  /** The HTTP summariser's settings; absent: the offline DSL summariser. */
  llm?: LlmSettings;
}

/** Settings of `--strategy micro`. */
export interface MicroSettings {
  /** `--keep-recent`: newest tool results kept (default 3). */
  keepRecent?: number;
}

/** Options of one run, after parsing and validation. */
export interface CliOptions {
  mode: 'flat' | 'dialog';
  to: 'ipynb' | 'md';
  /** `--to` was given: standard output then gets that form too (by default it gets Markdown). */
  toExplicit?: boolean;
  inPlace: boolean;
  output?: string;
  check: boolean;
  json: boolean;
  jobs: number;
  progress: boolean;
  policy: Partial<Policy>;
  strategy: Strategy;
  /** Set when `strategy` is `summary`. */
  summary?: SummarySettings;
  /** Set when `strategy` is `micro`. */
  micro?: MicroSettings;
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
  strategy: Strategy;
  summary?: SummarySettings;
  micro?: MicroSettings;
}

/**
 * What happened to the output: `written`, `unchanged` (identical bytes already on disk, not
 * rewritten), `would write` (`--check`: missing or different on disk), `printed` (sent to
 * standard output), `would print` (`--check` with standard output).
 */
export type FileStatus = 'written' | 'unchanged' | 'would write' | 'printed' | 'would print';

/** What a summary did or would do (`--strategy summary`). */
export interface SummaryOutcome {
  /** The summariser's label: `dsl` or `http:MODEL`. */
  summarizer: string;
  /** Number of cells replaced (or that would be) by the note. */
  replaced: number;
  /** Their ids, in order. */
  ids: string[];
}

/** What a micro-compaction did or would do (`--strategy micro`). */
export interface MicroOutcome {
  /** The cleared tool results: the prompt cell holding each, and the tool's name. */
  cleared: { messageId: string; tool: string }[];
  /** Replies that would have changed but could not be rewritten safely (left as they were). */
  refused: { messageId: string; reason: string }[];
}

/** A file processed successfully. Token counts are o200k_base tokens. */
export interface FileReport {
  index: number;
  path: string;
  output: string;
  status: FileStatus;
  strategy: Strategy;
  messages: number;
  prompts: number;
  toolCalls: number;
  /** Tokens of the input dialog by class (`measureDialog`). */
  before: ClassTokens;
  /**
   * Tokens of the output: the flat document's (`measureFlat`) or the output dialog's
   * (`measureDialog`); `null` when unknown (`--check` with an LLM summariser, never called).
   */
  after: ClassTokens | null;
  /** Short text for the report line, in parentheses after the status (summary and micro). */
  note?: string;
  /** Why a summary was refused (status `unchanged`, nothing written). */
  reason?: SummarizeDialogRefusal;
  summary?: SummaryOutcome;
  micro?: MicroOutcome;
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
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const EXAMPLES = `
Outputs go beside each input as <stem>-comp.ipynb (or <stem>-comp.md with --to md); the input
is never written except with --in-place (--mode dialog, or --strategy micro). An output whose
bytes would not change is left alone and reported "unchanged". Quote globs to let dlg-compact
expand them; a directory stands for every *.ipynb below it (checkpoints excluded).

Strategies (--strategy): dsl (default) renders the flat document or, with --mode dialog, the
compacted replies; summary replaces the older cells by one summary note (forced, or only when
the dialog reaches 90% of --max-tokens; a summary that is not needed or would not shrink the
dialog writes nothing and is reported "unchanged"); micro replaces older tool results inside
replies by "[Previous: used NAME]". Both write notebooks. The summary is the compact DSL of the
replaced cells (offline) unless --llm-url/--llm-model is given or DLG_COMPACT_MODEL is set:
then an OpenAI-compatible chat endpoint writes it (base URL also from DLG_COMPACT_BASE_URL or
OPENAI_BASE_URL, model also from OPENAI_MODEL, key from DLG_COMPACT_API_KEY or OPENAI_API_KEY;
OPENAI_MODEL alone never sends a dialog anywhere).

Examples:
  dlg-compact notebooks/demo.ipynb                 # flat document as notebooks/demo-comp.ipynb
  dlg-compact --to md notebooks/demo.ipynb         # ... as Markdown, notebooks/demo-comp.md
  dlg-compact --mode dialog notebooks/demo.ipynb   # runnable compacted copy, ids kept
  dlg-compact --mode dialog --in-place 'nbs/**/*.ipynb' --jobs 2
  dlg-compact --asst-toks 300 --result-toks 80 demo.ipynb -o - | less
  cat demo.ipynb | dlg-compact - > demo.md         # flat Markdown from stdin to stdout
  dlg-compact --check --json nbs/                  # what would change, one JSON record per file
  dlg-compact --strategy summary --max-tokens 100000 --keep-recent 6 nbs/
  dlg-compact --strategy micro --in-place --check demo.ipynb   # which tool results would go
  dlg-compact --strategy summary --llm-url http://127.0.0.1:8080/v1 --llm-model qwen demo.ipynb

Exit status: 0 all done; 1 some file failed (and with --check: some output would be written);
2 usage error. A failed summariser fails its file. With --check nothing is written;
standard-output targets never count as changes. Reports go to standard output, or to standard
error when a document is written to standard output.`;

/** Parse a non-negative integer option value (commander calls it; throws its usage error). */
function nonNegInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new OptionValueError('expected a non-negative integer');
  return n;
}

/** Parse a positive integer option value. */
function posInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new OptionValueError('expected a positive integer');
  return n;
}

/**
 * A report or error line safe to print on a terminal: C0 and C1 control characters (which a
 * file name may hold) are shown as `\xHH` instead of being sent raw.
 */
export function printable(line: string): string {
  return line.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
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
    .option('-i, --in-place', 'with --mode dialog or --strategy micro: overwrite each input atomically')
    .option('--user-toks <n>', 'token budget of prompts, notes and raw cells (default 2000)', nonNegInt)
    .option('--asst-toks <n>', 'token budget of each reply text (default 150)', nonNegInt)
    .option('--call-toks <n>', 'token budget of each tool call and code cell source (default 60)', nonNegInt)
    .option('--result-toks <n>', 'token budget of each tool result and code output (default 35)', nonNegInt)
    .addOption(new Option('--strategy <name>', 'dsl: the DSL forms (--mode); summary: older cells -> one summary note; micro: clear older tool results (both write notebooks)')
      .choices(['dsl', 'summary', 'micro']).default('dsl'))
    .option('--max-tokens <n>', 'summary: context budget; summarise when the dialog reaches 90% of it (default: always)', posInt)
    .option('--keep-recent <n>', 'summary: cells kept verbatim at the end (default: a quarter, at least 2); micro: newest tool results kept (default 3)', nonNegInt)
    .option('--llm-url <url>', 'summary: let the OpenAI-compatible API at URL write the summary (e.g. http://127.0.0.1:8080/v1)')
    .option('--llm-model <name>', 'summary: model of the LLM summariser (default $DLG_COMPACT_MODEL, $OPENAI_MODEL)')
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

/** The first of `vals` that is a non-empty string. */
function firstSet(...vals: Array<string | undefined>): string | undefined {
  for (const v of vals) if (typeof v === 'string' && v !== '') return v;
  return undefined;
}

/**
 * The LLM summariser's settings, or `undefined` for the offline DSL one. An LLM is used only
 * when asked for: `--llm-url` or `--llm-model` given, or `DLG_COMPACT_MODEL` set. `OPENAI_*`
 * variables fill in the rest (base URL, model, key) but never switch the LLM on by
 * themselves: a dialog is not sent anywhere because `OPENAI_MODEL` happens to be set.
 */
function llmSettings(o: Record<string, unknown>, env: CliIO['env']): LlmSettings | undefined {
  const url = o.llmUrl as string | undefined;
  const model = o.llmModel as string | undefined;
  if (url === '' || model === '') throw new UsageError(`${url === '' ? '--llm-url' : '--llm-model'} must not be empty`);
  if (url === undefined && model === undefined && firstSet(env.DLG_COMPACT_MODEL) === undefined) return undefined;
  const baseUrl = firstSet(url, env.DLG_COMPACT_BASE_URL, env.OPENAI_BASE_URL) ?? DEFAULT_LLM_URL;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new UsageError(`the LLM base URL is not a URL: ${baseUrl}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`the LLM base URL must be http or https: ${baseUrl}`);
  const m = firstSet(model, env.DLG_COMPACT_MODEL, env.OPENAI_MODEL);
  if (m === undefined) throw new UsageError('the LLM summariser needs a model: --llm-model NAME (or DLG_COMPACT_MODEL, OPENAI_MODEL)');
  const apiKey = firstSet(env.DLG_COMPACT_API_KEY, env.OPENAI_API_KEY);
  return apiKey === undefined ? { baseUrl, model: m } : { baseUrl, model: m, apiKey };
}

/** API root of the LLM summariser when neither `--llm-url` nor the environment names one. */
const DEFAULT_LLM_URL = 'https://api.openai.com/v1';

/**
 * Turn commander's option values into {@link CliOptions}, checking the combinations.
 * `explicit(name)` tells whether the user gave the option (rather than its default).
 */
function toOptions(o: Record<string, unknown>, explicit: (name: string) => boolean, env: CliIO['env']): CliOptions {
  const policy: Partial<Policy> = {};
  if (o.userToks !== undefined) policy.userToks = o.userToks as number;
  if (o.asstToks !== undefined) policy.asstToks = o.asstToks as number;
  if (o.callToks !== undefined) policy.callToks = o.callToks as number;
  if (o.resultToks !== undefined) policy.resultToks = o.resultToks as number;
  const strategy = o.strategy as Strategy;
  const output = o.output as string | undefined;
  const inPlace = o.inPlace === true;
  const given = (names: string[]) => names.filter((n) => o[n] !== undefined);
  const flag = (n: string) => '--' + n.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
  let mode = o.mode as 'flat' | 'dialog';
  let summary: SummarySettings | undefined;
  let micro: MicroSettings | undefined;
  if (strategy === 'dsl') {
    const wrong = given(['maxTokens', 'keepRecent', 'llmUrl', 'llmModel']);
    if (wrong.length > 0) throw new UsageError(`${flag(wrong[0]!)} needs --strategy ${wrong[0] === 'keepRecent' ? 'summary or micro' : 'summary'}`);
  } else {
    if (explicit('mode') && mode === 'flat') throw new UsageError(`--strategy ${strategy} writes a dialog notebook; it cannot be combined with --mode flat`);
    if (explicit('to') && o.to === 'md') throw new UsageError(`--strategy ${strategy} writes a dialog notebook; it cannot be combined with --to md`);
    mode = 'dialog';
    const keepRecent = o.keepRecent as number | undefined;
    if (strategy === 'micro') {
      const wrong = given(['maxTokens', 'llmUrl', 'llmModel', 'userToks', 'asstToks', 'callToks', 'resultToks']);
      if (wrong.length > 0) throw new UsageError(`${flag(wrong[0]!)} has no effect with --strategy micro`);
      micro = keepRecent === undefined ? {} : { keepRecent };
    } else {
      if (inPlace) {
        throw new UsageError('--in-place cannot be used with --strategy summary: the summary note names the input as the full original, which must be kept');
      }
      const llm = llmSettings(o, env);
      if (llm !== undefined) {
        const wrong = given(['userToks', 'asstToks', 'callToks', 'resultToks']);
        if (wrong.length > 0) throw new UsageError(`${flag(wrong[0]!)} has no effect with an LLM summariser (it shapes the offline DSL summary)`);
      }
      summary = {};
      if (o.maxTokens !== undefined) summary.maxTokens = o.maxTokens as number;
      if (keepRecent !== undefined) summary.keepRecent = keepRecent;
      if (llm !== undefined) summary.llm = llm;
    }
  }
  let to = (o.to as 'ipynb' | 'md' | undefined) ?? 'ipynb';
  if (!explicit('to') && mode === 'flat' && output !== undefined && extname(output).toLowerCase() === '.md') to = 'md';
  if (inPlace && mode !== 'dialog') throw new UsageError('--in-place needs --mode dialog or --strategy micro (the flat forms are new files)');
  if (inPlace && output !== undefined) throw new UsageError('--in-place and --output are exclusive');
  if (mode === 'dialog' && to === 'md') throw new UsageError('--to md makes a flat document; it cannot be combined with --mode dialog');
  if (mode === 'dialog' && output !== undefined && extname(output).toLowerCase() === '.md') {
    throw new UsageError(`${strategy === 'dsl' ? '--mode dialog' : `--strategy ${strategy}`} writes a notebook; -o ${output} names a Markdown file`);
  }
  return {
    mode, to, toExplicit: explicit('to'), inPlace, output, policy, strategy,
    ...(summary ? { summary } : {}),
    ...(micro ? { micro } : {}),
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

/** Build the per-file jobs; failures found while planning come back as {@link FileFailure}s. */
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
    if (i.kind === 'error') { jobs.push({ index, path: i.path, error: i.error }); continue; }
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
      jobs.push({ index, path, error: `${path}: its output ${output} is also an input of this run; refusing to overwrite an input (rename it, or choose another output with -o)` });
      continue;
    }
    jobs.push({
      index, path, output, target,
      source: stdin ? null : i.abs,
      bytes: stdin ? stdinBytes : undefined,
      name: stdin ? '<stdin>' : path,
      mode: opts.mode,
      // Flat output to standard output is Markdown unless --to asked for a notebook.
      to: target === null && !opts.toExplicit ? 'md' : opts.to,
      check: opts.check, policy: opts.policy, strategy: opts.strategy,
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
  ELOOP: 'too many levels of symbolic links',
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
 * Id source for cells that need a fresh id (cells read without one, a new summary note):
 * 8 hex digits of SHA-256(SHA-256(input bytes) + ":" + k) for k = 0, 1, 2, ... — the same
 * input always gets the same ids, so outputs are reproducible (the dialog retries candidates
 * that are already taken).
 */
function seededIds(bytes: Uint8Array): () => string {
  const seed = createHash('sha256').update(bytes).digest('hex');
  let k = 0;
  return () => createHash('sha256').update(`${seed}:${k++}`).digest('hex').slice(0, 8);
}

/** Summary refusals that are not failures: the dialog needs no summary, or one would not help. */
const BENIGN_REFUSALS: ReadonlySet<SummarizeDialogRefusal> = new Set<SummarizeDialogRefusal>(['not-needed', 'nothing-to-summarize', 'empty-summary', 'not-shrinking']);

/** At most this many cell ids are listed in a report line (the JSON record has them all). */
const IDS_SHOWN = 8;

function idList(ids: readonly string[]): string {
  return ids.length <= IDS_SHOWN ? ids.join(', ') : ids.slice(0, IDS_SHOWN).join(', ') + ', …';
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What a strategy produced: the output text (`null`: nothing to write) and the report's extras. */
interface Produced {
  text: string | null;
  after: ClassTokens | null;
  note?: string;
  reason?: SummarizeDialogRefusal;
  summary?: SummaryOutcome;
  micro?: MicroOutcome;
}

/** The summariser of a job: the LLM one when configured, else the offline DSL one. */
function jobSummarizer(job: FileJob): DialogSummarizer {
  const llm = job.summary?.llm;
  return llm ? httpDialogSummarizer({ baseUrl: llm.baseUrl, model: llm.model, apiKey: llm.apiKey }) : dslSummarizer(job.policy);
}

/**
 * `--strategy summary` on one parsed dialog. Runs `summarizeDialog` (with `--check` too when
 * the summariser is offline, since that is exact and sends nothing; with an LLM, `--check`
 * only plans, with `planDialogSummary`). A benign refusal gives `text: null` (nothing
 * written), except towards standard output, which gets the dialog unchanged so that a pipe
 * always carries a notebook. Throws {@link SummaryFailedError} for failing refusals.
 */
async function runSummary(job: FileJob, dialog: Dialog, before: ClassTokens): Promise<Produced> {
  const s = job.summary ?? {};
  const summarizer = jobSummarizer(job);
  const label = summarizer.label ?? 'custom';
  const options: SummarizeDialogOptions = {
    maxTokens: s.maxTokens,
    force: s.maxTokens === undefined,
    keepRecent: s.keepRecent,
    // Where the full original lives, relative to the output's folder (so the note holds no
    // absolute local path and still works when both files move together).
    sourcePath: job.source === null ? null : relative(job.target === null ? process.cwd() : dirname(job.target), job.source) || basename(job.source),
    maxRequestTokens: s.llm ? s.maxTokens : undefined,
  };
  const refused = (reason: SummarizeDialogRefusal): Produced => ({
    text: job.target === null ? dumpsIpynb(dialog) : null,
    after: before, // the dialog is left as it was
    note: `summary refused: ${reason}`,
    reason,
    summary: { summarizer: label, replaced: 0, ids: [] },
  });
  if (job.check && !summarizer.offline) {
    const plan = planDialogSummary(dialog, options, summarizer);
    if (!plan.wouldChange) return refused(plan.reason ?? 'not-needed');
    const n = plan.replacedIds.length;
    return {
      text: '', // never compared: an LLM summary cannot be predicted, so the output would change
      after: null,
      note: `summary of ${plural(n, 'cell', 'cells')}: ${idList(plan.replacedIds)}`,
      summary: { summarizer: label, replaced: n, ids: plan.replacedIds },
    };
  }
  const res = await summarizeDialog(dialog, summarizer, options);
  if (!res.changed) {
    const reason = res.reason!;
    if (BENIGN_REFUSALS.has(reason)) return refused(reason);
    let why: string = reason;
    if (reason === 'summarizer-failed') {
      why = res.error instanceof Error ? res.error.message : String(res.error);
    } else if (reason === 'invalid-summary') {
      why = 'the summary holds the reply separator, so the note would read back as a prompt';
    }
    throw new SummaryFailedError(`${job.name}: summary failed (${label}): ${why}`);
  }
  const n = res.replaced.length;
  return {
    text: dumpsIpynb(dialog),
    after: measureDialog(dialog).tokens,
    note: `summary of ${plural(n, 'cell', 'cells')}${job.check ? `: ${idList(res.replaced)}` : ''}`,
    summary: { summarizer: label, replaced: n, ids: res.replaced },
  };
}

/**
 * `--strategy micro` on one parsed dialog (`microCompactDialog`, also for `--check`: it is
 * exact and local). When nothing is cleared and the output is the input itself
 * (`--in-place`), the input is left alone (`text: null`) rather than rewritten in
 * normalised form.
 */
function runMicro(job: FileJob, dialog: Dialog): Produced {
  const res = microCompactDialog(dialog, { keepRecent: job.micro?.keepRecent });
  const n = res.cleared.length;
  let note = `micro: ${plural(n, 'tool result', 'tool results')} cleared`;
  if (res.refused.length > 0) note += `, ${plural(res.refused.length, 'reply', 'replies')} left as is (could not be rewritten safely)`;
  const micro: MicroOutcome = {
    cleared: res.cleared.map((c) => ({ messageId: c.messageId, tool: c.tool })),
    refused: res.refused.map((r) => ({ messageId: r.messageId, reason: r.reason })),
  };
  const after = measureDialog(dialog).tokens;
  if (!res.changed && job.target !== null && job.target === job.source) return { text: null, after, note, micro };
  return { text: dumpsIpynb(dialog), after, note, micro };
}

/** `--strategy dsl`: the flat document (as notebook or Markdown) or the compacted dialog. */
function runDsl(job: FileJob, dialog: Dialog): Produced {
  if (job.mode === 'dialog') {
    // The dialog was parsed for this job alone and its stats are taken: compacting it in
    // place (rather than a clone) changes nothing the caller can see.
    const compacted = compactDialog(dialog, job.policy);
    return { text: dumpsIpynb(compacted), after: measureDialog(compacted).tokens };
  }
  const flat = measureFlat(dialog, job.policy);
  if (job.to === 'md') return { text: flat.text === '' ? '' : flat.text + '\n', after: flat.tokens };
  return { text: dumpsIpynb(flatNotebook(dialog, job.policy, flat.text)), after: flat.tokens };
}

/**
 * Process one file: read and parse the notebook (invalid UTF-8 and malformed notebooks throw
 * `NotebookError` naming file and cell), compact it with the job's strategy, compare with what
 * is on disk, and write atomically unless identical or `job.check`. Summarisers are built
 * here from the job's plain settings (jobs cross to worker threads by structured cloning).
 * Never throws: errors come back as a {@link FileFailure} whose message names the file
 * (a failed summariser included); unexpected (non-{@link DlgError}) errors are prefixed
 * "unexpected error". Token counts: o200k_base tokens.
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
    const dialog = readsIpynbBytes(bytes, job.name, { newId: seededIds(bytes) });
    const stats = measureDialog(dialog);
    const produced =
      job.strategy === 'summary' ? await runSummary(job, dialog, stats.tokens)
      : job.strategy === 'micro' ? runMicro(job, dialog)
      : runDsl(job, dialog);
    const { text, after, note, reason, summary, micro } = produced;
    const base: FileReport = {
      index: job.index, path: job.path, output: job.output, status: 'unchanged', strategy: job.strategy,
      messages: stats.messages, prompts: stats.prompts, toolCalls: stats.toolCalls,
      before: stats.tokens, after,
      ...(note !== undefined ? { note } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(summary !== undefined ? { summary } : {}),
      ...(micro !== undefined ? { micro } : {}),
    };
    if (job.target === null) {
      if (text === null) return base;
      return job.check ? { ...base, status: 'would print' } : { ...base, status: 'printed', text };
    }
    if (text === null) return base;
    if (after === null) return { ...base, status: 'would write' }; // --check, unpredictable output
    const payload = Buffer.from(text, 'utf8');
    const onDisk = job.target === job.source ? bytes : await existingBytes(job.target, job.output);
    if (onDisk !== null && payload.equals(onDisk)) return base;
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

/**
 * The text report line of one file:
 * `OUTPUT: STATUS[ (NOTE)], N messages, BEFORE → AFTER tokens (P% saved)`; `AFTER` is `?`
 * (and the parenthesis says why) when unknown. The note says what a summary or micro
 * strategy did or would do: `summary of N cells` (with `--check`, followed by the ids of
 * those cells, up to 8, then `…`), `summary refused: REASON`, `micro: N tool results
 * cleared`.
 */
export function reportLine(r: FileReport): string {
  const out = r.output === '-' ? '<stdout>' : r.output;
  const note = r.note === undefined ? '' : ` (${r.note})`;
  const tokens = r.after === null
    ? `${r.before.total} → ? tokens (not estimated: --check does not call the LLM)`
    : `${r.before.total} → ${r.after.total} tokens (${pct(r.before.total, r.after.total)} saved)`;
  return `${out}: ${r.status}${note}, ${r.messages} messages, ${tokens}`;
}

/**
 * The `--json` record of one file. Fields, in this order: `path` (the input as named, `-` for
 * stdin), `output` (`-` for stdout), `status` ({@link FileStatus}), `strategy`
 * ({@link Strategy}), `messages`, `prompts`, `toolCalls`, `tokens: {before, after}`, each
 * `{user, assistant, calls, results, code, total}` in o200k_base tokens (`after` is `null`
 * when unknown: `--check` with an LLM summariser). Then, for `summary` and `micro` only:
 * `note` (the report line's parenthesis), `reason` (a refused summary's reason, when
 * refused), and `summary: {summarizer, replaced, ids}` or
 * `micro: {cleared: [{messageId, tool}], refused: [{messageId, reason}]}`.
 * A failed file gives `{path, error}`.
 */
export function jsonRecord(r: FileResult): Record<string, unknown> {
  if (isFailure(r)) return { path: r.path, error: r.error };
  const rec: Record<string, unknown> = {
    path: r.path, output: r.output, status: r.status, strategy: r.strategy,
    messages: r.messages, prompts: r.prompts, toolCalls: r.toolCalls,
    tokens: { before: r.before, after: r.after },
  };
  if (r.note !== undefined) rec.note = r.note;
  if (r.reason !== undefined) rec.reason = r.reason;
  if (r.summary !== undefined) rec.summary = r.summary;
  if (r.micro !== undefined) rec.micro = r.micro;
  return rec;
}

function defaultIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    env: process.env,
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
    const opts = toOptions(program.opts(), (name) => program.getOptionValueSource(name) === 'cli', env.env);
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
  const emit = (stream: CliStream, text: string) => {
    const line = printable(text);
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
