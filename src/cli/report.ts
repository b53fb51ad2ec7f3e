/**
 * What the command prints about each file: the text report line, the `--json` record, and the
 * escaping that keeps control characters of file names off the terminal.
 */
import { isFailure, isSkip, type FileReport, type FileResult, type FileSkip } from './job.js';
import { formatSize } from '../dsl/media.js';

/**
 * Characters a text report never sends raw to a terminal: C0 and C1 controls and DEL (which a
 * file name may hold), and the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
 * U+2066–U+2069), which can make a name display as another.
 */
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A report or error line safe to print on a terminal: C0/C1 controls are shown as `\xHH`,
 * bidirectional controls as `\u{HHHH}`. Only text reports go through it: `--json` records
 * are JSON as they are (JSON.stringify escapes C0 controls itself).
 */
export function printable(line: string): string {
  return line.replace(UNPRINTABLE, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u{${n.toString(16)}}`;
  });
}

/**
 * The change from `before` to `after` tokens, as the report line's parenthesis words it:
 * `P% saved` (one decimal; `<0.1%` for a change that rounds to nothing, `0.0%` for none), or
 * `P% more` when the output holds more tokens than the input
 * (a short dialog whose legend and index outweigh what compaction removed); `none before` when
 * the input had no tokens.
 */
function tokenChange(before: number, after: number): string {
  if (before === 0) return after === 0 ? '0.0% saved' : 'none before';
  if (after === before) return '0.0% saved';
  const p = ((Math.abs(before - after) / before) * 100).toFixed(1);
  return `${p === '0.0' ? '<0.1' : p}% ${after > before ? 'more' : 'saved'}`;
}

/**
 * The text report line of one file:
 * `OUTPUT: STATUS[ (NOTE)], N messages, BEFORE → AFTER tokens (P% saved), SIZE → SIZE`
 * (OUTPUT is `INPUT → <stdout>` for a document printed on standard output, `<stdin>` naming
 * standard input)
 * (`P% more` when AFTER is larger)
 * (the file sizes of input and output, `formatSize`: `B`, `KB`, `MB`); `AFTER` is `?`
 * (and the parenthesis says why) when unknown. The note says what a summary or micro
 * strategy did or would do: `summary of N cells` (with `--check`, followed by the ids of
 * those cells, up to 8, then `…`), `summary refused: REASON`, `micro: N tool results
 * cleared`.
 */
export function reportLine(r: FileReport): string {
  const out = r.output === '-' ? `${r.path === '-' ? '<stdin>' : r.path} → <stdout>` : r.output;
  const note = r.note === undefined ? '' : ` (${r.note})`;
  const tokens =
    r.after === null
      ? `${r.before.total} → ? tokens (not estimated: --check does not call the LLM)`
      : `${r.before.total} → ${r.after.total} tokens (${tokenChange(r.before.total, r.after.total)})`;
  const sizes = r.bytes === undefined ? '' : `, ${formatSize(r.bytes.before)} → ${r.bytes.after === null ? '?' : formatSize(r.bytes.after)}`;
  return `${out}: ${r.status}${note}, ${r.messages} ${r.messages === 1 ? 'message' : 'messages'}, ${tokens}${sizes}`;
}

/** The order of the counts in {@link totalLine}: what was done, what is pending, what was not done. */
const TOTAL_ORDER: readonly string[] = ['written', 'unchanged', 'printed', 'would write', 'would print', 'over-budget', 'skipped', 'failed'];

/**
 * The closing line of a text report over several inputs:
 * `N files: K STATUS, …; BEFORE → AFTER tokens (P% saved)`, the statuses in the order of
 * {@link TOTAL_ORDER} (only those that occur), the tokens summed over the files whose output
 * count is known (the token part left out when there is none).
 */
export function totalLine(results: readonly FileResult[]): string {
  const counts = new Map<string, number>(TOTAL_ORDER.map((k) => [k, 0]));
  const add = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  let before = 0;
  let after = 0;
  let counted = 0;
  for (const r of results) {
    if (isFailure(r)) add('failed');
    else if (isSkip(r)) add('skipped');
    else {
      add(r.status);
      if (r.after !== null) {
        before += r.before.total;
        after += r.after.total;
        counted++;
      }
    }
  }
  const parts = [...counts]
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const tokens = counted === 0 ? '' : `; ${before} → ${after} tokens (${tokenChange(before, after)})`;
  return `${results.length} ${results.length === 1 ? 'file' : 'files'}: ${parts}${tokens}`;
}

/** The text report line of a skipped input: `PATH: skipped (WHY)` (`<stdin>` for standard input). */
export function skipLine(r: FileSkip): string {
  return `${r.path === '-' ? '<stdin>' : r.path}: skipped (${r.skipped})`;
}

/**
 * The `--json` record of one file. Fields, in this order: `path` (the input as named, `-` for
 * stdin), `output` (`-` for stdout), `status` ({@link FileStatus}), `strategy`
 * ({@link Strategy}), `mode` (`flat` or `dialog`: what the output is), `format` (`ipynb` or
 * `md`), `messages`, `prompts`, `toolCalls`, `tokens: {before, after}`, each
 * `{user, assistant, calls, results, code, total}` in o200k_base tokens (`after` is `null`
 * when unknown: `--check` with an LLM summariser), `bytes: {before, after}` (the sizes of the
 * input and of the output in bytes, as the text line shows them; `after` `null` as `tokens`). Then, for `summary` and `micro` only:
 * `note` (the report line's parenthesis), `reason` (a refused summary's reason, when
 * refused), and `summary: {summarizer, replaced, ids}` or
 * `micro: {cleared: [{messageId, tool}], refused: [{messageId, reason}]}`; for `--max-tokens`
 * with the `dsl` strategy, `note` and `fit: {maxTokens, tokens, scale, step, minTokens,
 * indexTokens}`.
 * A failed file gives `{path, status: "failed", error}`; a skipped input `{path, status: "skipped", note}`.
 */
export function jsonRecord(r: FileResult): Record<string, unknown> {
  if (isFailure(r)) return { path: r.path, status: 'failed', error: r.error };
  if (isSkip(r)) return { path: r.path, status: 'skipped', note: r.skipped };
  const rec: Record<string, unknown> = {
    path: r.path,
    output: r.output,
    status: r.status,
    strategy: r.strategy,
    mode: r.mode,
    format: r.format,
    messages: r.messages,
    prompts: r.prompts,
    toolCalls: r.toolCalls,
    tokens: { before: r.before, after: r.after },
  };
  if (r.bytes !== undefined) rec.bytes = r.bytes;
  if (r.note !== undefined) rec.note = r.note;
  if (r.reason !== undefined) rec.reason = r.reason;
  if (r.summary !== undefined) rec.summary = r.summary;
  if (r.micro !== undefined) rec.micro = r.micro;
  if (r.fit !== undefined) rec.fit = r.fit;
  return rec;
}
