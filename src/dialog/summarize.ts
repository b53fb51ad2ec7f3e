/**
 * Summary compaction of a dialog (SPEC §9 "Summary planning" on the dialog model of SPEC §7):
 * the older cells are replaced by ONE note cell holding a summary, the recent cells stay
 * verbatim.
 *
 * The planner is `planSummarySplit` with the dialog's cells (skipped ones included) as items,
 * so the split falls on a cell boundary and no tool call is separated from its result; pinned
 * cells play the system prompt's part (never summarised; those of the head are hoisted before
 * the note). Skipped cells of the head are replaced too but never sent to the summariser.
 * Cells are counted with the one dialog measure (`messageContextTokens`, `measure.ts`). A
 * failed, empty, invalid or non-shrinking summary never replaces history: the dialog is only
 * modified (its `messages` array swapped) once every check has passed.
 */
import { TRANSCRIPT_MARKER } from '../dsl/continuation.js';
import { REPLY_SEPARATOR } from '../chat/index.js';
import type { DialogLike as Dialog, MessageLike } from './cells.js';
import { checkOutputs, requireDialog } from './cell-errors.js';
import { Message } from './message.js';
import { countCell, messageContextTokens, type CellTokenCounter } from './measure.js';
import { INDEX_HEADING, SUMMARY_META_KEY, isSummaryNote, noteAttachments, noteBody, noteHeader, replacedIndex } from './summary-note.js';
import { dslSummarizer, type DialogSummarizer } from './summarizers.js';
import { InvalidArgumentError } from '../errors.js';
import { pyStrip } from '../python/index.js';
import { looksLikeErrorAnswer, type SummarizeDialogRefusal } from '../strategies/refusal.js';
import { DEFAULT_MIN_SAVING, KEEP_RECENT_MIN, KEEP_RECENT_RATIO } from '../strategies/defaults.js';
import { planSummarySplit } from '../strategies/summary.js';
import { checkSignal, untilAborted } from '../strategies/summarizer.js';
import { checkCounterOption } from '../tokens/index.js';

export { SUMMARY_META_KEY } from './summary-note.js';

/**
 * What a summary note's metadata holds under {@link SUMMARY_META_KEY} (snake_case, as
 * notebook metadata usually is):
 * - `kind`: always `"summary"`;
 * - `replaced`: number of cells the note replaced;
 * - `ids`: their ids, in their original order (skipped cells included);
 * - `skipped_ids`: those of them that were skipped (never sent to the summariser);
 * - `source`: path of the full original dialog (`options.sourcePath`), or `null`;
 * - `summarizer`: the summariser's label (`"dsl"`, `"http:MODEL"`), or `null`;
 * - `tokens_before` / `tokens_after`: the whole dialog's count before and after, with the
 *   counter used (o200k_base tokens of the AI-visible text by default).
 */
export interface DialogSummaryMeta {
  kind: 'summary';
  replaced: number;
  ids: string[];
  skipped_ids: string[];
  source: string | null;
  summarizer: string | null;
  tokens_before: number;
  tokens_after: number;
}

/**
 * Options of {@link summarizeDialog} / {@link planDialogSummary}.
 * - `maxTokens`: the dialog's token budget (required unless `force`); compaction fires when
 *   the count reaches `floor(maxTokens * triggerRatio)`.
 * - `triggerRatio`: default 0.9.
 * - `keepRecent`: cells kept verbatim at the end (integer >= 0); default
 *   `max(2, ceil(n * 0.25))` of the n cells. The newest prompt (with its reply) and every cell
 *   after it are kept whatever this says.
 * - `minSaving`: the least share of the dialog's count a summary must save to be accepted
 *   (a number in [0, 1); default 0.1); a summary that saves less is refused `not-shrinking`.
 * - `index`: end the note with the deterministic index of what it replaced (tool calls with
 *   short arguments and exit states, code cells, paths touched), counted in the note; default:
 *   for every summariser but an offline one (the DSL summary already lists the calls).
 * - `countTokens`: per-cell counter (default {@link messageContextTokens}).
 * - `force`: compact even below the trigger (the count rules still apply: at least 4 cells,
 *   something to summarise).
 * - `sourcePath`: path of the full original, recorded in the note (metadata and a closing line).
 * - `maxRequestTokens`: request budget handed to the summariser (o200k_base tokens).
 * - `signal`: cancels the summariser's request; an aborted run is refused at once
 *   (`summarizer-failed`, `error` = the signal's reason), even if the summariser ignores the
 *   signal and never settles.
 */
export interface SummarizeDialogOptions {
  maxTokens?: number;
  triggerRatio?: number;
  keepRecent?: number;
  countTokens?: CellTokenCounter;
  force?: boolean;
  sourcePath?: string | null;
  maxRequestTokens?: number;
  signal?: AbortSignal;
  minSaving?: number;
  index?: boolean;
}

export { DEFAULT_MIN_SAVING } from '../strategies/defaults.js';

/** Result of {@link summarizeDialog}. Token counts are in the counter's unit. */
export interface SummarizeDialogResult {
  changed: boolean;
  /** Set when `changed` is false. */
  reason?: SummarizeDialogRefusal;
  /** The summariser's error when `reason` is `summarizer-failed`. */
  error?: unknown;
  /** Ids of the cells the summary note replaced (empty when unchanged). */
  replaced: string[];
  /** Id of the new summary note (when changed). */
  summaryId?: string;
  /** The dialog's count before. */
  tokensBefore: number;
  /** The dialog's count after (equal to `tokensBefore` when unchanged). */
  tokensAfter: number;
  /** With `not-shrinking`: the count the refused summary would have given. */
  rejectedTokens?: number;
  /** The summary text as placed in the note (also reported with `not-shrinking`). */
  summary?: string;
  /** True when changed and the result still counts more than `maxTokens` (report it: `over-budget`). */
  overBudget?: boolean;
}

/** The planning half of a summary run, shared by {@link summarizeDialog} and {@link planDialogSummary}. */
interface Prepared {
  ok: boolean;
  reason?: SummarizeDialogRefusal;
  counts: number[];
  tokensBefore: number;
  hoisted: number[];
  head: number[];
  tail: number[];
  headDialog?: Dialog;
  /** The messages array and its contents when planned (to detect changes made meanwhile). */
  array: MessageLike[];
  snapshot: MessageLike[];
}

/**
 * A dialog of `cells` of the same class as `dialog` (its constructor is called as `Dialog`'s
 * is: `(messages, {name})`); a plain {@link Dialog}-shaped object when `dialog` is one.
 */
function headOf(dialog: Dialog, cells: MessageLike[]): Dialog {
  const Ctor = dialog.constructor;
  if (typeof Ctor === 'function' && Ctor !== Object) {
    return new (Ctor as new (messages: MessageLike[], init: { name: string }) => Dialog)(cells, { name: dialog.name });
  }
  const head: Dialog = { messages: cells, metadata: {}, name: dialog.name, newId: (taken) => dialog.newId(taken) };
  return head;
}

function checkOptions(options: unknown, where: string): SummarizeDialogOptions {
  const o = (options ?? {}) as SummarizeDialogOptions;
  if (typeof o !== 'object' || Array.isArray(o)) throw new InvalidArgumentError(`${where}: options must be an object`);
  if (o.maxTokens === undefined && !o.force) {
    throw new InvalidArgumentError(`${where}: maxTokens is required (or pass force: true)`);
  }
  checkSignal(o.signal, where);
  checkCounterOption(o.countTokens, where);
  if (o.sourcePath !== undefined && o.sourcePath !== null && typeof o.sourcePath !== 'string') {
    throw new InvalidArgumentError(`${where}: sourcePath must be a string or null`);
  }
  if (o.maxRequestTokens !== undefined && (!Number.isSafeInteger(o.maxRequestTokens) || o.maxRequestTokens <= 0)) {
    throw new InvalidArgumentError(`${where}: maxRequestTokens must be a positive integer, got ${String(o.maxRequestTokens)}`);
  }
  if (o.minSaving !== undefined && (typeof o.minSaving !== 'number' || !(o.minSaving >= 0 && o.minSaving < 1))) {
    throw new InvalidArgumentError(`${where}: minSaving must be a number in [0, 1), got ${String(o.minSaving)}`);
  }
  if (o.index !== undefined && typeof o.index !== 'boolean') throw new InvalidArgumentError(`${where}: index must be a boolean`);
  return o;
}

function prepare(dialog: Dialog, o: SummarizeDialogOptions, where: string): Prepared {
  requireDialog(dialog, where);
  checkOutputs(dialog);
  const ms = dialog.messages;
  const counter = o.countTokens ?? messageContextTokens;
  const counts: number[] = new Array(ms.length);
  for (let i = 0; i < ms.length; i++) counts[i] = countCell(counter, ms[i]!, where);
  const n = ms.length;
  // The newest prompt and its reply are never summarised (nor anything after them).
  let lastPrompt = -1;
  for (let i = n - 1; i >= 0 && lastPrompt < 0; i--) if (ms[i]!.type === 'prompt') lastPrompt = i;
  let keepRecent = o.keepRecent ?? Math.max(KEEP_RECENT_MIN, Math.ceil(n * KEEP_RECENT_RATIO));
  if (lastPrompt >= 0) keepRecent = Math.max(keepRecent, n - lastPrompt);
  const plan = planSummarySplit(
    ms.map((_, i) => i),
    {
      maxTokens: o.maxTokens ?? 0,
      keepRecentCount: keepRecent,
      triggerRatio: o.triggerRatio,
      countTokens: (i) => counts[i]!,
      isPinned: (i) => ms[i]!.pinned,
      force: o.force,
    },
  );
  const base: Prepared = { ok: false, counts, tokensBefore: plan.estimatedTokens, hoisted: [], head: [], tail: [], array: ms, snapshot: ms.slice() };
  if (!plan.shouldCompact) return { ...base, reason: 'not-needed' };
  // The planner keeps [pinned cells of the head..., tail...]; the tail starts at the cut.
  const cut = n - keepRecent;
  const hoisted = plan.keep.filter((i) => i < cut);
  const tail = plan.keep.filter((i) => i >= cut);
  const head = plan.summarize;
  const visible = head.filter((i) => !ms[i]!.skipped);
  if (visible.length === 0) return { ...base, hoisted, head, tail, reason: 'nothing-to-summarize' };
  // An earlier summary note goes to the summariser as its summary alone (no header, index or
  // transcript line), so the new note folds it in once instead of nesting it whole.
  const headDialog = headOf(
    dialog,
    visible.map((i) => {
      const c = ms[i]!.clone();
      if (isSummaryNote(c)) c.content = noteBody(c.content);
      return c;
    }),
  );
  return { ...base, ok: true, hoisted, head, tail, headDialog };
}

/** True when `dialog.messages` is still the array, with the same cells, that was planned. */
function unchangedSince(dialog: Dialog, prep: Prepared): boolean {
  const ms = dialog.messages;
  if (ms !== prep.array || ms.length !== prep.snapshot.length) return false;
  for (let i = 0; i < ms.length; i++) if (ms[i] !== prep.snapshot[i]) return false;
  return true;
}

interface Finished {
  ok: boolean;
  reason?: SummarizeDialogRefusal;
  messages?: MessageLike[];
  note?: Message;
  tokensAfter?: number;
  summary?: string;
}

/**
 * The checking half: build the note and the new cell list, or say why not. `noteId` gives the
 * note's id (a fresh one for a run; a fixed one when only planning, so that planning does not
 * draw from the dialog's id source).
 */
function finish(
  dialog: Dialog,
  prep: Prepared,
  text: unknown,
  o: SummarizeDialogOptions,
  sum: { label?: string; offline?: boolean },
  noteId: () => string,
  where: string,
): Finished {
  if (typeof text !== 'string' || pyStrip(text) === '') return { ok: false, reason: 'empty-summary' };
  if (looksLikeErrorAnswer(text)) return { ok: false, reason: 'error-summary', summary: pyStrip(text) };
  const label = sum.label ?? null;
  const ms = dialog.messages;
  const source = o.sourcePath ?? null;
  const replaced = prep.head.map((i) => ms[i]!);
  let content = noteHeader(prep.head.length) + pyStrip(text);
  if (o.index ?? !sum.offline) {
    // At most a fifth of the budget (or 1000 tokens without one) goes to the index.
    const room = o.maxTokens === undefined ? 1000 : Math.max(0, Math.floor(o.maxTokens / 5));
    const index = replacedIndex(replaced, room);
    if (index !== '') content += INDEX_HEADING + index;
  }
  if (source !== null) content += `${TRANSCRIPT_MARKER} ${source}`;
  if (content.includes(REPLY_SEPARATOR)) return { ok: false, reason: 'invalid-summary', summary: content };
  const withFiles = noteAttachments(content, replaced);
  content = withFiles.content;
  const counter = o.countTokens ?? messageContextTokens;
  const note = new Message(content, { type: 'note', id: noteId(), attachments: withFiles.attachments });
  let after = countCell(counter, note, where);
  for (const i of prep.hoisted) after += prep.counts[i]!;
  for (const i of prep.tail) after += prep.counts[i]!;
  // Accepted only when it saves at least the minimum share of the count (the one measure).
  const least = Math.max(1, Math.ceil(prep.tokensBefore * (o.minSaving ?? DEFAULT_MIN_SAVING)));
  if (prep.tokensBefore - after < least) return { ok: false, reason: 'not-shrinking', tokensAfter: after, summary: content };
  const meta: DialogSummaryMeta = {
    kind: 'summary',
    replaced: prep.head.length,
    ids: prep.head.map((i) => ms[i]!.id),
    skipped_ids: prep.head.filter((i) => ms[i]!.skipped).map((i) => ms[i]!.id),
    source,
    summarizer: label,
    tokens_before: prep.tokensBefore,
    tokens_after: after,
  };
  note.meta = { [SUMMARY_META_KEY]: meta as unknown as Record<string, unknown> };
  const messages = [...prep.hoisted.map((i) => ms[i]!), note, ...prep.tail.map((i) => ms[i]!)];
  return { ok: true, messages, note, tokensAfter: after, summary: content };
}

/** Share of `maxTokens` a summarised dialog aims at, so that new turns still fit after it. */
const SUMMARY_TARGET = 0.5;

/**
 * Room for the summary text: half the budget minus the cells that stay and the note's header
 * (at least 1); `undefined` without a budget.
 */
function summaryRoom(prep: Prepared, o: SummarizeDialogOptions): number | undefined {
  if (o.maxTokens === undefined) return undefined;
  let kept = 20; // the note's header and transcript line
  for (const i of prep.hoisted) kept += prep.counts[i]!;
  for (const i of prep.tail) kept += prep.counts[i]!;
  return Math.max(1, Math.floor(o.maxTokens * SUMMARY_TARGET) - kept);
}

function refusal(prep: Prepared, reason: SummarizeDialogRefusal, extra: Partial<SummarizeDialogResult> = {}): SummarizeDialogResult {
  return { changed: false, reason, replaced: [], tokensBefore: prep.tokensBefore, tokensAfter: prep.tokensBefore, ...extra };
}

/**
 * Replace the older cells of a dialog by one summary note (see the module note for the
 * rules). Steps: plan with `planSummarySplit` (cells as items, pinned cells as instructions);
 * ask the summariser for a summary of the head's non-skipped cells; build the note
 * (`[Conversation summary - N earlier cell(s) condensed]`, the stripped summary, and when
 * `sourcePath` is given the line `If further detail is needed, read the complete transcript
 * at: PATH`) with a fresh unique id and {@link DialogSummaryMeta} metadata; check that the
 * dialog's count shrinks by at least `minSaving` (default 10%); then swap `dialog.messages` for
 * `[hoisted pinned cells, note, tail]`.
 *
 * On any refusal (see {@link SummarizeDialogRefusal}) the dialog is left exactly as it was.
 * @param dialog the dialog (modified only on success).
 * @param summarizer default {@link dslSummarizer}().
 * @param options see {@link SummarizeDialogOptions}.
 * @returns a {@link SummarizeDialogResult}.
 * @throws InvalidArgumentError on bad arguments or a counter returning a non-integer; never
 *   for summariser failures (those are refusals).
 */
export async function summarizeDialog(dialog: Dialog, summarizer?: DialogSummarizer | null, options?: SummarizeDialogOptions): Promise<SummarizeDialogResult> {
  const where = 'summarizeDialog';
  const o = checkOptions(options, where);
  const sum = summarizer ?? dslSummarizer();
  if (typeof sum !== 'function') throw new InvalidArgumentError(`${where}: summarizer must be a function`);
  const prep = prepare(dialog, o, where);
  if (!prep.ok) return refusal(prep, prep.reason!);
  let text: unknown;
  try {
    text = await untilAborted(
      () =>
        sum(prep.headDialog!, {
          maxRequestTokens: o.maxRequestTokens,
          signal: o.signal,
          sourcePath: o.sourcePath ?? null,
          maxSummaryTokens: summaryRoom(prep, o),
        }),
      o.signal,
    );
  } catch (error) {
    return refusal(prep, 'summarizer-failed', { error });
  }
  if (!unchangedSince(dialog, prep)) return refusal(prep, 'dialog-changed');
  const fin = finish(dialog, prep, text, o, sum, () => dialog.newId(), where);
  if (!fin.ok) {
    const extra: Partial<SummarizeDialogResult> = {};
    if (fin.reason === 'not-shrinking') extra.rejectedTokens = fin.tokensAfter;
    if (fin.summary !== undefined) extra.summary = fin.summary;
    return refusal(prep, fin.reason!, extra);
  }
  const replaced = prep.head.map((i) => dialog.messages[i]!.id);
  dialog.messages = fin.messages!;
  return {
    changed: true,
    replaced,
    summaryId: fin.note!.id,
    tokensBefore: prep.tokensBefore,
    tokensAfter: fin.tokensAfter!,
    summary: fin.summary,
    ...(o.maxTokens !== undefined && fin.tokensAfter! > o.maxTokens ? { overBudget: true } : {}),
  };
}

/** Result of {@link planDialogSummary}. */
export interface DialogSummaryPlan {
  /**
   * Whether {@link summarizeDialog} would change the dialog. Exact for an offline summariser
   * (the default DSL one); for others it assumes the summariser succeeds and shrinks.
   */
  wouldChange: boolean;
  /** Why not, when `wouldChange` is false. */
  reason?: SummarizeDialogRefusal;
  /** Ids of the cells that would be replaced. */
  replacedIds: string[];
  /** The dialog's count now. */
  tokensBefore: number;
  /** The count after, when it can be known without I/O (offline summariser). */
  estimatedTokensAfter?: number;
}

/**
 * What {@link summarizeDialog} would do, without changing the dialog (for `--check`). With an
 * offline summariser (default {@link dslSummarizer}) the summary is computed, so the answer is
 * exact; with another one, only the plan is reported.
 * Arguments are in the order of {@link summarizeDialog}.
 * @param summarizer default {@link dslSummarizer}(). An offline summariser must return a
 *   string synchronously.
 * @throws InvalidArgumentError on bad arguments.
 */
export function planDialogSummary(dialog: Dialog, summarizer?: DialogSummarizer | null, options?: SummarizeDialogOptions): DialogSummaryPlan {
  const where = 'planDialogSummary';
  const o = checkOptions(options, where);
  const sum = summarizer ?? dslSummarizer();
  if (typeof sum !== 'function') throw new InvalidArgumentError(`${where}: summarizer must be a function`);
  const prep = prepare(dialog, o, where);
  const ids = prep.head.map((i) => dialog.messages[i]!.id);
  if (!prep.ok) return { wouldChange: false, reason: prep.reason, replacedIds: [], tokensBefore: prep.tokensBefore };
  if (!sum.offline) return { wouldChange: true, replacedIds: ids, tokensBefore: prep.tokensBefore };
  let text: unknown;
  try {
    text = sum(prep.headDialog!, { maxRequestTokens: o.maxRequestTokens, sourcePath: o.sourcePath ?? null, maxSummaryTokens: summaryRoom(prep, o) });
  } catch {
    return { wouldChange: false, reason: 'summarizer-failed', replacedIds: [], tokensBefore: prep.tokensBefore };
  }
  if (typeof text !== 'string') {
    throw new InvalidArgumentError(`${where}: an offline summariser must return a string synchronously`);
  }
  const fin = finish(dialog, prep, text, o, sum, () => 'planned-summary', where);
  if (!fin.ok) return { wouldChange: false, reason: fin.reason, replacedIds: [], tokensBefore: prep.tokensBefore };
  return { wouldChange: true, replacedIds: ids, tokensBefore: prep.tokensBefore, estimatedTokensAfter: fin.tokensAfter };
}
