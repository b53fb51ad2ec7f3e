/**
 * The legend of a flat document (clean profile): what the sigils mean in a dialog's flat form,
 * and which notebook it was made from. The wrapped document has the layout of a continuation
 * document (`continuation.ts`), so `compactBody` gives the body back:
 * ```text
 * <legend naming the source>
 *
 * ## Conversation
 *
 * <flat body>
 *
 * If further detail is needed, read the complete transcript at: <source>
 * ```
 */
import { InvalidArgumentError } from '../errors.js';
import { CONVERSATION_MARKER, TRANSCRIPT_MARKER } from './continuation.js';

/** Stands for the source when the notebook was read from standard input. */
export const UNNAMED_SOURCE = '(the notebook read from standard input)';

/** A source path as one safe line: control characters become spaces, a backtick a quote. */
function sourceLine(source: string | null): string {
  if (source === null || source === '') return UNNAMED_SOURCE;
  return source.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, ' ').replace(/`/g, "'");
}

/**
 * How to read a dialog's flat form (our own words). It contains no section marker and no
 * fence, so the document always splits where intended.
 */
export function flatLegend(source: string | null): string {
  const src = sourceLine(source);
  const from = src === UNNAMED_SOURCE ? 'a dialog notebook read from standard input' : `the dialog notebook \`${src}\``;
  return (
    `Condensed reading of ${from} by dlg-compact, cells in order. ` +
    "`§ … §`: the user's text (prompts, notes, raw cells). `» … »`: the AI's prose. " +
    'In a reply, `!` opens a shell command the AI ran, `▶ name(…)` another tool call. ' +
    "`#_id` opens the user's own code cell, its source fenced below. " +
    '`>` opens what the call or cell above returned; `[image/png 412 KB]` is a binary output. ' +
    "` ¶ ` is a folded line break, ` … ` a cut, `***` the end of a prompt's turn. " +
    'Much was shortened: check code in the notebook before reusing it.'
  );
}

/**
 * The legend in brief, for a document fitted into a small budget: every sigil named in a few
 * words (about a quarter of {@link flatLegend}'s tokens).
 */
export function flatKey(source: string | null): string {
  const src = sourceLine(source);
  const from = src === UNNAMED_SOURCE ? 'a dialog notebook read from standard input' : `dialog notebook \`${src}\``;
  return (
    `Condensed ${from} (dlg-compact), cells in order. ` +
    'Key: `§ … §` user, `» … »` AI prose, `!` shell command, `▶` tool call, `#_id` code cell, `>` output, ' +
    '` ¶ ` line break, ` … ` cut, `***` end of turn.'
  );
}

/**
 * A flat body wrapped with {@link flatLegend} and the pointer to its source notebook (the
 * layout above); `compactBody` of the result is `body`.
 * @param body the flat document (`dlg2compact`). @param source the source notebook's path as
 *   the reader should follow it (relative to the output), or `null` when it has none.
 * @param brief use {@link flatKey}, the legend in brief (fitted documents at small budgets).
 * @throws InvalidArgumentError when `body` is not a string or `source` neither a string nor null.
 */
export function wrapFlat(body: string, source: string | null, brief = false): string {
  if (typeof body !== 'string') throw new InvalidArgumentError('wrapFlat: body must be a string');
  if (source !== null && typeof source !== 'string') throw new InvalidArgumentError('wrapFlat: source must be a string or null');
  return `${brief ? flatKey(source) : flatLegend(source)}${CONVERSATION_MARKER}${body}${TRANSCRIPT_MARKER} ${sourceLine(source)}`;
}
