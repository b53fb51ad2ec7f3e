/**
 * The token counts a file's report needs, and no more. A text report line shows only totals, a
 * `--json` record every class, and `--quiet` nothing: counting the classes of a reply needs its
 * parse and a count of each part, and a count nobody reads is a full tokenisation for nothing.
 * The totals are the same numbers `measureDialog` and `measureFlat` give (the sum of the
 * classes is the sum of the per-cell counts), so the report's figures do not change.
 */
import { atCell } from '../dialog/cell-errors.js';
import type { Dialog } from '../dialog/dialog.js';
import { measureDialog, type TokenStats } from '../dialog/measure.js';
import { lenToks, type ClassTokens } from '../tokens/index.js';

/**
 * What a report shows of the token counts: `classes` (the `--json` record), `total` (the text
 * line) or `none` (`--quiet`: the counts are never shown).
 */
export type CountLevel = 'classes' | 'total' | 'none';

function tokensOf(total: number): ClassTokens {
  return { user: 0, assistant: 0, calls: 0, results: 0, code: 0, total };
}

/** A dialog's counts at some level, with what a recount after prompt edits can reuse. */
export interface InputCounts {
  /**
   * What the dialog holds. With `classes`, `measureDialog`'s figures; with `total`, only
   * `messages`, `prompts` and `tokens.total` are measured (the other fields are 0); with
   * `none`, only `messages` and `prompts`.
   */
  stats: TokenStats;
  /** With `total`: each cell's count, for {@link countAfterPromptEdits}. */
  cells: number[] | null;
}

/** The AI view of a code cell's outputs; throws `measureDialog`'s NotebookError when malformed. */
function outputView(d: Dialog, i: number): string {
  const m = d.messages[i]!;
  return atCell(d, m, i, 'outputs', () => m.aiOutput);
}

/** One cell's count as `measureDialog` sums it (0 when skipped). */
function cellCount(d: Dialog, i: number): number {
  const m = d.messages[i]!;
  if (m.skipped) return 0;
  if (m.type === 'code') return lenToks(m.content) + (m.output.length > 0 ? lenToks(outputView(d, i)) : 0);
  return lenToks(m.content) + (m.type === 'prompt' && m.reply ? lenToks(m.reply) : 0);
}

/**
 * A dialog's counts at `level`. Every level reads the AI view of each code cell's outputs
 * that `measureDialog` reads, so a malformed output fails the file with the same error, at
 * the same point, whatever the report shows.
 */
export function countInput(d: Dialog, level: CountLevel): InputCounts {
  if (level === 'classes') return { stats: measureDialog(d), cells: null };
  let prompts = 0;
  for (const m of d.messages) if (m.type === 'prompt') prompts += 1;
  const stats: TokenStats = { messages: d.messages.length, prompts, toolCalls: 0, tokens: tokensOf(0) };
  if (level === 'none') {
    for (let i = 0; i < d.messages.length; i++) {
      const m = d.messages[i]!;
      if (!m.skipped && m.type === 'code' && m.output.length > 0) outputView(d, i);
    }
    return { stats, cells: null };
  }
  const cells = new Array<number>(d.messages.length);
  let total = 0;
  for (let i = 0; i < d.messages.length; i++) total += cells[i] = cellCount(d, i);
  stats.tokens.total = total;
  return { stats, cells };
}

/**
 * The counts of a dialog at `level` after the edits of a strategy that rewrites prompts only
 * (in-place compaction, a dialog fit, micro-compaction): with `total`, the cells other than
 * prompts keep the counts of `input` and only the prompts are counted again. `classes`:
 * `measureDialog`; `none`: zeros.
 */
export function countAfterPromptEdits(d: Dialog, level: CountLevel, input: InputCounts): ClassTokens {
  if (level === 'classes') return measureDialog(d).tokens;
  if (level === 'none') return tokensOf(0);
  const cells = input.cells;
  let total = 0;
  for (let i = 0; i < d.messages.length; i++) {
    total += cells !== null && cells.length === d.messages.length && d.messages[i]!.type !== 'prompt' ? cells[i]! : cellCount(d, i);
  }
  return tokensOf(total);
}

/** The counts of a dialog at `level`, from scratch (after a summary, which replaces cells). */
export function countDialog(d: Dialog, level: CountLevel): ClassTokens {
  if (level === 'classes') return measureDialog(d).tokens;
  if (level === 'none') return tokensOf(0);
  let total = 0;
  for (let i = 0; i < d.messages.length; i++) total += cellCount(d, i);
  return tokensOf(total);
}

/** The count of a flat body at `level` when its classes are not asked for. */
export function countFlatBody(body: string, level: Exclude<CountLevel, 'classes'>): ClassTokens {
  return tokensOf(level === 'none' ? 0 : lenToks(body));
}
