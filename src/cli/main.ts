#!/usr/bin/env node
/**
 * The `dlg-compact` command: compact dialogs (Jupyter notebooks used as LLM conversations) file
 * by file, following the conventions of nbstripout, jupytext and nbQA (outputs beside inputs,
 * `-` for the standard streams, `--check`, `--in-place`). Strategies: the flat or dialog DSL
 * forms (SPEC §8), a summary or micro-compaction (SPEC §9). This module parses the command
 * line, dispatches the jobs (in this thread or in workers) and prints the report; the work on
 * one file is in process-file.ts.
 *
 * Exit status: 0 all done (with `--check`: nothing would be written), 1 some file failed (with
 * `--check`: also when some output would be written), 2 usage error. When this file is the
 * program being run (the `bin` entry), it calls {@link main} on `process.argv`.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { CommanderError } from 'commander';
import { DlgError } from '../errors.js';
import { UsageError, fsError } from './errors.js';
import { defaultIO, type CliIO, type CliStream } from './io.js';
import type { ConfigFinder } from './config.js';
import type { SettingsFor } from './inputs.js';
import { isFailure, isSkip, type FileJob, type FileResult } from './job.js';
import { buildProgram, inapplicableSettings, toOptions, type CliOptions } from './options.js';
import { jsonRecord, printable, reportLine, skipLine, totalLine } from './report.js';

export { CliFileError, SummaryFailedError, UsageError } from './errors.js';
export type { CliIO, CliStream } from './io.js';
export type { FileFailure, FileJob, FileReport, FileResult, FileSkip, FileStatus, MicroOutcome, SummaryOutcome } from './job.js';
export type { CliOptions, LlmSettings, MicroSettings, Strategy, SummarySettings } from './options.js';
export { jsonRecord, printable, reportLine, skipLine } from './report.js';

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
    env.stderr.write(`dlg-compact: error: ${printable(msg)}\nTry 'dlg-compact --help' for more information.\n`);
    return 2;
  };
  let commanderMsg = '';
  const program = buildProgram(env, (s) => {
    commanderMsg = s;
  });
  try {
    program.parse([...argv], { from: 'user' });
    const raw = program.opts();
    const fromCli = (name: string) => program.getOptionValueSource(name) === 'cli';
    const opts = toOptions(raw, fromCli, env.env);
    // Settings files and input planning load only once the arguments are parsed: `--version`
    // and `--help` end inside parse().
    const config = await import('./config.js');
    const finder = raw.config === false ? null : new config.ConfigFinder(program);
    const settingsFor = settingsResolver(raw, fromCli, opts, env, finder, config.shownPath);
    if (raw.printConfig === true) return await (await import('./print-config.js')).printConfig(program, program.args, opts, env, finder);
    if (program.args.length === 0) throw new UsageError('missing input: name notebooks, directories, quoted globs, or - for standard input');
    const code = await run(program.args, opts, env, settingsFor);
    if (!opts.watch) return code;
    const { watchInputs } = await import('./watch.js');
    return await watchInputs(program.args, opts, env, settingsFor);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0; // --help, --version
      return usage(
        (commanderMsg || err.message)
          .trim()
          .replace(/^error: /, '')
          .replace(/\s*\n\s*/g, ' '),
      );
    }
    if (err instanceof UsageError) return usage(err.message);
    if (err instanceof DlgError) {
      env.stderr.write(`dlg-compact: ${printable(err.message)}\n`);
      return 1;
    }
    const msg = err instanceof Error ? err.message : String(err);
    if (process.env.DLG_COMPACT_DEBUG && err instanceof Error && err.stack) env.stderr.write(err.stack + '\n');
    env.stderr.write(`dlg-compact: unexpected error: ${printable(msg)}\n`);
    return 1;
  }
}

/**
 * Each input folder's options: the flags merged over the nearest config file's settings
 * (flags win), validated like flags; cached per config file.
 */
function settingsResolver(
  raw: Record<string, unknown>,
  fromCli: (name: string) => boolean,
  base: CliOptions,
  io: CliIO,
  finder: ConfigFinder | null,
  shownPath: (path: string, cwd: string) => string,
): SettingsFor {
  const byFile = new Map<string, CliOptions>();
  const shownOf = new Map<string, string>();
  return async (dir) => {
    const found = finder === null ? null : await finder.find(dir);
    if (found === null) return { opts: base };
    const shown = shownPath(found.path, io.cwd);
    let opts = byFile.get(found.path);
    if (opts === undefined) {
      // Keys of the file that do not apply to this run (another strategy's) are left out.
      const ignored = inapplicableSettings(found.values, raw, fromCli, io.env);
      const skip = new Set(ignored.map((x) => x.attr));
      const merged: Record<string, unknown> = { ...raw };
      for (const [k, v] of Object.entries(found.values)) if (!fromCli(k) && !skip.has(k)) merged[k] = v;
      try {
        opts = toOptions(merged, (n) => fromCli(n) || (n in found.values && !skip.has(n)), io.env);
      } catch (err) {
        if (err instanceof UsageError) throw new UsageError(`${err.message} (with the settings of ${shown})`);
        throw err;
      }
      byFile.set(found.path, opts);
      shownOf.set(found.path, ignored.length === 0 ? shown : `${shown}, ignoring ${ignored.map((x) => x.label).join(', ')}`);
    }
    return { opts, config: shownOf.get(found.path)! };
  };
}

async function run(args: readonly string[], opts: CliOptions, io: CliIO, settingsFor?: SettingsFor): Promise<number> {
  // With --jobs, the workers load their modules while this thread plans the inputs.
  const early = opts.jobs > 1 ? (await import('./jobs.js')).startWorkers(opts.jobs) : undefined;
  const { planJobs } = await import('./inputs.js');
  let planned: Awaited<ReturnType<typeof planJobs>>;
  try {
    planned = await planJobs(args, opts, io, settingsFor);
  } catch (e) {
    await early?.stop();
    throw e;
  }
  const jobs = planned.filter((j): j is FileJob => !isFailure(j) && !isSkip(j));
  const parallel = opts.jobs > 1 && jobs.length > 1;
  if (!parallel) await early?.stop();
  const results: (FileResult | undefined)[] = new Array(planned.length);
  for (const p of planned) if (isFailure(p) || isSkip(p)) results[p.index] = p;
  const configOf = new Map(jobs.map((j) => [j.index, j.config]));

  // Reports go to stdout unless a document does (or, under --check, would); then stdout
  // carries only the document.
  const docToStdout = jobs.some((j) => j.target === null);
  const reportStream = docToStdout ? io.stderr : io.stdout;

  const showBar = opts.progress && !opts.quiet && io.stderr.isTTY === true && planned.length > 1;
  // Loaded only when a bar is drawn: the command loads its heavy modules on demand.
  const cliProgress = showBar ? (await import('cli-progress')).default : null;
  const multibar = showBar
    ? new cliProgress!.MultiBar(
        {
          stream: io.stderr as NodeJS.WritableStream,
          format: 'dlg-compact {bar} {value}/{total} files',
          hideCursor: true,
          clearOnComplete: true,
          autopadding: true,
        },
        cliProgress!.Presets.shades_classic,
      )
    : null;
  const bar = multibar?.create(planned.length, 0) ?? null;
  // While the bar is drawn, lines for the terminal go through it so they don't tear it.
  // Text lines are escaped for the terminal; JSON records are written as they are.
  // Once the bar is gone, such lines go to its terminal directly.
  let barDrawn = multibar !== null;
  const emit = (stream: CliStream, text: string, json = false) => {
    const line = json ? text : printable(text);
    if (multibar && stream.isTTY) {
      if (barDrawn) multibar.log(line + '\n');
      else io.stderr.write(line + '\n');
    } else stream.write(line + '\n');
  };

  let failed = 0;
  let pending = 0;
  let printed = 0;
  // A text report over several inputs ends with their totals.
  const withTotal = !opts.quiet && !opts.json && planned.length > 1;
  const print = (r: FileResult) => {
    if (isFailure(r)) {
      failed++;
      emit(io.stderr, `dlg-compact: ${r.error}`);
      if (opts.json) emit(reportStream, JSON.stringify(jsonRecord(r)), true);
      return;
    }
    if (isSkip(r)) {
      // An output met in a folder walk or a glob is counted in the total line, without a line
      // of its own (unless it is the run's only input, when there is no total line).
      if (opts.json) emit(reportStream, JSON.stringify(jsonRecord(r)), true);
      else if (!opts.quiet && (r.named === true || opts.verbose || !withTotal)) emit(reportStream, skipLine(r));
      return;
    }
    if (r.status === 'would write') pending++;
    if (r.text !== undefined) io.stdout.write(r.text);
    const config = configOf.get(r.index);
    if (opts.verbose && config !== undefined && !opts.json) emit(reportStream, `${r.path}: settings from ${config}`);
    if (!opts.quiet) emit(reportStream, opts.json ? JSON.stringify(jsonRecord(r)) : reportLine(r), opts.json);
  };
  // Results are printed in input order: each as soon as those before it are.
  const flush = () => {
    while (printed < results.length && results[printed] !== undefined) print(results[printed++]!);
  };
  const onResult = (r: FileResult) => {
    results[r.index] = r;
    bar?.increment();
    flush();
  };
  for (const p of planned) if (isFailure(p) || isSkip(p)) bar?.increment();
  flush();

  const targets = jobs.flatMap((j) => (j.target === null || j.check ? [] : [j.target]));
  const unguard = targets.length > 0 ? await guardInterrupts(targets) : undefined;
  try {
    if (jobs.length > 0) (await import('../host/node.js')).useNodeHost();
    if (parallel) await (await import('./jobs.js')).runInWorkers(jobs, opts.jobs, onResult, early);
    else {
      const { processFile } = await import('./process-file.js');
      for (const j of jobs) onResult(await processFile(j));
    }
  } finally {
    unguard?.();
    await early?.stop(); // no-op for workers already done
    if (multibar) {
      multibar.update(); // flush lines logged since the last redraw before the bar goes
      multibar.stop();
      barDrawn = false;
    }
  }
  if (withTotal && results.every((r) => r !== undefined)) emit(reportStream, totalLine(results as FileResult[]));
  return failed > 0 || (pending > 0 && !opts.dryRun) ? 1 : 0;
}

/**
 * While a run writes `targets`: on SIGINT (Ctrl-C) or SIGTERM, remove the run's temporary files
 * (a write may be half done, on this thread or a worker's), then let the signal end the
 * process as it would have without this handler (a shell then sees 130 for Ctrl-C). Returns
 * the function that takes the handlers off again, called when the run ends.
 */
async function guardInterrupts(targets: readonly string[]): Promise<() => void> {
  const files = await import('../notebook/files.js');
  files.noteOutputFolders(targets);
  const off = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    off();
    files.removeOwnTemps();
    process.kill(process.pid, signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return off;
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

/**
 * Run the command as the process's program: `main` on `process.argv`, its exit status as the
 * process's. A closed pipe (`dlg-compact ... | head -1`) silences standard output but never
 * stops the run half-way: the files still get written and the exit status says how they went.
 * Other write errors on standard output (a full disk) are reported like any file error. Called
 * by the package's launcher (`dist/bin/main.js`) and when this module is run directly.
 */
export function runAsProgram(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') {
      process.stdout.write = (() => true) as typeof process.stdout.write;
      return;
    }
    process.stderr.write(`dlg-compact: ${fsError('write', '<stdout>', err).message}\n`);
    process.exit(1);
  });
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

if (invokedAsProgram()) runAsProgram();
