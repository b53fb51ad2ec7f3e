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
 * - `error-summary`: the summariser's answer reads as an error message (`Error generating
 *   summary: …`, `Internal Server Error`, an `{"error": …}` object), not a summary
 *   ({@link looksLikeErrorAnswer}).
 * - `not-shrinking`: the result would not count strictly fewer tokens (for a dialog: would
 *   not save at least the minimum share, `minSaving`).
 * - `dialog-changed`: the dialog's cells were changed while the summariser ran.
 */
export type Refusal =
  | 'not-needed'
  | 'below-threshold'
  | 'nothing-to-summarize'
  | 'summarizer-failed'
  | 'empty-summary'
  | 'invalid-summary'
  | 'error-summary'
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
  'error-summary',
  'not-shrinking',
  'dialog-changed',
] as const);

/** The refusals of the transcript-level summary (`summarizeCompaction`). */
export type SummaryRefusal = Extract<Refusal, 'not-needed' | 'summarizer-failed' | 'empty-summary' | 'error-summary' | 'not-shrinking'>;

/** The refusals of auto-compaction (`autoCompact`). */
export type AutoCompactRefusal = Extract<Refusal, 'below-threshold' | 'summarizer-failed' | 'empty-summary' | 'error-summary' | 'not-shrinking'>;

/** The refusals of the dialog-level summary (`summarizeDialog`): the summary's plus three. */
export type SummarizeDialogRefusal = SummaryRefusal | Extract<Refusal, 'nothing-to-summarize' | 'invalid-summary' | 'error-summary' | 'dialog-changed'>;

const FAILURES: ReadonlySet<string> = new Set<Refusal>(['summarizer-failed', 'invalid-summary', 'error-summary', 'dialog-changed']);

/**
 * True when a refusal means the run failed (the summariser did not deliver a usable summary,
 * or the input changed under it): `summarizer-failed`, `invalid-summary`, `error-summary`,
 * `dialog-changed`.
 * The others say that the input needs no compaction or that one would not help; a command
 * reports them and carries on (the input is left as it was either way).
 */
export function isFailureRefusal(reason: Refusal): boolean {
  return FAILURES.has(reason);
}

// How error answers start: a summariser (or a proxy in front of it) that fails may still
// answer HTTP 200 with one of these as its "summary".
const ERROR_START =
  /^(?:error\b|errors?:|exception\b|traceback \(most recent call last\)|fatal\b|failed to\b|failure\b|an? (?:unexpected |internal )?error\b|internal server error\b|bad gateway\b|service unavailable\b|gateway time-?out\b|rate limit|too many requests\b|request failed\b|unable to generate\b|could not generate\b|\d{3} (?:bad|internal|service|too|unauthorized|forbidden|not found)\b|i'?m sorry, (?:but )?(?:an error|something went wrong|i (?:can'?t|cannot|am unable|was unable)))/i;
const ERROR_JSON = /^\{\s*"(?:error|detail|message)"\s*:/;

/**
 * True when a summariser's answer reads as an error message rather than a summary: its first
 * line (after white space, Markdown emphasis and heading marks) starts like an error
 * (`Error generating summary: …`, `Traceback (most recent call last):`, `Internal Server
 * Error`, `Rate limit exceeded`, `I'm sorry, but an error occurred`), or the answer is a JSON
 * `{"error": …}` object. Deterministic and linear.
 */
export function looksLikeErrorAnswer(text: string): boolean {
  if (typeof text !== 'string') return false;
  const t = text.trimStart();
  if (ERROR_JSON.test(t)) return true;
  const nl = t.indexOf('\n');
  const first = (nl < 0 ? t : t.slice(0, nl)).replace(/^[#>*_`\s]+/, '');
  return ERROR_START.test(first);
}
