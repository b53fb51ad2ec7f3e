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
    `This is a condensed reading of ${from}, made by dlg-compact; its cells come in order. ` +
    "Reading key: `§ … §` holds what the user wrote (prompts, notes, raw cells) and `» … »` the prose of the AI's replies. " +
    'Inside a reply, a line opening with `!` is a shell command the AI ran and `▶ name(…)` any other tool call it made. ' +
    "A line `#_id` opens one of the user's own code cells (not a call the AI made): its source follows in a fenced block. " +
    'A line opening with `>` is what the call or code cell just above it returned; `[image/png 412 KB]` stands for a binary output. ' +
    '` ¶ ` stands where a line break was folded away, ` … ` where the middle of a text was cut out, ' +
    'and `***` ends the turn of each prompt. ' +
    'Much was shortened: before quoting or reusing code, look it up in the notebook itself.'
  );
}

/**
 * A flat body wrapped with {@link flatLegend} and the pointer to its source notebook (the
 * layout above); `compactBody` of the result is `body`.
 * @param body the flat document (`dlg2compact`). @param source the source notebook's path as
 *   the reader should follow it (relative to the output), or `null` when it has none.
 * @throws InvalidArgumentError when `body` is not a string or `source` neither a string nor null.
 */
export function wrapFlat(body: string, source: string | null): string {
  if (typeof body !== 'string') throw new InvalidArgumentError('wrapFlat: body must be a string');
  if (source !== null && typeof source !== 'string') throw new InvalidArgumentError('wrapFlat: source must be a string or null');
  return `${flatLegend(source)}${CONVERSATION_MARKER}${body}${TRANSCRIPT_MARKER} ${sourceLine(source)}`;
}
