/**
 * `--watch`: after the first run, keep each input's output up to date as the input is saved
 * (chokidar watches the named files, directories and the folders of quoted globs). Saves are
 * debounced per file; each output is written like any run's (atomically, only when its bytes
 * change). The command's own outputs, its temporary files, checkpoints and `--output-dir` are
 * ignored. A save that cannot be read (half-written, invalid) is reported and retried on the
 * next save; nothing that happens to one file stops the watcher. SIGINT (Ctrl-C) or SIGTERM
 * closes the watcher and exits 0.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, relative, resolve, sep } from 'node:path';
import { isDynamicPattern } from 'tinyglobby';
import { isTempName } from '../notebook/files.js';
import { expandInputs, planJobs, type SettingsFor } from './inputs.js';
import type { CliIO } from './io.js';
import { isFailure, isSkip } from './job.js';
import type { CliOptions } from './options.js';
import { hasOutputName } from './own-output.js';
import { processFile } from './process-file.js';
import { jsonRecord, printable, reportLine, skipLine } from './report.js';

/** Quiet time after the last event of a file before it is processed (ms). */
export const WATCH_DEBOUNCE_MS = 200;

const hash = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The paths chokidar watches for the arguments: files and directories as named, a glob's fixed folder. */
async function watchRoots(args: readonly string[], cwd: string): Promise<string[]> {
  const roots = new Set<string>();
  for (const arg of args) {
    if (arg === '-') continue;
    const abs = resolve(cwd, arg);
    const st = await stat(abs).catch(() => null);
    if (st !== null || !isDynamicPattern(arg)) {
      roots.add(abs);
      continue;
    }
    const fixed: string[] = [];
    for (const part of arg.split(/[\\/]/).slice(0, -1)) {
      if (isDynamicPattern(part)) break;
      fixed.push(part);
    }
    roots.add(resolve(cwd, fixed.join('/') || '.'));
  }
  return [...roots];
}

/**
 * Watch the inputs until SIGINT or SIGTERM. Reports go to standard output (text lines or
 * `--json` records), errors to standard error, as in a normal run.
 * @returns the exit status once stopped: 0.
 */
export async function watchInputs(args: readonly string[], opts: CliOptions, io: CliIO, settingsFor: SettingsFor): Promise<number> {
  const { watch } = await import('chokidar');
  const outDir = opts.outputDir === undefined ? null : resolve(io.cwd, opts.outputDir) + sep;
  const ignored = (p: string) => {
    const name = basename(p);
    return isTempName(name) || hasOutputName(name) || name === '.ipynb_checkpoints' || (outDir !== null && (p + sep).startsWith(outDir));
  };
  const roots = await watchRoots(args, io.cwd);
  const watcher = watch(roots, { ignoreInitial: true, ignored, followSymlinks: false });
  const timers = new Map<string, NodeJS.Timeout>();
  const busy = new Set<string>();
  const again = new Set<string>();
  /** What this watcher last wrote into each input (--in-place), so its own write is not a save. */
  const wrote = new Map<string, string>();

  const say = (line: string, json?: Record<string, unknown>) => {
    if (opts.json && json !== undefined) io.stdout.write(JSON.stringify(json) + '\n');
    else if (json === undefined || !opts.quiet) io.stdout.write(printable(line) + '\n');
  };

  const handle = async (abs: string): Promise<void> => {
    if (busy.has(abs)) {
      again.add(abs);
      return;
    }
    busy.add(abs);
    try {
      const inputs = new Set((await expandInputs(args, io.cwd)).flatMap((i) => (i.kind === 'file' ? [i.abs] : [])));
      if (!inputs.has(abs)) return;
      const bytes = await readFile(abs).catch(() => null);
      if (bytes === null) return; // removed or renamed away meanwhile
      if (wrote.get(abs) === hash(bytes)) return;
      const rel = relative(io.cwd, abs) || abs;
      for (const j of await planJobs([rel], opts, io, settingsFor)) {
        const r = isFailure(j) || isSkip(j) ? j : await processFile(j);
        if (isFailure(r)) {
          io.stderr.write(printable(`dlg-compact: ${r.error} (watching: retried on the next save)`) + '\n');
          if (opts.json) io.stdout.write(JSON.stringify(jsonRecord(r)) + '\n');
        } else if (isSkip(r)) say(skipLine(r), jsonRecord(r));
        else {
          if (opts.inPlace && r.status === 'written') wrote.set(abs, hash(await readFile(abs)));
          say(reportLine(r), jsonRecord(r));
        }
      }
    } catch (err) {
      io.stderr.write(
        printable(`dlg-compact: ${relative(io.cwd, abs)}: ${err instanceof Error ? err.message : String(err)} (watching: retried on the next save)`) + '\n',
      );
    } finally {
      busy.delete(abs);
      if (again.delete(abs)) schedule(abs);
    }
  };
  const schedule = (p: string) => {
    const abs = resolve(io.cwd, p);
    clearTimeout(timers.get(abs));
    timers.set(
      abs,
      setTimeout(() => {
        timers.delete(abs);
        void handle(abs);
      }, WATCH_DEBOUNCE_MS),
    );
  };
  watcher.on('add', schedule);
  watcher.on('change', schedule);
  watcher.on('error', (err) => io.stderr.write(printable(`dlg-compact: watch error: ${err instanceof Error ? err.message : String(err)}`) + '\n'));

  await new Promise<void>((ready) => watcher.once('ready', () => ready()));
  io.stderr.write(printable(`dlg-compact: watching ${roots.map((r) => relative(io.cwd, r) || '.').join(', ')} (Ctrl-C to stop)`) + '\n');
  await new Promise<void>((stop) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      stop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  for (const t of timers.values()) clearTimeout(t);
  await watcher.close();
  io.stderr.write('dlg-compact: stopped watching\n');
  return 0;
}
