/**
 * Lines and fenced blocks of a reply (SPEC §6, "fenced-block scan"): Python line semantics
 * (`str.splitlines`), and the backtick fences the reply format is built from.
 *
 * Offsets are JS string indices (UTF-16 code units), so they can be used with
 * `String.prototype.slice` directly; the reference counts code points, but it only ever uses
 * these offsets to cut the same string, which gives the same pieces. Everything here is linear
 * in the text's size and no regular expression can backtrack.
 *
 * The line-table and line-fence helpers marked internal serve the other modules of `chat/`;
 * the folder entry exports only {@link Fence}, {@link scanFences}, {@link isLineBreak},
 * {@link lineBreakLength} and {@link fenceBodyStart}.
 */
import { InvalidArgumentError } from '../errors.js';
import { isPyWhitespace, pyStrip } from '../python/index.js';

/**
 * True when the UTF-16 code unit `c` ends a line for Python's `str.splitlines`: `\n`, `\r`,
 * `\v`, `\f`, U+001C–U+001E, U+0085, U+2028, U+2029 (`\r\n` counts as one break, see
 * {@link lineBreakLength}). These are the line breaks of every scan in the reply format.
 */
export function isLineBreak(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || (c >= 0x1c && c <= 0x1e) || c === 0x85 || c === 0x2028 || c === 0x2029;
}

/**
 * Length in UTF-16 code units of the Python line break at offset `i` of `text`: 2 for `\r\n`,
 * 1 for any other {@link isLineBreak} character, 0 when `text[i]` is no line break (or `i` is
 * out of range).
 */
export function lineBreakLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (!isLineBreak(c)) return 0;
  return c === 0x0d && text.charCodeAt(i + 1) === 0x0a ? 2 : 1;
}

/**
 * Offset in `text` where the body of `fence` (a {@link Fence} found in `text`) starts: just past
 * the line break that ends its opening line. `text.slice(fenceBodyStart(text, f)).startsWith(f.body)`
 * holds for every fence {@link scanFences} returns. Returns -1 when the opening line has no
 * line break (never the case for a closed fence of `text`).
 */
export function fenceBodyStart(text: string, fence: Fence): number {
  for (let i = fence.start; i < text.length; i++) {
    const n = lineBreakLength(text, i);
    if (n > 0) return i + n;
  }
  return -1;
}

/**
 * A fenced block found by {@link scanFences}.
 *
 * - `info`: the opening line after its backticks, Python-stripped (`'json {.tool}'`).
 * - `body`: the lines between the opening and the closing line, line breaks included (so a
 *   non-empty body normally ends with a line break).
 * - `start`: offset of the first backtick of the opening line (a line start).
 * - `end`: offset just past the closing line's last character, before its line break (if
 *   any); `text.slice(start, end)` is the whole block.
 *
 * Offsets are UTF-16 code-unit indices into the scanned string.
 */
export interface Fence {
  info: string;
  body: string;
  start: number;
  end: number;
}

/**
 * (Internal to `chat/`.) The text cut into Python lines (`str.splitlines(keepends=True)`
 * semantics) as offsets only, so that a multi-megabyte reply costs two number arrays rather
 * than a string per line.
 */
export interface Lines {
  text: string;
  /** Number of lines. */
  n: number;
  /** offs[i] = start of line i; offs[n] = text.length. */
  offs: number[];
  /** cend[i] = end of line i's content, before its line break. */
  cend: number[];
  /** True when `\n` is the text's only line break. */
  plain: boolean;
}

// Line breaks other than `\n` (Python's splitlines also breaks at these); keep in step with
// isLineBreak above.
const OTHER_BREAKS = ['\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029'];

/**
 * (Internal to `chat/`.) True when `text` holds a line break other than `\n` (see
 * {@link isLineBreak}). One native search per break character, which is faster than a
 * character-class regular expression on long texts.
 */
export function hasOtherBreak(text: string): boolean {
  for (const c of OTHER_BREAKS) if (text.includes(c)) return true;
  return false;
}

const ANY_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;

// One-entry cache: fmt2hist usually cuts the same string into lines two or three times.
let cachedText: string | null = null;
let cachedLines: Lines | null = null;

/**
 * (Internal to `chat/`.) The line table of `text`; the last one built is cached.
 * @param plain the caller knows that `\n` is the only line break in `text` (a text cut out of
 *   a plain one, say), so it need not be searched for others.
 */
export function lineTable(text: string, plain = false): Lines {
  if (cachedLines !== null && cachedText === text) return cachedLines;
  const offs: number[] = [];
  const cend: number[] = [];
  const len = text.length;
  let start = 0;
  const onlyNewlines = plain || !hasOtherBreak(text);
  if (onlyNewlines) {
    // only \n: native search
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
      offs.push(start);
      cend.push(i);
      start = i + 1;
    }
  } else {
    const re = ANY_BREAK;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      offs.push(start);
      cend.push(m.index);
      start = m.index + m[0].length;
    }
  }
  if (start < len) {
    offs.push(start);
    cend.push(len);
  }
  const n = offs.length;
  offs.push(len);
  cachedText = text;
  cachedLines = { text, n, offs, cend, plain: onlyNewlines };
  return cachedLines;
}

/** Line i's content (without its break). (internal to `chat/`) */
export function lineAt(t: Lines, i: number): string {
  return t.text.slice(t.offs[i], t.cend[i]);
}

/** True when `text[a, b)` holds only Python whitespace. (internal to `chat/`) */
export function blankRange(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (!isPyWhitespace(text.charCodeAt(i))) return false;
  return true;
}

/** True when `s` holds only Python whitespace (all of which is in the BMP). (internal to `chat/`) */
export function isBlank(s: string): boolean {
  return blankRange(s, 0, s.length);
}

/** Number of backticks line i starts with. */
function tickRun(t: Lines, i: number): number {
  const { text } = t;
  const end = t.cend[i];
  let k = t.offs[i];
  while (k < end && text.charCodeAt(k) === 0x60) k++;
  return k - t.offs[i];
}

/** A fence in line coordinates: opening line, closing line, backtick count, info. (internal to `chat/`) */
export interface LineFence {
  open: number;
  close: number;
  ticks: number;
  info: string;
}

/** Result of the line scan: closed fences in order, and the line of an unclosed opener. (internal to `chat/`) */
export interface FenceScan {
  fences: LineFence[];
  /** Line index of an opener that never closes (nothing after it is scanned), or -1. */
  unclosed: number;
}

/**
 * (Internal to `chat/`.) The SPEC §6 fence rules over a line table: a line starting (column 0)
 * with 3+ backticks opens a block (info = rest of the line stripped); a later line starting
 * with at least as many backticks and holding only whitespace after them closes it. No
 * nesting; an opener without a closing line ends the scan.
 */
export function scanLineFences(t: Lines): FenceScan {
  const { text, n, offs, cend } = t;
  const fences: LineFence[] = [];
  let i = 0;
  while (i < n) {
    const ticks = tickRun(t, i);
    if (ticks < 3) {
      i++;
      continue;
    }
    const info = pyStrip(text.slice(offs[i] + ticks, cend[i]));
    let j = i + 1;
    for (; j < n; j++) {
      if (text.charCodeAt(offs[j]) !== 0x60) continue;
      const k = tickRun(t, j);
      if (k >= ticks && blankRange(text, offs[j] + k, cend[j])) break;
    }
    if (j >= n) return { fences, unclosed: i };
    fences.push({ open: i, close: j, ticks, info });
    i = j + 1;
  }
  return { fences, unclosed: -1 };
}

/** The {@link Fence} of a line-coordinate fence. (internal to `chat/`) */
export function toFence(t: Lines, f: LineFence): Fence {
  return {
    info: f.info,
    body: t.text.slice(t.offs[f.open + 1], t.offs[f.close]),
    start: t.offs[f.open],
    end: t.cend[f.close],
  };
}

/**
 * Find the fenced code blocks of a Markdown text (SPEC §6, "fenced-block scan").
 *
 * The text is walked by Python lines (`str.splitlines(keepends=True)`, so `\r`, `\r\n`,
 * U+2028 … all end lines). A line that starts at column 0 with three or more backticks opens a
 * block; its info string is the rest of the line, Python-stripped. Inside, the first line that
 * starts with at least as many backticks followed only by whitespace closes it. Blocks do not
 * nest (a shorter or info-carrying backtick line inside is body text); an opener that is never
 * closed is not a block, and nothing after it is scanned.
 *
 * @param text any string (a reply, a note).
 * @returns the closed blocks in order, as {@link Fence}s with UTF-16 offsets.
 * @throws InvalidArgumentError if `text` is not a string.
 */
export function scanFences(text: string): Fence[] {
  if (typeof text !== 'string') throw new InvalidArgumentError(`scanFences: text must be a string, got ${typeof text}`);
  const t = lineTable(text);
  return scanLineFences(t).fences.map((f) => toFence(t, f));
}

/** Index of the first of `sorted` (ascending) that is >= `x` (`sorted.length` when none). */
export function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
