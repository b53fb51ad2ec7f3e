/**
 * The one vocabulary of refusals: why a compaction strategy left its input unchanged (SPEC §9:
 * history is never replaced by a failed, empty or non-shrinking summary), and which refusals
 * count as failures of a run.
 */

/**
 * Why a strategy kept its input as it was.
 * - `not-needed`: under the summary trigger (`floor(maxTokens * triggerRatio)`).
 * - `below-threshold`: auto-compaction's count is at or below its threshold.
 * - `nothing-to-summarize`: the head to condense holds only skipped cells.
 * - `summarizer-failed`: the summariser threw or rejected, or the run was aborted.
 * - `empty-summary`: the summary is not a string or is blank.
 * - `invalid-summary`: the summary holds the reply separator (the note would read back as a prompt).
 * - `not-shrinking`: the result would not count strictly fewer tokens.
 * - `dialog-changed`: the dialog's cells were changed while the summariser ran.
 */
export type Refusal =
  | 'not-needed'
  | 'below-threshold'
  | 'nothing-to-summarize'
  | 'summarizer-failed'
  | 'empty-summary'
  | 'invalid-summary'
  | 'not-shrinking'
  | 'dialog-changed';

/** Every {@link Refusal}, in the order of its definition. */
export const REFUSALS: readonly Refusal[] = Object.freeze([
  'not-needed',
  'below-threshold',
  'nothing-to-summarize',
  'summarizer-failed',
  'empty-summary',
  'invalid-summary',
  'not-shrinking',
  'dialog-changed',
] as const);

/** The refusals of the transcript-level summary (`summarizeCompaction`). */
export type SummaryRefusal = Extract<Refusal, 'not-needed' | 'summarizer-failed' | 'empty-summary' | 'not-shrinking'>;

/** The refusals of auto-compaction (`autoCompact`). */
export type AutoCompactRefusal = Extract<Refusal, 'below-threshold' | 'summarizer-failed' | 'empty-summary' | 'not-shrinking'>;

/** The refusals of the dialog-level summary (`summarizeDialog`): the summary's plus three. */
export type SummarizeDialogRefusal = SummaryRefusal | Extract<Refusal, 'nothing-to-summarize' | 'invalid-summary' | 'dialog-changed'>;

const FAILURES: ReadonlySet<string> = new Set<Refusal>(['summarizer-failed', 'invalid-summary', 'dialog-changed']);

/**
 * True when a refusal means the run failed (the summariser did not deliver a usable summary,
 * or the input changed under it): `summarizer-failed`, `invalid-summary`, `dialog-changed`.
 * The others say that the input needs no compaction or that one would not help; a command
 * reports them and carries on (the input is left as it was either way).
 */
export function isFailureRefusal(reason: Refusal): boolean {
  return FAILURES.has(reason);
}
