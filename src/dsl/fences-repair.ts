/**
 * Code fences that survive a cut, for the clean profile. A middle cut can remove a fence's
 * closing line (so everything after the cut, later turns included, renders as code) or its
 * opening line (so the closing line opens a new block); a `»` mark written after a closing
 * fence (`\`\`\` »`) keeps the fence open too. The functions here scan Markdown fences the way
 * CommonMark reads them (a line of three or more backticks or tildes, the closing line of the
 * same character and at least as long, with nothing but spaces after it) and mend the text
 * at a cut so that no fence is left open or orphaned. Linear in the text's length.
 */

/** A fence that is open: its character, its length and the opening line (from the fence on). */
export interface OpenFence {
  ch: number;
  len: number;
  line: string;
}

const BACKTICK = 0x60;
const TILDE = 0x7e;

/** End of the line that starts at `i` (index of its `\n`, or the text's end), a `\r` before it excluded. */
function lineEnd(s: string, i: number, to: number): number {
  let j = s.indexOf('\n', i);
  if (j < 0 || j > to) j = to;
  return j > i && s.charCodeAt(j - 1) === 13 ? j - 1 : j;
}

/** Index of the first character of `s[i, end)` that is not a space or tab. */
function skipBlank(s: string, i: number, end: number): number {
  while (i < end && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  return i;
}

/** Columns of leading spaces and tabs of `s[i, end)` (a tab moves to the next multiple of 4). */
function indentColumns(s: string, i: number, end: number): number {
  let col = 0;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) col++;
    else if (c === 9) col += 4 - (col % 4);
    else break;
  }
  return col;
}

/**
 * The fence state after the line `s[start, end)`, given the state `open` before it: a fence
 * line opens a block outside code and closes a matching one inside. An opening line indented
 * by four columns or more is indented code in CommonMark, not a fence, and opens nothing
 * (fences of list items are indented by at most three columns at the first level); closing
 * lines may be indented any amount, so a fence of a nested list item still closes.
 */
function step(s: string, start: number, end: number, open: OpenFence | null): OpenFence | null {
  const i = skipBlank(s, start, end);
  const ch = s.charCodeAt(i);
  if (ch !== BACKTICK && ch !== TILDE) return open;
  let j = i;
  while (j < end && s.charCodeAt(j) === ch) j++;
  const len = j - i;
  if (len < 3) return open;
  if (open === null) {
    if (indentColumns(s, start, end) >= 4) return null;
    if (ch === BACKTICK && s.slice(j, end).includes('`')) return null; // not a fence: backtick in the info string
    return { ch, len, line: s.slice(i, end) };
  }
  if (ch === open.ch && len >= open.len && skipBlank(s, j, end) === end) return null;
  return open;
}

/**
 * Whether `s` holds three backticks or three tildes in a row: a text without holds no fence
 * line (nor does a text made of its pieces and characters other than those two).
 */
export function hasFenceRun(s: string): boolean {
  return s.includes('```') || s.includes('~~~');
}

/**
 * The starts of the lines, from a line start on, that hold three backticks or tildes in a row,
 * in order: only such a line can be a fence line, so a scan of fences steps from one to the
 * next. Each of the two runs is looked for again only once the scan has passed the last found.
 */
class FenceLines {
  private tick = -2;
  private tilde = -2;
  constructor(private readonly s: string) {}

  /** The start of the first such line at or after the line start `from`, or -1. */
  next(from: number): number {
    const s = this.s;
    if (this.tick !== -1 && this.tick < from) this.tick = s.indexOf('```', from);
    if (this.tilde !== -1 && this.tilde < from) this.tilde = s.indexOf('~~~', from);
    const a = this.tick;
    const b = this.tilde;
    const at = a < 0 ? b : b < 0 ? a : Math.min(a, b);
    if (at < 0) return -1;
    return Math.max(from, s.lastIndexOf('\n', at - 1) + 1);
  }
}

/**
 * The fence left open at the end of `s.slice(from, to)` (its last, possibly partial, line
 * included), starting from `open` (default: outside code); `null` when none is.
 */
export function openFenceAtEnd(s: string, from = 0, to = s.length, open: OpenFence | null = null): OpenFence | null {
  let st = open;
  // Lines without a run of three fence characters leave the state as it is: skipped.
  const lines = new FenceLines(s);
  for (let i = lines.next(from); i >= 0 && i <= to; ) {
    const end = lineEnd(s, i, to);
    st = step(s, i, end, st);
    const nl = s.indexOf('\n', i);
    if (nl < 0 || nl >= to) break;
    i = lines.next(nl + 1);
  }
  return st;
}

/**
 * The fence open where `s.slice(pos)` starts, in `s` as written: every line that starts before
 * `pos` is read whole (so a cut inside an opening line counts as inside its block).
 */
export function openFenceAt(s: string, pos: number): OpenFence | null {
  let st: OpenFence | null = null;
  const lines = new FenceLines(s);
  for (let i = lines.next(0); i >= 0 && i < pos; ) {
    const end = lineEnd(s, i, s.length);
    st = step(s, i, end, st);
    const nl = s.indexOf('\n', i);
    if (nl < 0) break;
    i = lines.next(nl + 1);
  }
  return st;
}

/** The closing line of `f`. */
export function closerOf(f: OpenFence): string {
  return String.fromCharCode(f.ch).repeat(f.len);
}

/** `s` with a closing line appended when it ends inside a fence. */
export function closeOpenFence(s: string): string {
  const f = openFenceAtEnd(s);
  return f === null ? s : `${s}\n${closerOf(f)}`;
}

/** Does the line starting at `i` (up to `\n`) begin, after spaces or tabs, with three backticks or tildes? */
export function looksLikeFence(s: string, i = 0): boolean {
  const end = lineEnd(s, i, s.length);
  const j = skipBlank(s, i, end);
  const ch = s.charCodeAt(j);
  if (ch !== BACKTICK && ch !== TILDE) return false;
  return s.charCodeAt(j + 1) === ch && s.charCodeAt(j + 2) === ch;
}

/** Does the last line of `s` begin with three backticks or tildes (after spaces or tabs)? */
export function lastLineLooksLikeFence(s: string): boolean {
  return looksLikeFence(s, s.lastIndexOf('\n') + 1);
}

/**
 * Join the head `s.slice(0, head)` and the tail `s.slice(tail)` of a middle cut around the
 * mark `' … '`, mending fences: when the head ends inside a block, a closing line ends it
 * before the mark (which then stands on a line of its own); when the tail starts inside a
 * block of `s`, the block's opening line is repeated after the mark; when the tail starts with
 * a fence line, it starts a line; a cut inside a fence line drops the rest of that line on
 * both sides. Without fences this is `head + ' … ' + tail`.
 */
export function joinCut(s: string, head: number, tail: number): string {
  const j = joinCutParts(s, head, tail);
  return s.slice(0, j.head) + j.mid + s.slice(j.tail);
}

/**
 * {@link joinCut} as parts of `s`: the joined text is `s.slice(0, head) + mid + s.slice(tail)`,
 * where `head` and `tail` are moved off a fence line as `joinCut` does and `mid` is the mark
 * `' … '` with the mending around it (a closing line before it, an opening line repeated after
 * it, a line break before a tail that starts with a fence line), so that the join can be
 * counted from the pieces of `s` and its seams.
 */
export function joinCutParts(s: string, head: number, tail: number): { head: number; mid: string; tail: number } {
  // A cut inside a fence line keeps none of that line: the head stops at its start and the
  // tail starts after it (a fence line in pieces would be read as text, or as another fence).
  const hs = s.lastIndexOf('\n', head - 1) + 1;
  if (hs < head && looksLikeFence(s, hs)) head = hs;
  const ts = s.lastIndexOf('\n', tail - 1) + 1;
  if (ts < tail && tail < s.length && looksLikeFence(s, ts)) {
    const nl = s.indexOf('\n', tail);
    tail = nl < 0 ? s.length : nl + 1;
  }
  const hOpen = openFenceAtEnd(s, 0, head);
  const tOpen = openFenceAt(s, tail);
  const before = hOpen === null ? ' …' : `${head > 0 && s.charCodeAt(head - 1) === 10 ? '' : '\n'}${closerOf(hOpen)}\n…`;
  if (tOpen !== null) return { head, mid: `${before}\n${tOpen.line}\n`, tail };
  return { head, mid: looksLikeFence(s, tail) ? `${before}\n` : `${before} `, tail };
}
