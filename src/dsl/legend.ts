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
 * Which of the flat form's sigils a body holds, for the legend to name only those: shell
 * commands (`! ` at a line's start), other tool calls (`▶ `), code cells (`#_`), outputs and
 * results (`> `), binary-output markers (`[image/png 412 KB]`). Read loosely (a line of prose
 * may start so too): an extra mention costs a few tokens, a missing one would leave a sigil
 * unexplained. Without a body every sigil is named.
 */
interface Sigils {
  shell: boolean;
  call: boolean;
  code: boolean;
  output: boolean;
  /** The body's first binary-output marker, as the legend's example (`''` for none). */
  media: string;
}

/** The example of a binary-output marker when there is no body to take one from. */
const MEDIA_EXAMPLE = '[image/png 412 KB]';

const MEDIA = /\[(?:\d+ × )?[a-z0-9.+-]+\/[a-z0-9.+-]+ \d+(?:\.\d)? (?:B|KB|MB)[\]," ]/;

function sigilsIn(body: string | undefined): Sigils {
  if (body === undefined) return { shell: true, call: true, code: true, output: true, media: MEDIA_EXAMPLE };
  const atLine = (p: string): boolean => body.startsWith(p) || body.includes(`\n${p}`);
  // (an empty result or output is a `>` line alone)
  const output = atLine('> ') || body === '>' || body.startsWith('>\n') || body.includes('\n>\n') || body.endsWith('\n>');
  // The marker as the body writes it, without what follows its size (`, ` and more, or an alt text).
  const m = output ? MEDIA.exec(body) : null;
  return { shell: atLine('! '), call: atLine('▶ '), code: atLine('#_'), output, media: m === null ? '' : `${m[0].slice(0, -1)}]` };
}

/**
 * How to read a dialog's flat form (our own words): the sigils `body` holds (all of them
 * without a body). It contains no section marker and no fence, so the document always splits
 * where intended.
 */
export function flatLegend(source: string | null, body?: string): string {
  const src = sourceLine(source);
  const from = src === UNNAMED_SOURCE ? 'a dialog notebook read from standard input' : `the dialog notebook \`${src}\``;
  const k = sigilsIn(body);
  const calls =
    k.shell && k.call
      ? 'In a reply, `!` opens a shell command the AI ran, `▶ name(…)` another tool call. '
      : k.shell
        ? 'In a reply, `!` opens a shell command the AI ran. '
        : k.call
          ? 'In a reply, `▶ name(…)` opens a tool call the AI made. '
          : '';
  const code = k.code ? "`#_id` opens the user's own code cell, its source fenced below. " : '';
  const output = k.output ? `\`>\` opens what the call or cell above returned${k.media !== '' ? `; \`${k.media}\` is a binary output. ` : '. '}` : '';
  return (
    `Condensed reading of ${from} by dlg-compact, cells in order. ` +
    "`§ … §`: the user's text (prompts, notes, raw cells). `» … »`: the AI's prose. " +
    calls +
    code +
    output +
    "` ¶ ` is a folded line break, ` … ` a cut, `***` the end of a prompt's turn. " +
    'Much was shortened: check code in the notebook before reusing it.'
  );
}

/**
 * The legend in brief, for a document fitted into a small budget: every sigil `body` holds
 * (all without a body) named in a few words (about a quarter of {@link flatLegend}'s tokens).
 */
export function flatKey(source: string | null, body?: string): string {
  const src = sourceLine(source);
  const from = src === UNNAMED_SOURCE ? 'a dialog notebook read from standard input' : `dialog notebook \`${src}\``;
  const k = sigilsIn(body);
  const keys = ['`§ … §` user', '`» … »` AI prose'];
  if (k.shell) keys.push('`!` shell command');
  if (k.call) keys.push('`▶` tool call');
  if (k.code) keys.push('`#_id` code cell');
  if (k.output) keys.push('`>` output');
  keys.push('` ¶ ` line break', '` … ` cut', '`***` end of turn');
  return `Condensed ${from} (dlg-compact), cells in order. Key: ${keys.join(', ')}.`;
}

/**
 * A flat body wrapped with {@link flatLegend} (naming the sigils the body holds) and the
 * pointer to its source notebook (the layout above); `compactBody` of the result is `body`.
 * @param body the flat document (`dlg2compact`). @param source the source notebook's path as
 *   the reader should follow it (relative to the output), or `null` when it has none.
 * @param brief use {@link flatKey}, the legend in brief (fitted documents at small budgets).
 * @throws InvalidArgumentError when `body` is not a string or `source` neither a string nor null.
 */
export function wrapFlat(body: string, source: string | null, brief = false): string {
  if (typeof body !== 'string') throw new InvalidArgumentError('wrapFlat: body must be a string');
  if (source !== null && typeof source !== 'string') throw new InvalidArgumentError('wrapFlat: source must be a string or null');
  return `${brief ? flatKey(source, body) : flatLegend(source, body)}${CONVERSATION_MARKER}${body}${TRANSCRIPT_MARKER} ${sourceLine(source)}`;
}
