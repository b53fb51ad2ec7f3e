/**
 * Middle cuts of code laid out by lines, for the clean profile: a cut whose kept head and tail
 * lie on different lines of the code never joins the head's last line to the tail's first one
 * around an inline ` … ` (a comment at the end of the head would swallow the tail, two
 * statements would read as one). The mark stands on a line of its own, indented like the
 * tail's first line, and a partial line at either side of the cut is dropped whole when it is
 * short (see {@link LINE_REACH}).
 */
import type { CutParts } from '../tokens/budget.js';

/**
 * The most UTF-16 units of a partial line (its indentation aside) that a code cut drops so that
 * the kept text ends, or starts, with a whole line: the reach a word-whole cut moves to keep a
 * word (most statements' ends, a short comment, a call's last arguments). `fencedCode` uses at
 * most one unit per token of its budget (a small budget keeps its partial lines). A longer
 * partial line is kept, on a line of its own beside the mark's.
 */
export const LINE_REACH = 32;

/** Is `c` a space or a tab? */
function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** The end of the run of spaces, tabs and carriage returns that starts at `i` (at most `to`). */
function blanksEnd(s: string, i: number, to: number): number {
  while (i < to && (isBlank(s.charCodeAt(i)) || s.charCodeAt(i) === 0x0d)) i++;
  return i;
}

/** Does a line start at `i` (the text's start, or just after a line feed)? */
function atLineStart(s: string, i: number): boolean {
  return i === 0 || s.charCodeAt(i - 1) === 0x0a;
}

/** The spaces and tabs after `prefix` on the line that holds offset `i` (none when the line does not start with `prefix`). */
function indentOf(s: string, i: number, prefix: string): string {
  const ls = s.lastIndexOf('\n', i - 1) + 1;
  if (!s.startsWith(prefix, ls)) return '';
  const from = ls + prefix.length;
  let e = from;
  while (e < s.length && isBlank(s.charCodeAt(e))) e++;
  return s.slice(from, e);
}

/**
 * A middle cut of `code` as parts (`{ head, mid, tail }`: the cut text is
 * `code.slice(0, head) + mid + code.slice(tail)`) laid out by lines. A cut given as its text
 * (`''`, the code whole, the mark alone) and a cut within one line (the head and the tail on
 * the same line) are returned as they are, with their inline mark. Otherwise:
 * - the head ends with a whole line: a partial last line of at most `reach` units besides its
 *   indentation is dropped (the head then ends with that line's line break), a longer one is
 *   kept and ended by a line break; blank lines at the head's end are dropped;
 * - the tail starts with a whole line: a partial first line whose rest is at most `reach` units
 *   is dropped (the tail then starts at the next line), a longer one is kept from the cut on,
 *   after the indentation of its line, on a line of its own (the text's last line, which has no
 *   next line, is kept too); blank lines at the tail's start are dropped;
 * - between them the mark (`mark` without the spaces beside it, `…`) stands on a line of its
 *   own, indented like the tail's first line (with no tail left, it ends the text unindented).
 * `prefix` is what each line of the code starts with before its indentation (the container
 * prefix of a fenced block in prose, `'> '` in a block quote; `''` for code on its own): the
 * mark's line and a partial tail's line are given it too.
 * The result keeps the code's start and end as parts of it, so it is counted from the code's
 * pieces and the seams.
 */
export function lineCutParts(code: string, c: CutParts | string, mark = ' … ', reach = LINE_REACH, prefix = ''): CutParts | string {
  if (typeof c === 'string' || c.mid !== mark) return c;
  const n = code.length;
  let head = c.head;
  let tail = c.tail;
  // The first line break after the head; none: the head and the tail are on the last line.
  // A tail that starts with only blanks left on its line starts at the next line.
  const tb = blanksEnd(code, tail, n);
  if (tb < n && code.charCodeAt(tb) === 0x0a) tail = tb + 1;
  // Within one line: no line break between the head and the tail (a head at a line's start
  // ends the line before).
  const nl = code.indexOf('\n', head);
  if ((nl < 0 || nl >= tail) && !(head > 0 && atLineStart(code, head))) return c;
  const eol = nl < 0 ? n : nl;
  // The head's last line: kept when only blanks follow the cut on it (unless it is blank),
  // else dropped when its text is short.
  if (!atLineStart(code, head)) {
    const hs = code.lastIndexOf('\n', head - 1) + 1;
    const text = head - blanksEnd(code, hs, head);
    if (blanksEnd(code, head, eol) === eol ? text <= 0 : text <= reach) head = hs;
  }
  // Blank lines at the head's end.
  while (head > 0 && atLineStart(code, head)) {
    const ps = code.lastIndexOf('\n', head - 2) + 1;
    if (blanksEnd(code, ps, head - 1) !== head - 1) break;
    head = ps;
  }
  // The tail's first line: from its start when only blanks come before the cut on it, else
  // dropped up to the next line when its rest is short.
  const ts = code.lastIndexOf('\n', tail - 1) + 1;
  if (ts >= head && blanksEnd(code, ts, tail) === tail) tail = ts;
  let partial = !atLineStart(code, tail);
  if (partial) {
    const te = code.indexOf('\n', tail);
    if (te >= 0 && te - tail <= reach) {
      tail = te + 1;
      partial = false;
    }
  }
  // Blank lines at the tail's start (a last line is kept, blank or not).
  while (!partial && tail < n) {
    const te = code.indexOf('\n', tail);
    if (te < 0 || blanksEnd(code, tail, te) !== te) break;
    tail = te + 1;
  }
  const ind = tail < n ? indentOf(code, tail, prefix) : '';
  const sym = mark.trim();
  const before = atLineStart(code, head) ? '' : '\n';
  // No tail: the mark ends the text, on its own line.
  if (tail >= n) return { head, mid: `${before}${prefix}${sym}`, tail: n };
  return { head, mid: `${before}${prefix}${ind}${sym}\n${partial ? prefix + ind : ''}`, tail };
}
