/**
 * The command line: commander's definitions of the arguments and options (with the help text),
 * and their validation into {@link CliOptions}: which combinations make sense, and the LLM
 * summariser's settings from the flags and the environment.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { Command, InvalidArgumentError as OptionValueError, Option } from 'commander';
import type { Policy } from '../dsl/render.js';
import { LlmSettingsError, llmSettingsFromEnv, type LlmSettings } from '../strategies/llm-settings.js';
import { UsageError } from './errors.js';
import type { CliIO } from './io.js';

export type { LlmSettings } from '../strategies/llm-settings.js';

/** The compaction strategy: `dsl` (the flat or dialog DSL forms), `summary` or `micro`. */
export type Strategy = 'dsl' | 'summary' | 'micro';

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
  /** `--min-saving`: least share of the count a summary must save (default 0.1). */
  minSaving?: number;
  /** The HTTP summariser's settings; absent: the offline DSL summariser. */
  llm?: LlmSettings;
}

/** Settings of `--strategy micro`. */
export interface MicroSettings {
  /** `--keep-recent`: newest tool results kept (default 3). */
  keepRecent?: number;
  /** `--keep-tools`: more tools whose results are never cleared. */
  keepTools?: string[];
}

/** Options of one run, after parsing and validation. */
export interface CliOptions {
  mode: 'flat' | 'dialog';
  to: 'ipynb' | 'md';
  /** `--to` was given: standard output then gets that form too (by default it gets Markdown). */
  toExplicit?: boolean;
  inPlace: boolean;
  /** `-o PATH`, or `-` for `-o -`, `--stdout` and `-o /dev/stdout`. */
  output?: string;
  /** The flag that gave `output`, for messages: `--stdout` or `--output`. */
  outputFlag?: '--stdout' | '--output';
  /** `--output-dir DIR`: outputs go there (created), keeping directory inputs' relative layout. */
  outputDir?: string;
  /** `--check` or `--dry-run`: nothing is written. */
  check: boolean;
  /** `--dry-run`: like `--check`, but pending outputs do not make the exit status 1. */
  dryRun: boolean;
  json: boolean;
  /** `-q`: no report line for files that went well (errors are still printed). */
  quiet: boolean;
  /** `-v`: also say which settings file each input used, and which arguments were dropped. */
  verbose: boolean;
  /** `--watch`: keep the outputs up to date as the inputs are saved. */
  watch: boolean;
  jobs: number;
  progress: boolean;
  policy: Partial<Policy>;
  /** `--no-legend` gives `false`: flat outputs without the legend (the reference profile never has one). */
  legend?: boolean;
  strategy: Strategy;
  /** Set when `strategy` is `summary`. */
  summary?: SummarySettings;
  /** Set when `strategy` is `micro`. */
  micro?: MicroSettings;
}

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
dialog writes the dialog as it is, and the report says why: "summary refused: not-needed");
micro replaces older tool results inside replies by a placeholder naming the tool and what
was cleared ("[Previous: used read_file · 12.4 KB cleared]"). Both write notebooks. The summary is the compact DSL of the
replaced cells (offline) unless --llm-url/--llm-model is given or DLG_COMPACT_MODEL is set:
then an OpenAI-compatible chat endpoint writes it (base URL also from DLG_COMPACT_BASE_URL or
OPENAI_BASE_URL, model also from OPENAI_MODEL, key from DLG_COMPACT_API_KEY or OPENAI_API_KEY;
OPENAI_MODEL alone never sends a dialog anywhere).

Settings: defaults for mode, strategy, profile, to and the budgets come from the nearest
.dlg-compact.json, package.json ("dlg-compact" key) or pyproject.toml ([tool.dlg-compact]),
looked for upward from each input (keys are the long flags without --); flags override them,
and a key that does not apply to the run (keep-tools in a dsl run) is ignored (-v names it);
--print-config shows them and where each comes from. Own outputs given as inputs (the -comp
copies an unquoted glob brings back) are skipped. Writes are atomic (a temporary
.NAME.dlg-compact-PID-HEX.tmp renamed over the output); devices and FIFOs are written in place.

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
  dlg-compact --output-dir compact/ nbs/           # nbs/a/x.ipynb -> compact/a/x-comp.ipynb
  dlg-compact --watch --mode dialog nbs/           # keep the copies up to date as you save

Exit status: 0 all done; 1 some file failed (and with --check: some output would be written);
2 usage error (also a malformed settings file). A failed summariser fails its file. With --check nothing is written;
standard-output targets never count as changes. Reports go to standard output, or to standard
error when the document goes (or, with --check, would go) to standard output.`;

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

/** Parse a share: a number in [0, 1) (`0.1`) or a percentage below 100 (`10%`). */
function shareArg(value: string): number {
  const pct = value.endsWith('%');
  const t = pct ? value.slice(0, -1) : value;
  const n = Number(t) / (pct ? 100 : 1);
  if (!/^\d+(?:\.\d+)?$/.test(t) || !(n >= 0 && n < 1)) throw new OptionValueError('expected a share in [0, 1) or a percentage below 100%, e.g. 0.1 or 10%');
  return n;
}

/** Parse a comma-separated list of tool names (none empty). */
function namesArg(value: string): string[] {
  const names = value.split(',').map((x) => x.trim());
  if (names.some((x) => x === '')) throw new OptionValueError('expected tool names separated by commas, e.g. memory,load_dialog');
  return names;
}

/** `--to`: its choices (shown in help, checked for settings files), with the aliases mapped. */
function toOption(): Option {
  const opt = new Option(
    '--to <format>',
    'flat mode output format, also markdown (= md) and notebook (= ipynb) (default: ipynb, or md when -o ends in .md)',
  ).choices(['ipynb', 'md', 'markdown', 'notebook']);
  const check = opt.parseArg!;
  return opt.argParser((v: string, prev: unknown) => {
    const x = check(v, prev) as string;
    return x === 'markdown' ? 'md' : x === 'notebook' ? 'ipynb' : x;
  });
}

/** The commander program of `dlg-compact`; its output goes to `io`, its error messages to `onError`. */
export function buildProgram(io: CliIO, onError: (msg: string) => void): Command {
  return new Command('dlg-compact')
    .description('Compact LLM dialogs kept as Jupyter notebooks into token-bounded documents.')
    .argument('[inputs...]', 'notebooks (.ipynb), quoted globs, directories, or - for standard input')
    .addOption(
      new Option('--mode <mode>', 'flat: one raw cell holding the flat document; dialog: compact prompts in a runnable copy')
        .choices(['flat', 'dialog'])
        .default('flat'),
    )
    .addOption(toOption())
    .option('-o, --output <path>', 'output file for a single input (its folder is created); - or /dev/stdout for standard output')
    .option('--stdout', 'write the document to standard output (same as -o -)')
    .option('--output-dir <dir>', 'write outputs into DIR (created) instead of beside the inputs; directory inputs keep their layout below it')
    .option('-i, --in-place', 'with --mode dialog or --strategy micro: overwrite each input atomically')
    .option('--user-toks <n>', 'token budget of prompts, notes and raw cells (default 2000)', nonNegInt)
    .option('--asst-toks <n>', 'token budget of each reply text (default 150; 0.58 of it in older turns, clean profile)', nonNegInt)
    .option('--call-toks <n>', 'token budget of each tool call and code cell source (default 60)', nonNegInt)
    .option('--result-toks <n>', 'token budget of each tool result and code output (default 35; up to 8x in the latest turns, clean profile)', nonNegInt)
    .addOption(
      new Option('--profile <name>', "clean (default): mend the reference's flaws; reference: byte for byte the Python reference").choices([
        'clean',
        'reference',
      ]),
    )
    .option('--no-legend', 'flat outputs: leave out the legend that explains the sigils and names the source (never written by --profile reference)')
    .addOption(
      new Option(
        '--strategy <name>',
        'dsl: the DSL forms (--mode); summary: older cells -> one summary note; micro: clear older tool results (both write notebooks)',
      )
        .choices(['dsl', 'summary', 'micro'])
        .default('dsl'),
    )
    .option(
      '--max-tokens <n>',
      'dsl: fit the output (flat document, legend included, or the dialog) into N tokens; summary: context budget, summarise when the dialog reaches 90% of it (default: always)',
      posInt,
    )
    .option(
      '--keep-recent <n>',
      'summary: cells kept verbatim at the end (default: a quarter, at least 2); micro: newest tool results kept (default 3)',
      nonNegInt,
    )
    .option('--min-saving <share>', 'summary: least share of the tokens a summary must save, 0-1 or N% (default 10%)', shareArg)
    .option('--keep-tools <names>', 'micro: never clear the results of these tools (comma-separated, e.g. memory,load_dialog)', namesArg)
    .option('--llm-url <url>', 'summary: let the OpenAI-compatible API at URL write the summary (e.g. http://127.0.0.1:8080/v1)')
    .option('--llm-model <name>', 'summary: model of the LLM summariser (default $DLG_COMPACT_MODEL, $OPENAI_MODEL)')
    .option('--check', 'write nothing; report what would change; exit 1 if some output would be written')
    .option('--dry-run', 'write nothing; report what would be written; exit 0 (unless a file fails)')
    .option('--json', 'one JSON record per file instead of the text report')
    .option('-q, --quiet', 'print only errors (no line for files that went well, no progress bar)')
    .option('-v, --verbose', 'also print the settings file each input uses and the arguments dropped as duplicates')
    .option('--watch', 'after a first run, keep the outputs up to date as the inputs are saved (Ctrl-C to stop)')
    .option('--print-config', 'print the settings that apply to each input (or this folder) and where each comes from; write nothing')
    .option('--no-config', 'ignore .dlg-compact.json, package.json and pyproject.toml settings')
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

/**
 * The LLM summariser's settings, or `undefined` for the offline DSL one (`llmSettingsFromEnv`:
 * an LLM is used only when asked for, by `--llm-url`, `--llm-model` or `DLG_COMPACT_MODEL`;
 * `OPENAI_*` variables fill in the rest but never switch it on by themselves).
 * @throws UsageError for an empty flag, or settings that cannot be used (no model, a base URL
 *   that is not an http(s) URL).
 */
function llmSettings(o: Record<string, unknown>, env: CliIO['env']): LlmSettings | undefined {
  const url = o.llmUrl as string | undefined;
  const model = o.llmModel as string | undefined;
  if (url === '' || model === '') throw new UsageError(`${url === '' ? '--llm-url' : '--llm-model'} must not be empty`);
  try {
    return llmSettingsFromEnv(env, { url, model }) ?? undefined;
  } catch (err) {
    if (!(err instanceof LlmSettingsError)) throw err;
    if (err.problem === 'no-model') throw new UsageError('the LLM summariser needs a model: --llm-model NAME (or DLG_COMPACT_MODEL, OPENAI_MODEL)');
    throw new UsageError(err.message);
  }
}

/** A settings-file key left out of a run it does not apply to, for `-v`: `keep-tools (micro only)`. */
export interface IgnoredSetting {
  /** commander's attribute name (`keepTools`). */
  attr: string;
  /** The key as the file names it, with its value for `mode` and `to`, and why: `mode flat (not with --strategy micro)`. */
  label: string;
  /** Why alone: `not with --strategy micro`. */
  why: string;
}

/** The extension of an output path in lower case (`''` for standard output). */
function outputExt(o: Record<string, unknown>): string {
  const out = o.stdout === true ? '-' : (o.output as string | undefined);
  return out === undefined || out === '-' ? '' : extname(out).toLowerCase();
}

/**
 * The settings of a file (`values`, by attribute name) that do not apply to the run the flags
 * (`raw`, `fromCli`) and the file make together: keys of another strategy (`keep-recent` in a
 * `dsl` run, `max-tokens` or the budgets with `micro`, the budgets with an LLM summariser),
 * `mode flat` or `to md` with a strategy that writes notebooks, `to md` in dialog mode, and a
 * `to` that the extension of `-o` contradicts. As with the settings files of other tools, such
 * keys are ignored rather than refused (a project's file serves runs of every kind); flags
 * given on the command line are still checked as they are. Listed in the file's order.
 */
export function inapplicableSettings(
  values: Readonly<Record<string, unknown>>,
  raw: Record<string, unknown>,
  fromCli: (name: string) => boolean,
  env: CliIO['env'],
): IgnoredSetting[] {
  const val = (a: string) => (!fromCli(a) && a in values ? values[a] : raw[a]);
  const strategy = val('strategy') as Strategy;
  const mode = strategy === 'dsl' ? (val('mode') as string) : 'dialog';
  let llm = false;
  if (strategy === 'summary') {
    try {
      llm = llmSettingsFromEnv(env, { url: raw.llmUrl as string | undefined, model: raw.llmModel as string | undefined }) != null;
    } catch {
      // Unusable LLM settings: toOptions reports them.
    }
  }
  const ext = outputExt(raw);
  const why = (attr: string, v: unknown): string | undefined => {
    switch (attr) {
      case 'keepRecent':
        return strategy === 'dsl' ? 'summary and micro only' : undefined;
      case 'minSaving':
        return strategy !== 'summary' ? 'summary only' : undefined;
      case 'keepTools':
        return strategy !== 'micro' ? 'micro only' : undefined;
      case 'maxTokens':
        return strategy === 'micro' ? 'dsl and summary only' : undefined;
      case 'userToks':
      case 'asstToks':
      case 'callToks':
      case 'resultToks':
        return strategy === 'micro' ? 'dsl and summary only' : llm ? 'not with an LLM summariser' : undefined;
      case 'mode':
        return strategy !== 'dsl' && v === 'flat' ? `not with --strategy ${strategy}` : undefined;
      case 'to':
        if (mode === 'dialog') return v === 'md' ? 'flat mode only' : undefined;
        if ((v === 'md' && ext === '.ipynb') || (v === 'ipynb' && ext === '.md')) return `not with -o ${String(raw.output)}`;
        return undefined;
      default:
        return undefined;
    }
  };
  const out: IgnoredSetting[] = [];
  for (const [attr, v] of Object.entries(values)) {
    if (fromCli(attr)) continue;
    const w = why(attr, v);
    if (w === undefined) continue;
    const key = attr.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
    out.push({ attr, label: `${key}${attr === 'mode' || attr === 'to' ? ` ${String(v)}` : ''} (${w})`, why: w });
  }
  return out;
}

/**
 * Turn commander's option values into {@link CliOptions}, checking the combinations.
 * `explicit(name)` tells whether the user gave the option (rather than its default).
 */
export function toOptions(o: Record<string, unknown>, explicit: (name: string) => boolean, env: CliIO['env']): CliOptions {
  const policy: Partial<Policy> = {};
  if (o.userToks !== undefined) policy.userToks = o.userToks as number;
  if (o.asstToks !== undefined) policy.asstToks = o.asstToks as number;
  if (o.callToks !== undefined) policy.callToks = o.callToks as number;
  if (o.resultToks !== undefined) policy.resultToks = o.resultToks as number;
  if (o.profile !== undefined) policy.profile = o.profile as Policy['profile'];
  const strategy = o.strategy as Strategy;
  if (o.stdout === true && o.output !== undefined && o.output !== '-') throw new UsageError('--stdout and --output are exclusive');
  let output = o.stdout === true ? '-' : (o.output as string | undefined);
  // /dev/stdout (and its aliases) is standard output, written like -o - (never replaced by a file).
  if (output === '/dev/stdout' || output === '/dev/fd/1' || output === '/proc/self/fd/1') output = '-';
  const outputDir = o.outputDir as string | undefined;
  if (outputDir === '') throw new UsageError('--output-dir must not be empty');
  const outputFlag = o.stdout === true ? '--stdout' : '--output';
  if (outputDir !== undefined && output !== undefined) throw new UsageError(`--output-dir and ${outputFlag} are exclusive`);
  if (outputDir !== undefined && o.inPlace === true) throw new UsageError('--output-dir and --in-place are exclusive');
  if (o.watch === true && output === '-') throw new UsageError('--watch writes files; it cannot write to standard output');
  if (o.watch === true && (o.check === true || o.dryRun === true))
    throw new UsageError('--watch writes files; it cannot be combined with --check or --dry-run');
  if (o.quiet === true && o.verbose === true) throw new UsageError('--quiet and --verbose are exclusive');
  const inPlace = o.inPlace === true;
  const given = (names: string[]) => names.filter((n) => o[n] !== undefined);
  const flag = (n: string) => '--' + n.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
  let mode = o.mode as 'flat' | 'dialog';
  let summary: SummarySettings | undefined;
  let micro: MicroSettings | undefined;
  if (strategy === 'dsl') {
    const wrong = given(['keepRecent', 'llmUrl', 'llmModel', 'minSaving', 'keepTools']);
    if (wrong.length > 0)
      throw new UsageError(
        `${flag(wrong[0]!)} needs --strategy ${wrong[0] === 'keepRecent' ? 'summary or micro' : wrong[0] === 'keepTools' ? 'micro' : 'summary'}`,
      );
    // dsl: a total budget for the output; the policy is scaled to fit it (dialog/fit.ts).
    if (o.maxTokens !== undefined) (policy as Partial<Policy> & { maxTokens?: number }).maxTokens = o.maxTokens as number;
  } else {
    if (explicit('mode') && mode === 'flat') throw new UsageError(`--strategy ${strategy} writes a dialog notebook; it cannot be combined with --mode flat`);
    if (explicit('to') && o.to === 'md') throw new UsageError(`--strategy ${strategy} writes a dialog notebook; it cannot be combined with --to md`);
    mode = 'dialog';
    const keepRecent = o.keepRecent as number | undefined;
    if (strategy === 'micro') {
      const wrong = given(['maxTokens', 'llmUrl', 'llmModel', 'userToks', 'asstToks', 'callToks', 'resultToks', 'minSaving']);
      if (wrong.length > 0) throw new UsageError(`${flag(wrong[0]!)} has no effect with --strategy micro`);
      micro = keepRecent === undefined ? {} : { keepRecent };
      if (o.keepTools !== undefined) micro.keepTools = o.keepTools as string[];
    } else {
      if (inPlace) {
        throw new UsageError('--in-place cannot be used with --strategy summary: the summary note names the input as the full original, which must be kept');
      }
      const llm = llmSettings(o, env);
      if (llm !== undefined) {
        const wrong = given(['userToks', 'asstToks', 'callToks', 'resultToks']);
        if (wrong.length > 0) throw new UsageError(`${flag(wrong[0]!)} has no effect with an LLM summariser (it shapes the offline DSL summary)`);
      }
      if (o.keepTools !== undefined) throw new UsageError('--keep-tools needs --strategy micro');
      summary = {};
      if (o.maxTokens !== undefined) summary.maxTokens = o.maxTokens as number;
      if (o.minSaving !== undefined) summary.minSaving = o.minSaving as number;
      if (keepRecent !== undefined) summary.keepRecent = keepRecent;
      if (llm !== undefined) summary.llm = llm;
    }
  }
  let to = (o.to as 'ipynb' | 'md' | undefined) ?? 'ipynb';
  const ext = output === undefined || output === '-' ? '' : extname(output).toLowerCase();
  if (!explicit('to') && mode === 'flat' && ext === '.md') to = 'md';
  if (explicit('to') && mode === 'flat' && to === 'md' && ext === '.ipynb') throw new UsageError(`--to md writes Markdown; -o ${output} names a notebook`);
  if (explicit('to') && mode === 'flat' && to === 'ipynb' && ext === '.md')
    throw new UsageError(`--to ipynb writes a notebook; -o ${output} names a Markdown file`);
  if (inPlace && mode !== 'dialog') throw new UsageError('--in-place needs --mode dialog or --strategy micro (the flat forms are new files)');
  if (inPlace && output !== undefined) throw new UsageError(`--in-place and ${outputFlag} are exclusive`);
  if (mode === 'dialog' && to === 'md') throw new UsageError('--to md makes a flat document; it cannot be combined with --mode dialog');
  if (mode === 'dialog' && output !== undefined && extname(output).toLowerCase() === '.md') {
    throw new UsageError(`${strategy === 'dsl' ? '--mode dialog' : `--strategy ${strategy}`} writes a notebook; -o ${output} names a Markdown file`);
  }
  return {
    mode,
    to,
    toExplicit: explicit('to'),
    inPlace,
    output,
    ...(output === undefined ? {} : { outputFlag }),
    policy,
    ...(o.legend === false ? { legend: false } : {}),
    strategy,
    ...(summary ? { summary } : {}),
    ...(micro ? { micro } : {}),
    ...(outputDir !== undefined ? { outputDir } : {}),
    check: o.check === true || o.dryRun === true,
    dryRun: o.dryRun === true && o.check !== true,
    json: o.json === true,
    quiet: o.quiet === true,
    verbose: o.verbose === true,
    watch: o.watch === true,
    jobs: o.jobs as number,
    progress: o.progress !== false,
  };
}
