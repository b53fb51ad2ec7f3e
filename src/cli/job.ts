/**
 * One file's job and its outcome, as plain data: a job is built by the input planner, crosses
 * to a worker thread by structured cloning, and comes back as a report or a failure.
 */
import type { ClassTokens } from '../tokens/index.js';
import type { Policy } from '../dsl/render.js';
import type { SummarizeDialogRefusal } from '../strategies/refusal.js';
import type { CountLevel } from './counts.js';
import type { MicroSettings, Strategy, SummarySettings } from './options.js';

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
  /**
   * The output was derived from the input's name (`<stem>-comp.ipynb`, `--output-dir`): a
   * symbolic link there is refused rather than written through. An explicit `-o LINK` or
   * `--in-place` writes the link's target.
   */
  derived?: boolean;
  /** The input was named on the command line (standard input included), not found by a folder walk or a glob. */
  named?: boolean;
  /** The settings file this input used (as shown to the user), when there was one. */
  config?: string;
  policy: Partial<Policy>;
  /** `false`: flat outputs without the legend (`--no-legend`). */
  legend?: boolean;
  strategy: Strategy;
  summary?: SummarySettings;
  micro?: MicroSettings;
  /**
   * The token counts the report shows (counts.ts): `classes` (default; `--json`), `total` (the
   * text line) or `none` (`--quiet`). Below `classes`, the report's other counts are 0.
   */
  counts?: CountLevel;
}

/**
 * What happened to the output: `written`, `unchanged` (identical bytes already on disk, not
 * rewritten), `would write` (`--check`: missing or different on disk), `printed` (sent to
 * standard output), `would print` (`--check` with standard output), `over-budget` (written,
 * but the summarised dialog still counts more than `--max-tokens`).
 */
export type FileStatus = 'written' | 'over-budget' | 'unchanged' | 'would write' | 'printed' | 'would print';

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
  /**
   * What the output is: `flat` (one flat document, as a notebook or Markdown) or `dialog` (a
   * notebook of cells: `--mode dialog`, and the summary and micro strategies).
   */
  mode: 'flat' | 'dialog';
  /** The output's format: `ipynb` or `md` (Markdown, flat documents only). */
  format: 'ipynb' | 'md';
  messages: number;
  prompts: number;
  toolCalls: number;
  /** Tokens of the input dialog by class (`measureDialog`; only `total` unless the job's `counts` is `classes`). */
  before: ClassTokens;
  /**
   * Tokens of the output: the flat document's (`measureFlat`) or the output dialog's
   * (`measureDialog`); `null` when unknown (`--check` with an LLM summariser, never called).
   */
  after: ClassTokens | null;
  /**
   * File sizes in bytes: the input's and the output's (what is or would be written or printed;
   * the input's when nothing is written; `null` when unknown, as `after`).
   */
  bytes?: { before: number; after: number | null };
  /** Short text for the report line, in parentheses after the status (summary, micro, a fit). */
  note?: string;
  /** What `--max-tokens` chose and reached (`--strategy dsl` only). */
  fit?: FitOutcome;
  /** Why a summary was refused (the output is the dialog as it was). */
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

/** An input that was not processed: `skipped` says why (`an output of dlg-compact`). */
export interface FileSkip {
  index: number;
  path: string;
  skipped: string;
  /**
   * The input was named on the command line (not found by a folder walk or a glob): its
   * skip gets a report line; the others only with `--verbose` (the total counts them all).
   */
  named?: boolean;
}

/**
 * The outcome of {@link processFile}: a report, a failure or a skip (told apart by
 * `'error' in r` and `'skipped' in r`).
 */
export type FileResult = FileReport | FileFailure | FileSkip;

/** True when `r` is a failure (rather than a job, a skip or a report). */
export function isFailure(r: FileResult | FileJob): r is FileFailure {
  return 'error' in r;
}

/** True when `r` is a skipped input. */
export function isSkip(r: FileResult | FileJob): r is FileSkip {
  return 'skipped' in r;
}

/** What a `--max-tokens` fit of the DSL strategy chose and reached, for `--json`. */
export interface FitOutcome {
  /** The budget asked for (o200k_base tokens). */
  maxTokens: number;
  /** Tokens of the output as the budget counts them (at most `maxTokens`). */
  tokens: number;
  /** The scale of the base policy chosen, and its step (0 = the floor, 240 = unlimited). */
  scale: number;
  step: number;
  /** The smallest budget that holds the dialog's structure. */
  minTokens: number;
  /** Tokens of the evidence index in a flat output (0 when none). */
  indexTokens: number;
  /**
   * Cells (prompts in dialog mode) rendered one step above `step` with what that step left
   * below the next: the prompts first, the latest first. 0 when none.
   */
  raised: number;
}
