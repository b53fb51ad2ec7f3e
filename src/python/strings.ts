/**
 * Python `str` operations counted in code points (SPEC §1): `len`, slicing, comparison,
 * `isspace`, `strip`/`lstrip`/`rstrip` and `splitlines`.
 *
 * JS strings are UTF-16; Python strings are sequences of code points. Every function here
 * documents which unit it counts. A well-formed surrogate pair is one code point; a lone
 * surrogate is one code point of its own (as in a Python string decoded from `"\ud800"`).
 * The whitespace and line-break sets are CPython 3.11's (see scripts/gen-py-fixtures.py).
 */
import { InvalidArgumentError } from '../errors.js';
import { checkStr, describe } from './args.js';

// ---------------------------------------------------------------------------------------------
// Code points

const SURROGATE = /[\ud800-\udfff]/;
const PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;

/**
 * Python `len(s)`: the number of code points in `s` (a surrogate pair counts 1, a lone
 * surrogate 1). Linear; O(1) extra work when `s` has no surrogates.
 * @throws InvalidArgumentError when `s` is not a string (a number or object gave `undefined`).
 */
export function cpLen(s: string): number {
  if (typeof s !== 'string') throw new InvalidArgumentError(`cpLen: expected a string, got ${s === null ? 'null' : typeof s}`);
  if (!SURROGATE.test(s)) return s.length;
  let pairs = 0;
  PAIR.lastIndex = 0;
  while (PAIR.exec(s) !== null) pairs++;
  return s.length - pairs;
}

/** UTF-16 index of the code point after the one starting at `u` (a lone surrogate counts as one). */
function nextCp(s: string, u: number): number {
  const c = s.charCodeAt(u);
  if (c >= 0xd800 && c <= 0xdbff && u + 1 < s.length) {
    const d = s.charCodeAt(u + 1);
    return d >= 0xdc00 && d <= 0xdfff ? u + 2 : u + 1;
  }
  return u + 1;
}

/**
 * UTF-16 index of code point index `cp` in `s` (0 ≤ cp ≤ cpLen(s); larger values give
 * `s.length`, negative values 0). Linear in `cp`.
 */
export function cpToUnitIndex(s: string, cp: number): number {
  if (cp <= 0) return 0;
  if (!SURROGATE.test(s)) return Math.min(cp, s.length);
  let u = 0;
  for (let n = 0; n < cp && u < s.length; n++) u = nextCp(s, u);
  return u;
}

/**
 * Code point index of UTF-16 index `unit` in `s` (the number of code points that start before
 * it; an index inside a surrogate pair counts the pair as started). Clamped to
 * `[0, cpLen(s)]`. Linear in `unit`.
 */
export function unitToCpIndex(s: string, unit: number): number {
  if (unit <= 0) return 0;
  if (unit > s.length) unit = s.length;
  if (!SURROGATE.test(s)) return unit;
  let n = 0;
  for (let u = 0; u < unit; n++) u = nextCp(s, u);
  return n;
}

/**
 * Python slice `s[start:end]` with indexes in code points: negative indexes count from the
 * end, out-of-range indexes are clamped, `end` omitted means the end, `start >= end` gives
 * `''`; ±Infinity act as "past the end"/"before the start". Never splits a surrogate pair.
 * Linear. Throws `InvalidArgumentError` for a non-string `s` or a NaN/non-number index.
 */
export function cpSlice(s: string, start: number, end?: number): string {
  checkStr('cpSlice', s);
  if (typeof start !== 'number' || Number.isNaN(start) || (end !== undefined && (typeof end !== 'number' || Number.isNaN(end)))) {
    throw new InvalidArgumentError(`cpSlice: indexes must be numbers, got ${describe(start)} and ${describe(end)}`);
  }
  if (!SURROGATE.test(s)) {
    const n = s.length;
    let a = Math.trunc(start);
    let b = end === undefined ? n : Math.trunc(end);
    if (a < 0) a = Math.max(0, a + n);
    if (b < 0) b = Math.max(0, b + n);
    return a < b ? s.slice(a, Math.min(b, n)) : '';
  }
  const n = cpLen(s);
  let a = Math.trunc(start);
  let b = end === undefined ? n : Math.trunc(end);
  if (a < 0) a = Math.max(0, a + n);
  if (b < 0) b = Math.max(0, b + n);
  if (a > n) a = n;
  if (b > n) b = n;
  if (a >= b) return '';
  const ua = cpToUnitIndex(s, a);
  let ub = ua;
  for (let k = a; k < b; k++) {
    const c = s.charCodeAt(ub);
    if (c >= 0xd800 && c <= 0xdbff && ub + 1 < s.length) {
      const d = s.charCodeAt(ub + 1);
      ub += d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
    } else {
      ub++;
    }
  }
  return s.slice(ua, ub);
}

/**
 * Compare two strings by code point, as Python compares `str` (JS `<` compares UTF-16 units,
 * which puts astral characters before U+E000–U+FFFF). Returns a negative number, 0 or a
 * positive number; usable as an `Array.prototype.sort` comparator.
 */
export function cpCompare(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  if (x < 0xd800 && y < 0xd800) return x - y;
  // At least one surrogate: compare the code points that start at i, or at i - 1 when i is
  // the low half of a pair whose (shared) high half is at i - 1.
  if (i > 0) {
    const prev = a.charCodeAt(i - 1);
    if (prev >= 0xd800 && prev <= 0xdbff && ((x >= 0xdc00 && x <= 0xdfff) || (y >= 0xdc00 && y <= 0xdfff))) i--;
  }
  return (a.codePointAt(i) as number) - (b.codePointAt(i) as number);
}

// ---------------------------------------------------------------------------------------------
// Whitespace, strip, splitlines

// Every code point for which CPython 3.11's str.isspace() is true (all in the BMP).
const PY_WHITESPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
  0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];
const WS_SET = new Set(PY_WHITESPACE);

/**
 * Python `chr(cp).isspace()` (SPEC §1): ASCII whitespace, U+001C–U+001F, U+0085, U+00A0,
 * U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. Not U+FEFF, not U+200B.
 * Input: a code point number.
 */
export function isPyWhitespace(cp: number): boolean {
  if (cp <= 0x20) return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f);
  return cp >= 0x85 && WS_SET.has(cp);
}

function charSet(chars: unknown): Set<number> {
  if (typeof chars !== 'string') throw new InvalidArgumentError(`strip: chars must be a string, null or undefined, got ${describe(chars)}`);
  const set = new Set<number>();
  for (const ch of chars) set.add(ch.codePointAt(0) as number);
  return set;
}

function stripStart(s: string, set: Set<number> | null): number {
  let i = 0;
  while (i < s.length) {
    const cp = s.codePointAt(i) as number;
    if (!(set === null ? isPyWhitespace(cp) : set.has(cp))) break;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

function stripEnd(s: string, from: number, set: Set<number> | null): number {
  let j = s.length;
  while (j > from) {
    let cp = s.charCodeAt(j - 1);
    let w = 1;
    if (cp >= 0xdc00 && cp <= 0xdfff && j - 2 >= from) {
      const hi = s.charCodeAt(j - 2);
      if (hi >= 0xd800 && hi <= 0xdbff) {
        cp = (hi - 0xd800) * 0x400 + (cp - 0xdc00) + 0x10000;
        w = 2;
      }
    }
    if (!(set === null ? isPyWhitespace(cp) : set.has(cp))) break;
    j -= w;
  }
  return j;
}

/**
 * Python `s.strip(chars)`: remove leading and trailing code points that are Python whitespace
 * ({@link isPyWhitespace}) when `chars` is omitted/null, else that occur in `chars` (compared
 * by code point; `''` strips nothing). Throws `InvalidArgumentError` if `s` is not a string
 * or `chars` is neither a string nor null/undefined.
 */
export function pyStrip(s: string, chars?: string | null): string {
  checkStr('pyStrip', s);
  const set = chars == null ? null : charSet(chars);
  const i = stripStart(s, set);
  return s.slice(i, stripEnd(s, i, set));
}

/** Python `s.lstrip(chars)`; see {@link pyStrip}. */
export function pyLstrip(s: string, chars?: string | null): string {
  checkStr('pyLstrip', s);
  return s.slice(stripStart(s, chars == null ? null : charSet(chars)));
}

/** Python `s.rstrip(chars)`; see {@link pyStrip}. */
export function pyRstrip(s: string, chars?: string | null): string {
  checkStr('pyRstrip', s);
  return s.slice(0, stripEnd(s, 0, chars == null ? null : charSet(chars)));
}

const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;

// The line breaks of Python's splitlines other than `\n`, most frequent first.
const OTHER_LINE_BREAKS = ['\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029'];

/**
 * (Internal to the library.) True when `s` holds a line break of Python's `splitlines` other
 * than `\n` (`\r`, `\v`, `\f`, U+001C–U+001E, U+0085, U+2028, U+2029). One native search per
 * break character, several times faster than a character-class expression on long texts.
 */
export function hasOtherLineBreak(s: string): boolean {
  for (let i = 0; i < OTHER_LINE_BREAKS.length; i++) if (s.indexOf(OTHER_LINE_BREAKS[i] as string) >= 0) return true;
  return false;
}

/**
 * Python `s.splitlines(keepends)` (SPEC §1): lines end at `\r\n` (one break), `\n`, `\r`,
 * `\v`, `\f`, U+001C, U+001D, U+001E, U+0085, U+2028, U+2029. With `keepends` each line keeps
 * its break. A final break does not start an empty line; `''` gives `[]`. Linear.
 * Throws `InvalidArgumentError` if `s` is not a string.
 */
export function pySplitlines(s: string, keepends = false): string[] {
  checkStr('pySplitlines', s);
  const out: string[] = [];
  if (!hasOtherLineBreak(s)) {
    // Only `\n` ends lines: cut at each one by native search.
    let p = 0;
    for (let q = s.indexOf('\n'); q >= 0; q = s.indexOf('\n', p)) {
      out.push(s.slice(p, keepends ? q + 1 : q));
      p = q + 1;
    }
    if (p < s.length) out.push(s.slice(p));
    return out;
  }
  const re = LINE_BREAK;
  re.lastIndex = 0;
  let start = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    const end = m.index + m[0].length;
    out.push(s.slice(start, keepends ? end : m.index));
    start = end;
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}

/**
 * (Internal to the library.) The non-blank lines of `s`, each stripped: Python
 * `[t for t in (l.strip() for l in s.splitlines()) if t]`, each line sliced once. Every line
 * break of `splitlines` is Python whitespace and no whitespace is astral, so the strip runs on
 * UTF-16 code units. Linear.
 */
export function pyNonBlankLines(s: string): string[] {
  checkStr('pyNonBlankLines', s);
  const out: string[] = [];
  const push = (a: number, b: number): void => {
    while (a < b && isPyWhitespace(s.charCodeAt(a))) a++;
    while (b > a && isPyWhitespace(s.charCodeAt(b - 1))) b--;
    if (b > a) out.push(s.slice(a, b));
  };
  let start = 0;
  if (!hasOtherLineBreak(s)) {
    for (let q = s.indexOf('\n'); q >= 0; q = s.indexOf('\n', start)) {
      push(start, q);
      start = q + 1;
    }
  } else {
    const re = LINE_BREAK;
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(s)) !== null) {
      push(start, m.index);
      start = m.index + m[0].length;
    }
  }
  push(start, s.length);
  return out;
}
