/**
 * Middle cuts of code laid out by lines, for the clean profile: a cut whose kept head and tail
 * lie on different lines of the code never joins the head's last line to the tail's first one
 * around an inline ` … ` (a comment at the end of the head would swallow the tail, two
 * statements would read as one). The mark stands on a line of its own, indented like the
 * tail's first line, a partial line at either side of the cut is dropped whole when it is
 * short (see {@link LINE_REACH}), and a partial tail starts where a reader can place it
 * ({@link placeableFrom}).
 */
import type { CutParts } from '../tokens/budget.js';

/**
 * The most UTF-16 units of a partial line (its indentation aside) that a code cut drops so that
 * the kept text ends, or starts, with a whole line: the reach a word-whole cut moves to keep a
 * word (most statements' ends, a short comment, a call's last arguments). `fencedCode` uses at
 * most one unit per token of the budget a cut was made at (a small cut keeps its partial
 * lines). A longer
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

/** Characters of operators and separators after which a partial tail of a code line may start (`x = …`, `a + …`, `: return …`). */
const OPERATOR_CHARS = '=+-*/%<>&|^~!@:;,';

/** How far into a line (UTF-16 units) {@link placeableFrom} reads its brackets; beyond, it reads from the cut on. */
const DEPTH_READ = 4096;

/**
 * The first offset from `i` (before `end`, the end of its line) where a partial tail of a code
 * line may start, so that a reader can place what it keeps: a character that is not blank,
 * after a space, a tab or an operator (`=`, `+`, `<`, `:`, `,`, …), outside the brackets opened
 * on the line before it and outside string literals (`return self.grad * m` of
 * `def backward(self, m): return self.grad * m`, `= df['TIME'].apply(f)`; not `(self, m):`,
 * `m):`, `.grad = 0.0` nor `1,2,3])`); or the start of a string literal (its prefix `f`, `r`, `b`
 * included) after `(`, a comma, an operator or a blank, inside brackets too
 * (`'http://localhost/api', data=d)`: a path, a URL, a message); or a word after a blank inside
 * a string literal or a comment (prose: `numbers is", total)`). Brackets and quotes are read
 * from the line's start (at most {@link DEPTH_READ} units before `i`). `end` when no offset of
 * the line is such a start (the piece is then dropped).
 */
export function placeableFrom(s: string, i: number, end: number): number {
  const ls = s.lastIndexOf('\n', i - 1) + 1;
  let depth = 0;
  let quote = 0; // the quote of the string literal the scan is in, or 0
  let comment = false; // past a `#` outside string literals
  for (let p = i - ls > DEPTH_READ ? i : ls; p < end; p++) {
    const c = s.charCodeAt(p);
    if (p >= i && p > ls && !isBlank(c) && c !== 0x0d) {
      const b = s.charCodeAt(p - 1);
      // Words of a string literal or a comment, after a blank: prose a reader can place.
      if ((quote !== 0 || comment) && isBlank(b)) return p;
    }
    if (p >= i && quote === 0 && !comment && p > ls && !isBlank(c) && c !== 0x0d) {
      const b = s.charCodeAt(p - 1);
      const after = isBlank(b) || OPERATOR_CHARS.includes(s[p - 1]!);
      if (depth <= 0 && after) return p;
      // A string literal, or its prefix, after an opener, a comma, an operator or a blank.
      const q = isQuote(c) ? p : STRING_PREFIX.includes(s[p]!) && isQuote(s.charCodeAt(p + 1)) ? p + 1 : -1;
      if (q >= 0 && (after || OPENERS.includes(s[p - 1]!))) return p;
    }
    if (comment) continue;
    if (quote !== 0) {
      // (a backslash escapes the character after it)
      if (c === 0x5c) p++;
      else if (c === quote) quote = 0;
    } else if (isQuote(c)) quote = c;
    else if (c === 0x23) comment = true;
    else depth += bracket(c);
  }
  return end;
}

/** Is `c` a quote that starts or ends a string literal (`'`, `"`)? */
function isQuote(c: number): boolean {
  return c === 0x27 || c === 0x22;
}

/** Letters that may prefix a Python string literal (`f'…'`, `r"…"`, `b'…'`). */
const STRING_PREFIX = 'fFrRbBuU';
/** The opening bracket after which a string literal may start a partial tail (an argument; not an index nor a key after `[`, `{`). */
const OPENERS = '(';

/** +1 for an opening bracket, -1 for a closing one, 0 otherwise. */
function bracket(c: number): number {
  return c === 0x28 || c === 0x5b || c === 0x7b ? 1 : c === 0x29 || c === 0x5d || c === 0x7d ? -1 : 0;
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
 *   kept (without the blanks at its end) and ended by a line break; blank lines at the head's
 *   end are dropped;
 * - the tail starts with a whole line: a partial first line starts where a reader can place
 *   it ({@link placeableFrom}: not `(self, m):` nor `.grad = 0.0`), and when that rest is at
 *   most `reach` units (or none) it is dropped (the tail then starts at the next line, or,
 *   on the text's last line, none is left); a longer one is kept from there on, after the
 *   indentation of its line, on a line of its own; blank lines at the tail's start are dropped;
 * - between them the mark (`mark` without the spaces beside it, `…`) stands on a line of its
 *   own, indented like the tail's first line (with no tail left, it ends the text unindented).
 * `headReach` is the reach on the head's side when it differs (`Infinity`: the head's partial
 * line always goes).
 * `prefix` is what each line of the code starts with before its indentation (the container
 * prefix of a fenced block in prose, `'> '` in a block quote; `''` for code on its own): the
 * mark's line and a partial tail's line are given it too.
 * The result keeps the code's start and end as parts of it, so it is counted from the code's
 * pieces and the seams.
 */
export function lineCutParts(code: string, c: CutParts | string, mark = ' … ', reach = LINE_REACH, prefix = '', headReach = reach): CutParts | string {
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
    if (blanksEnd(code, head, eol) === eol ? text <= 0 : text <= headReach) head = hs;
    // A partial line kept ends with its last character that is not blank.
    else while (head > hs && isBlank(code.charCodeAt(head - 1))) head--;
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
    // A partial tail starts where a reader can place it (placeableFrom), else it goes; then a
    // short rest goes too. (Both move the tail only forwards: a later cut never keeps less.)
    const te = code.indexOf('\n', tail);
    const end = te < 0 ? n : te;
    tail = placeableFrom(code, tail, end);
    if (end - tail <= reach || blanksEnd(code, tail, end) === end) {
      tail = te < 0 ? n : te + 1;
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
