/**
 * One file's processing: read and parse the notebook, apply the job's strategy (the DSL forms,
 * SPEC §8; a summary or micro-compaction, SPEC §9), and write the output when its bytes change.
 * Runs in the main thread or in a worker thread (`--jobs N`).
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, relative } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DlgError } from '../errors.js';
import { decodeUtf8Node } from '../host/node.js';
import { dumpsIpynb, readsIpynb, readsIpynbBytes } from '../notebook/index.js';
import { FileAccessError, writeIfChanged, type WriteIfChangedResult } from '../notebook/files.js';
import { compactDialog, dlg2compact, fitDialog, fitFlatDocument, flatMemo, measureFlat, withFlatIndex } from '../dialog/compact.js';
import { FIT_STEPS, FitError, fitScale, type FitReport } from '../dialog/fit.js';
import { wrapFlat } from '../dsl/legend.js';
import { resolvePolicy, type Policy } from '../dsl/profile.js';
import { flatNotebook } from '../notebook/flat-notebook.js';
import { type ClassTokens, lenToks } from '../tokens/index.js';
import { Dialog } from '../dialog/dialog.js';
import type { TokenStats } from '../dialog/measure.js';
import { planDialogSummary, summarizeDialog, type SummarizeDialogOptions } from '../dialog/summarize.js';
import { dslSummarizer, httpDialogSummarizer, type DialogSummarizer } from '../dialog/summarizers.js';
import { microCompactDialog } from '../dialog/micro.js';
import { isFailureRefusal, type SummarizeDialogRefusal } from '../strategies/refusal.js';
import { countAfterPromptEdits, countDialog, countFlatBody, countInput, type CountLevel, type InputCounts } from './counts.js';
import { CliFileError, SummaryFailedError, fsError } from './errors.js';
import { OWN_OUTPUT_NOTE, dialogIsOwnOutput } from './own-output.js';
import type { FitOutcome, FileJob, FileReport, FileResult, MicroOutcome, SummaryOutcome } from './job.js';

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
  fit?: FitOutcome;
  /** A summary was written but the dialog still counts more than `--max-tokens`. */
  overBudget?: boolean;
}

/** What a strategy's run knows of its input: the counts the report needs, and whether it is large. */
interface Work {
  level: CountLevel;
  input: InputCounts;
  /** At least {@link RECLAIM_BYTES}: memory is reclaimed between phases. */
  large: boolean;
}

/** The summariser of a job: the LLM one when configured, else the offline DSL one. */
function jobSummarizer(job: FileJob): DialogSummarizer {
  const llm = job.summary?.llm;
  return llm ? httpDialogSummarizer({ baseUrl: llm.baseUrl, model: llm.model, apiKey: llm.apiKey }) : dslSummarizer(job.policy);
}

/**
 * `--strategy summary` on one parsed dialog. Runs `summarizeDialog` (with `--check` too when
 * the summariser is offline, since that is exact and sends nothing; with an LLM, `--check`
 * only plans, with `planDialogSummary`). A benign refusal (nothing to summarise) gives the
 * dialog as it is, so that the output is always there and always a notebook, like micro's
 * output with nothing to clear: the report says the summary was refused, and a file already
 * holding those bytes is left alone. Throws {@link SummaryFailedError} for failing refusals.
 */
async function runSummary(job: FileJob, dialog: Dialog, work: Work): Promise<Produced> {
  const before = work.input.stats.tokens;
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
    minSaving: s.minSaving,
  };
  const refused = (reason: SummarizeDialogRefusal): Produced => ({
    text: dumpsIpynb(dialog),
    after: before, // the dialog is left as it was
    note: `summary refused: ${reason}`,
    reason,
    summary: { summarizer: label, replaced: 0, ids: [] },
  });
  if (job.check && !summarizer.offline) {
    const plan = planDialogSummary(dialog, summarizer, options);
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
    if (!isFailureRefusal(reason)) return refused(reason);
    let why: string = reason;
    if (reason === 'summarizer-failed') {
      why = res.error instanceof Error ? res.error.message : String(res.error);
    } else if (reason === 'error-summary') {
      why = `the answer reads as an error message, not a summary: ${JSON.stringify((res.summary ?? '').slice(0, 120))}`;
    } else if (reason === 'invalid-summary') {
      why = 'the summary holds the reply separator, so the note would read back as a prompt';
    }
    throw new SummaryFailedError(`${job.name}: summary failed (${label}): ${why}`);
  }
  const n = res.replaced.length;
  return {
    text: dumpsIpynb(dialog),
    after: countDialog(dialog, work.level),
    note: `summary of ${plural(n, 'cell', 'cells')}${job.check ? `: ${idList(res.replaced)}` : ''}`,
    summary: { summarizer: label, replaced: n, ids: res.replaced },
    ...(res.overBudget ? { overBudget: true } : {}),
  };
}

/**
 * `--strategy micro` on one parsed dialog (`microCompactDialog`, also for `--check`: it is
 * exact and local). When nothing is cleared and the output is the input itself
 * (`--in-place`), the input is left alone (`text: null`) rather than rewritten in
 * normalised form.
 */
function runMicro(job: FileJob, dialog: Dialog, work: Work): Produced {
  const res = microCompactDialog(dialog, {
    keepRecent: job.micro?.keepRecent,
    keepTools: job.micro?.keepTools,
    profile: job.policy.profile === 'reference' ? 'reference' : 'clean',
  });
  const n = res.cleared.length;
  let note = `micro: ${plural(n, 'tool result', 'tool results')} cleared`;
  if (res.refused.length > 0) note += `, ${plural(res.refused.length, 'reply', 'replies')} left as is (could not be rewritten safely)`;
  const micro: MicroOutcome = {
    cleared: res.cleared.map((c) => ({ messageId: c.messageId, tool: c.tool })),
    refused: res.refused.map((r) => ({ messageId: r.messageId, reason: r.reason })),
  };
  const after = countAfterPromptEdits(dialog, work.level, work.input);
  if (!res.changed && job.target !== null && job.target === job.source) return { text: null, after, note, micro };
  return { text: dumpsIpynb(dialog), after, note, micro };
}

/** The input as seen from the output's folder (`null` for standard input). */
function sourcePath(job: FileJob): string | null {
  if (job.source === null) return null;
  return relative(job.target === null ? process.cwd() : dirname(job.target), job.source) || basename(job.source);
}

/** `--strategy dsl`: the flat document (as notebook or Markdown) or the compacted dialog. */
function runDsl(job: FileJob, dialog: Dialog, work: Work): Produced {
  const { level, input, large } = work;
  const { maxTokens, ...policy } = job.policy as Partial<Policy> & { maxTokens?: number };
  if (maxTokens !== undefined) return runFit(job, dialog, maxTokens, policy, work);
  if (job.mode === 'dialog') {
    // The dialog was parsed for this job alone and its stats are taken: compacting it in
    // place (rather than a clone) changes nothing the caller can see.
    const compacted = compactDialog(dialog, job.policy);
    if (large) reclaim(); // the compaction's scratch, before the notebook text is built
    return { text: dumpsIpynb(compacted), after: countAfterPromptEdits(compacted, level, input) };
  }
  return runFlat(job, { dialog }, work);
}

/**
 * The flat document of `flatDocument` (`--mode flat`, no budget): the body and its evidence
 * index, wrapped with the legend in the clean profile (unless --no-legend), which names the
 * source relative to the output's folder, as the summary note does; the report counts the body (`measureFlat`). The
 * dialog is taken out of `box` and dropped once rendered: the flat notebook needs only its
 * metadata and name (`shell`), so a large dialog's memory is free before the notebook text is
 * built.
 */
function renderFlat(job: FileJob, box: { dialog: Dialog | null }, level: CountLevel): { text: string; after: ClassTokens; shell: Dialog } {
  const dialog = box.dialog!;
  box.dialog = null;
  const p = resolvePolicy(job.policy);
  // The legend, and the index of what the cuts left out, come together (flatDocument's rule);
  // the index reads the replies and outputs the body parsed and viewed.
  const indexed = p.profile === 'clean' && job.legend !== false;
  const memo = indexed ? flatMemo() : undefined;
  const flat = level === 'classes' ? measureFlat(dialog, p, memo) : null;
  const body = flat === null ? dlg2compact(dialog, p, memo) : flat.text;
  const after = flat === null ? countFlatBody(body, level === 'none' ? 'none' : 'total') : flat.tokens;
  const text = indexed ? wrapFlat(withFlatIndex(dialog, body, undefined, memo), sourcePath(job)) : body;
  return { text, after, shell: new Dialog([], { metadata: dialog.metadata, name: dialog.name }) };
}

/** {@link renderFlat}, then the flat notebook's text (or the Markdown document). */
function runFlat(job: FileJob, box: { dialog: Dialog | null }, work: Work): Produced {
  const { text, after, shell } = renderFlat(job, box, work.level);
  if (job.to === 'md') return { text: text === '' ? '' : text + '\n', after };
  if (work.large) reclaim(); // the dialog and the rendering's scratch, before the notebook text is built
  return { text: dumpsIpynb(flatNotebook(shell, job.policy, text, { source: sourcePath(job) })), after };
}

/**
 * What a fit chose, for the report line and `--json` (`note`): the budget, how the latest turn's
 * budgets compare with the policy's (`latest budgets ×S`; `nothing cut` when the whole
 * rendering fits, `structure only` at the floor), how many cells the budget's rest raised one
 * step (`N cells ×S'`, prompts in dialog mode, S' the next step's scale) and the smallest budget that works. The
 * tokens reached are the line's "after".
 */
function fitNote(r: FitReport, unit: 'cell' | 'prompt' = 'cell'): string {
  const x = (step: number): string => `×${Number(fitScale(step).toPrecision(3))}`;
  const chosen = r.step >= FIT_STEPS ? 'nothing cut' : r.step <= 0 ? 'structure only' : `latest budgets ${x(r.step)}`;
  const raised = r.raised > 0 && r.step < FIT_STEPS ? ` (${r.raised} ${unit}${r.raised === 1 ? '' : 's'} ${x(r.step + 1)})` : '';
  return `fit into --max-tokens ${r.maxTokens}: ${chosen}${raised}, minimum ${r.minTokens} tokens`;
}

/** The `--json` record's `fit`: what the fit chose and reached. */
function fitOutcome(r: FitReport): FitOutcome {
  return {
    maxTokens: r.maxTokens,
    tokens: r.tokens,
    scale: Number(r.scale.toPrecision(6)),
    step: r.step,
    minTokens: r.minTokens,
    indexTokens: r.indexTokens,
    raised: r.raised,
  };
}

/**
 * `--strategy dsl --max-tokens N`: the flat document (legend included) or the dialog fitted into
 * N tokens. A budget below what the dialog's structure needs fails the file, naming the file, the
 * flag and the smallest budget that works.
 */
function runFit(job: FileJob, dialog: Dialog, maxTokens: number, policy: Partial<Policy>, work: Work): Produced {
  try {
    return fitInto(job, dialog, maxTokens, policy, work);
  } catch (err) {
    if (!(err instanceof FitError)) throw err;
    // Dialog mode cuts prompts only: its minimum holds every note, code cell and output whole.
    const why = job.mode === 'dialog' ? ' (dialog mode keeps notes, code cells and their outputs whole; --mode flat cuts them too)' : '';
    throw new CliFileError(
      `${job.name}: --max-tokens ${maxTokens} is below the ${err.minTokens} tokens this dialog needs to keep its structure; use --max-tokens ${err.minTokens} or more${why}`,
      { cause: err },
    );
  }
}

function fitInto(job: FileJob, dialog: Dialog, maxTokens: number, policy: Partial<Policy>, work: Work): Produced {
  if (job.mode === 'dialog') {
    const report = fitDialog(dialog, maxTokens, policy);
    return { text: dumpsIpynb(dialog), after: countAfterPromptEdits(dialog, work.level, work.input), note: fitNote(report, 'prompt'), fit: fitOutcome(report) };
  }
  const source = sourcePath(job);
  const legend = resolvePolicy(policy).profile === 'clean' && job.legend !== false;
  const wrap = legend ? (body: string, brief = false) => wrapFlat(body, source, brief) : undefined;
  const fitted = (n: number): { text: string; report: FitReport } => {
    try {
      return fitFlatDocument(dialog, n, policy, wrap, legend);
    } catch (err) {
      // A Markdown file also holds its final newline: name the smallest budget that holds both.
      if (!(err instanceof FitError) || job.to !== 'md') throw err;
      const floor = fitFlatDocument(dialog, err.minTokens, policy, wrap, legend).text;
      throw new FitError(err.message, floor === '' ? err.minTokens : lenToks(`${floor}\n`));
    }
  };
  let { text, report } = fitted(maxTokens);
  if (job.to === 'md' && text !== '') {
    // A Markdown file ends with a newline, which can add a token: fit one token tighter then.
    // Its smallest budget counts the newline too (the document's last line is the same at every step).
    const newline = lenToks(`${text}\n`) - report.tokens;
    if (maxTokens > 0 && newline > 0 && report.tokens + newline > maxTokens) ({ text, report } = fitted(maxTokens - 1));
    report = { ...report, maxTokens, tokens: lenToks(`${text}\n`), minTokens: report.minTokens + newline };
  }
  // The fitted pieces by class; the total is the whole document's, as the budget counts it.
  const after = { ...(report.byClass ?? { user: 0, assistant: 0, calls: 0, results: 0, code: 0 }), total: report.tokens };
  const note = fitNote(report);
  const fit = fitOutcome(report);
  if (job.to === 'md') return { text: text === '' ? '' : text + '\n', after, note, fit };
  return { text: dumpsIpynb(flatNotebook(dialog, policy, text, { source })), after, note, fit };
}

/**
 * Inputs of at least this many bytes have the memory of each phase reclaimed before the next:
 * each reclaim is a full garbage collection, whose cost grows with the live heap, and a smaller
 * input leaves too little behind for it to pay.
 */
const RECLAIM_BYTES = 8 * 1024 * 1024;

let collector: (() => void) | null | undefined;

/**
 * Reclaim the memory of what a phase left behind (a full garbage collection), so that the peak
 * memory of a large input is that of its largest phase rather than of all of them together.
 * Nothing happens where the engine does not offer it.
 */
function reclaim(): void {
  if (collector === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('gc');
      collector = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      collector = null;
    }
  }
  collector?.();
}

/**
 * `seededIds(bytes)` with the engine's native SHA-256: the same ids (test/cli-counts.test.ts),
 * without hashing a large input in JavaScript.
 */
export function nativeSeededIds(bytes: Uint8Array): () => string {
  const seed = createHash('sha256').update(bytes).digest('hex');
  let k = 0;
  return () => createHash('sha256').update(`${seed}:${k++}`, 'utf8').digest('hex').slice(0, 8);
}

/**
 * The input's text, decoded as strict UTF-8 as `readsIpynbBytes` does (a byte order mark is
 * kept), and the id source seeded by its bytes. The bytes are released (`held.bytes = null`)
 * unless they are not valid UTF-8 (`text: null`), so they are gone before the text is parsed.
 * Below {@link RECLAIM_BYTES} Node's transcoder decodes (about twice as fast on notebooks,
 * through a UTF-16 copy of the text); a large input is decoded straight into its string, so
 * that the copy never adds to the peak memory.
 */
function decodeInput(held: { bytes: Uint8Array | null }): { text: string | null; newId: () => string } {
  const bytes = held.bytes!;
  const newId = nativeSeededIds(bytes);
  if (!isUtf8(bytes)) return { text: null, newId };
  held.bytes = null;
  const fast = bytes.length < RECLAIM_BYTES ? decodeUtf8Node(bytes) : undefined;
  return { text: fast ?? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), newId };
}

/** The input's dialog (`readsIpynbBytes` of its bytes, which `held` gives up). */
function parseInput(job: FileJob, held: { bytes: Uint8Array | null }): Dialog {
  const { text, newId } = decodeInput(held);
  // Invalid UTF-8: the reader of bytes says where, in its own words.
  if (text === null) return readsIpynbBytes(held.bytes!, job.name, { newId });
  return readsIpynb(text, job.name, { newId });
}

/** What the strategy made of one input, or why it was skipped (the dialog itself is dropped). */
type Outcome = { skipped: string } | { stats: TokenStats; produced: Produced };

/**
 * Parse the input and apply the job's strategy. The input's bytes are taken from `held` and
 * released once decoded, and the dialog lives only in this function: on a large input the
 * memory of each phase can be reclaimed before the next (see {@link reclaim}).
 */
async function compactInput(job: FileJob, held: { bytes: Uint8Array | null }): Promise<Outcome> {
  const box: { dialog: Dialog | null } = { dialog: null };
  const work = prepare(job, held, box);
  if (work === null) return { skipped: OWN_OUTPUT_NOTE };
  // Only the box holds the dialog on the way to the flat rendering, which drops it.
  if (job.strategy === 'dsl' && job.mode === 'flat' && (job.policy as { maxTokens?: number }).maxTokens === undefined) {
    return { stats: work.input.stats, produced: runFlat(job, box, work) };
  }
  const dialog = box.dialog!;
  const produced =
    job.strategy === 'summary' ? await runSummary(job, dialog, work) : job.strategy === 'micro' ? runMicro(job, dialog, work) : runDsl(job, dialog, work);
  return { stats: work.input.stats, produced };
}

/**
 * Parse the input into `box` and count what the report needs; `null` when the input is an
 * output of this command (a flat notebook: metadata naming dlg-compact, whatever its name).
 */
function prepare(job: FileJob, held: { bytes: Uint8Array | null }, box: { dialog: Dialog | null }): Work | null {
  const large = held.bytes!.length >= RECLAIM_BYTES;
  const dialog = parseInput(job, held);
  box.dialog = dialog;
  if (dialogIsOwnOutput(dialog)) return null;
  if (large) reclaim(); // the text and the parsed JSON tree
  const level = job.counts ?? 'classes';
  return { level, input: countInput(dialog, level), large };
}

/**
 * The bytes of an input file. A regular file is read at once on this thread (a few system
 * calls, where the pool's open, stat, read and close would be four round trips, each leaving
 * this thread waiting); anything else (a pipe such as `<(cat x.ipynb)`, whose writer may not
 * have opened it yet), or a path that cannot be looked at, is read in the pool, so that it never
 * blocks the other files in flight and fails with the read's own error.
 */
async function readInput(path: string): Promise<Uint8Array> {
  let regular = false;
  try {
    regular = statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    // the read below fails with the error the report words
  }
  return regular ? readFileSync(path) : await readFile(path);
}

/** What {@link processFile} tells its caller while it works. */
export interface ProcessHooks {
  /**
   * The output's bytes are made and are about to be compared with the file on disk and
   * written: what is left of the job is mostly waiting for the file system (creating the
   * temporary file, the flush before the rename), so another file's work can start. Not called
   * for a job that fails or writes nothing (standard output, a skipped own output).
   */
  writing?: () => void;
}

/**
 * Process one file: read and parse the notebook (invalid UTF-8 and malformed notebooks throw
 * `NotebookError` naming file and cell), compact it with the job's strategy, compare with what
 * is on disk, and write atomically unless identical or `job.check` (`writeIfChanged`).
 * Summarisers are built here from the job's plain settings (jobs cross to worker threads by
 * structured cloning). Cells without an id get ids seeded by the input's bytes (`seededIds`).
 * Never throws: errors come back as a {@link FileFailure} whose message names the file
 * (a failed summariser included); unexpected (non-{@link DlgError}) errors are prefixed
 * "unexpected error". Token counts: o200k_base tokens. `hooks.writing` marks the start of the
 * write (see {@link ProcessHooks}).
 */
export async function processFile(job: FileJob, hooks: ProcessHooks = {}): Promise<FileResult> {
  try {
    let bytes: Uint8Array;
    if (job.source === null) bytes = job.bytes ?? new Uint8Array();
    else {
      try {
        bytes = await readInput(job.source);
      } catch (err) {
        throw fsError('read', job.path, err);
      }
    }
    if (bytes.length === 0 || (/^\s*$/.test(Buffer.from(bytes.subarray(0, 4096)).toString('latin1')) && bytes.length <= 4096)) {
      throw new CliFileError(`${job.name}: empty file, not a notebook (${bytes.length === 0 ? '0 bytes' : 'only white space'})`);
    }
    const size = bytes.length;
    // Written over itself (--in-place): the bytes read are what the output is compared with.
    const current = job.target !== null && job.target === job.source ? bytes : undefined;
    const held: { bytes: Uint8Array | null } = { bytes };
    bytes = new Uint8Array();
    const outcome = await compactInput(job, held);
    if ('skipped' in outcome) return { index: job.index, path: job.path, skipped: outcome.skipped, named: job.named };
    const { stats, produced } = outcome;
    const { text, after, note, reason, summary, micro, fit, overBudget } = produced;
    if (size >= RECLAIM_BYTES) reclaim(); // the dialog and the work on it: only the output is left
    const base: FileReport = {
      index: job.index,
      path: job.path,
      output: job.output,
      status: 'unchanged',
      strategy: job.strategy,
      mode: job.strategy === 'dsl' ? job.mode : 'dialog',
      format: job.strategy === 'dsl' && job.mode === 'flat' ? job.to : 'ipynb',
      messages: stats.messages,
      prompts: stats.prompts,
      toolCalls: stats.toolCalls,
      before: stats.tokens,
      after,
      bytes: { before: size, after: after === null ? null : text === null ? size : Buffer.byteLength(text, 'utf8') },
      ...(note !== undefined ? { note } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(summary !== undefined ? { summary } : {}),
      ...(micro !== undefined ? { micro } : {}),
      ...(fit !== undefined ? { fit } : {}),
    };
    if (job.target === null) {
      if (text === null) return base;
      return job.check ? { ...base, status: 'would print' } : { ...base, status: 'printed', text };
    }
    if (text === null) return base;
    if (after === null) return { ...base, status: 'would write' }; // --check, unpredictable output
    let written: WriteIfChangedResult;
    hooks.writing?.();
    try {
      written = await writeIfChanged(job.target, text, {
        current,
        dryRun: job.check,
        symlinks: job.derived === true ? 'refuse' : 'follow',
        mkdir: true,
      });
    } catch (err) {
      if (err instanceof FileAccessError) throw fsError(err.operation, job.output, err.cause);
      throw err;
    }
    if (written === 'unchanged') return base;
    return { ...base, status: written === 'written' && overBudget ? 'over-budget' : written };
  } catch (err) {
    if (err instanceof DlgError) return { index: job.index, path: job.path, error: err.message };
    const msg = err instanceof Error ? err.message : String(err);
    if (process.env.DLG_COMPACT_DEBUG && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    return { index: job.index, path: job.path, error: `${job.name}: unexpected error: ${msg}` };
  }
}
