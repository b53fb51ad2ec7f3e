/**
 * Grapheme-safe middle cuts for the clean profile: the reference's token cut
 * (`truncToksMid`) can split a character's UTF-8 bytes (giving U+FFFD), an emoji's ZWJ
 * sequence, or leave a combining mark without its base. Here the kept head and tail are moved
 * inwards to the nearest boundaries of user-perceived characters (extended grapheme clusters,
 * `Intl.Segmenter`), so the cut keeps only whole characters of the text and still fits the
 * budget.
 */
import { fitsToks, lenToks } from '../tokens/index.js';
import { cutText, midCutParts, type CutParts } from '../tokens/budget.js';
import { OVER, spliceCount } from '../tokens/splice.js';

let segmenterMade: Intl.Segmenter | undefined;
/** The grapheme segmenter, made on first use: making one loads the engine's break rules (milliseconds). */
function segmenter(): Intl.Segmenter {
  segmenterMade ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenterMade;
}

/** How far back a window for segmentation may reach to find a safe starting point. */
const WINDOW = 256;

/**
 * Whether the UTF-16 unit `c` may be (part of) a character of the Prepend class, which joins
 * the character after it, a printable ASCII one included (`U+0600 ` is one cluster): the BMP's
 * Prepend characters (Arabic number signs, U+06DD, U+070F, U+0890–U+0891, U+08E2, U+0D4E) and,
 * not knowing which astral character it ends, any low surrogate.
 */
function mayPrepend(c: number): boolean {
  return (c >= 0x600 && c <= 0x605) || c === 0x6dd || c === 0x70f || c === 0x890 || c === 0x891 || c === 0x8e2 || c === 0xd4e || (c >= 0xdc00 && c <= 0xdfff);
}

/**
 * A position at or before `i` where a grapheme cluster surely starts: just before a printable
 * ASCII character (no cluster rule joins one to what precedes it, but a Prepend character's,
 * see {@link mayPrepend}) or a line feed not preceded by a carriage return; the text's start
 * when none is found within {@link WINDOW} units.
 */
function safeStart(s: string, i: number): number {
  const lo = Math.max(0, i - WINDOW);
  for (let j = Math.min(i, s.length - 1); j > lo; j--) {
    const c = s.charCodeAt(j);
    if ((c >= 0x20 && c < 0x7f && !mayPrepend(s.charCodeAt(j - 1))) || (c === 10 && s.charCodeAt(j - 1) !== 13)) return j;
  }
  if (lo === 0) return 0;
  // A run of 256 non-ASCII units: segment from there (rare, long clusters aside), but from a
  // code point's start, and in a run of regional indicators from the first of a pair (flags pair
  // up counting from the run's start).
  let k = lo;
  const low = s.charCodeAt(k);
  if (low >= 0xdc00 && low <= 0xdfff) k++;
  if (isRegionalIndicator(s, k)) {
    let b = k;
    while (b >= 2 && isRegionalIndicator(s, b - 2)) b -= 2;
    if (((k - b) / 2) % 2 === 1) k += 2;
  }
  return k;
}

/** Is a regional indicator (U+1F1E6–U+1F1FF, half of a flag) at UTF-16 index `j`? */
function isRegionalIndicator(s: string, j: number): boolean {
  if (s.charCodeAt(j) !== 0xd83c) return false;
  const c = s.charCodeAt(j + 1);
  return c >= 0xdde6 && c <= 0xddff;
}

/** Cluster boundaries of `s` around `i`: the boundary at or before `i` and the one at or after. */
function around(s: string, i: number): [number, number] {
  if (i <= 0) return [0, 0];
  if (i >= s.length) return [s.length, s.length];
  // A cluster starts before a printable ASCII character that follows no Prepend character, and
  // before a line feed that follows no carriage return (as safeStart assumes): no need to segment.
  const c = s.charCodeAt(i);
  if ((c >= 0x20 && c < 0x7f && !mayPrepend(s.charCodeAt(i - 1))) || (c === 10 && s.charCodeAt(i - 1) !== 13)) return [i, i];
  const start = safeStart(s, i);
  const end = Math.min(s.length, i + WINDOW);
  // Segment a window only: the boundaries inside it do not depend on text outside, given
  // its start is a cluster start; a cluster longer than the window is cut at the window's end.
  const seg = segmenter()
    .segment(s.slice(start, end))
    .containing(i - start);
  if (seg === undefined) return [i, i];
  const a = start + seg.index;
  return a === i ? [i, i] : [a, Math.min(s.length, a + seg.segment.length)];
}

/** The last grapheme boundary at or before `i` (UTF-16 index). */
export function graphemeFloor(s: string, i: number): number {
  return around(s, i)[0];
}

/** The first grapheme boundary at or after `i` (UTF-16 index). */
export function graphemeCeil(s: string, i: number): number {
  return around(s, i)[1];
}

/** Length of the longest common prefix of `a` and `b` (UTF-16 units). */
function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Length of the longest common suffix of `a` and `b`, at most `max` (UTF-16 units). */
function commonSuffix(a: string, b: string, max: number): number {
  const n = Math.min(a.length, b.length, max);
  let i = 0;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/**
 * A middle cut as spans of the text: keep `s.slice(0, head)` and `s.slice(tail)`; `tokens` is
 * the count of `s.slice(0, head) + mark + s.slice(tail)` when the fit check counted it (a cut
 * short enough to fit by its length is not counted: -1).
 */
export interface CutSpans {
  head: number;
  tail: number;
  tokens: number;
}

/**
 * The spans of `s` the reference's cut `ref` keeps, as the longest common prefix of `ref` and
 * `s` (leaving room for the mark) and then the longest common suffix that does not overlap it.
 * A cut given as parts of `s` is compared only past the parts it shares with `s`.
 */
function refSpans(s: string, ref: CutParts | string, mark: string): [number, number] {
  const n = s.length;
  if (typeof ref === 'string') {
    let head = commonPrefix(ref, s);
    head = Math.min(head, Math.max(0, ref.length - mark.length));
    return [head, n - commonSuffix(ref, s, Math.max(0, ref.length - head - mark.length))];
  }
  const { head: h, mid, tail: t } = ref;
  // The mark itself between the parts: they are the spans (a mark's space is not the text's).
  if (mid === mark) return [h, t];
  const ml = mid.length;
  const len = h + ml + (n - t);
  // The character of the cut text at `i`.
  const at = (i: number): number => (i < h ? s.charCodeAt(i) : i < h + ml ? mid.charCodeAt(i - h) : s.charCodeAt(t + i - h - ml));
  const upTo = Math.min(len, n);
  let head = h;
  while (head < upTo && at(head) === s.charCodeAt(head)) head++;
  head = Math.min(head, Math.max(0, len - mark.length));
  const most = Math.min(len, n, Math.max(0, len - head - mark.length));
  let k = Math.min(n - t, most);
  while (k < most && at(len - 1 - k) === s.charCodeAt(n - 1 - k)) k++;
  return [head, n - k];
}

/** How far (UTF-16 units) a cut moves to keep a word whole; a longer word is cut where the budget falls. */
const WORD_REACH = 32;

/** Letters, marks and digits of any script, for one UTF-16 unit. */
const WIDE_WORD = /^[\p{L}\p{M}\p{Nd}]$/u;
/** Scripts written without spaces between words: a run of them is no word to keep whole. */
const NO_SPACES = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\p{sc=Tibetan}\p{sc=Yi}]$/u;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Whether the unit at `i` of `s` belongs to a word that a cut keeps whole: an ASCII letter,
 * digit or `_`; a `.` or `,` between two digits (`3.14`, `1,000`); a non-ASCII letter, mark or
 * digit of the BMP, except of the scripts written without spaces between words (Han, Kana,
 * Thai and the like: their cut stays where the budget falls). Surrogates are no word units,
 * so a cut never moves into an astral character.
 */
function isWordAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) {
    if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f) return true;
    return (c === 0x2e || c === 0x2c) && i > 0 && isDigit(s.charCodeAt(i - 1)) && isDigit(s.charCodeAt(i + 1));
  }
  if (c >= 0xd800 && c <= 0xdfff) return false;
  const ch = String.fromCharCode(c);
  return WIDE_WORD.test(ch) && !NO_SPACES.test(ch);
}

/** Punctuation that ends a word's sentence or clause, moved past with the word a tail cut drops. */
const CLOSERS = '.,;:!?)]}\'"';

/** Is `c` a space or a tab? */
function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/**
 * The end of a kept head moved back off a word it would split (to that word's start, for a
 * word of at most {@link WORD_REACH} units), then off the spaces before it when `mark`
 * starts with a space (which stands in for them) and a character boundary is found there:
 * `lazy d|og` keeps `lazy`, not `lazy d` or `lazy `. `head` is a grapheme boundary; so is the
 * result.
 */
function headAtWord(s: string, head: number, mark: string): number {
  let h = head;
  const w = wordAround(s, h);
  if (w >= 0) h = graphemeFloor(s, w);
  if (isBlank(mark.charCodeAt(0))) {
    let k = h;
    while (k > 0 && isBlank(s.charCodeAt(k - 1))) k--;
    if (k < h && graphemeFloor(s, k) === k) h = k;
  }
  return h;
}

/**
 * The start of a kept tail moved forward off a word it would split (to that word's end, for a
 * word of at most {@link WORD_REACH} units), then past the spaces after it when `mark` ends
 * with a space, more than spaces follow, and a character boundary is found there:
 * `nightf|all. The` keeps `The`, not `all. The` (up to three characters of punctuation that
 * close the word go with it when a space or a line end follows). `tail` is a grapheme
 * boundary; so is the result.
 */
function tailAtWord(s: string, tail: number, mark: string): number {
  const n = s.length;
  let t = tail;
  let j = t;
  if (wordAround(s, t) >= 0) {
    j = t + 1;
    while (j < n && isWordAt(s, j)) j++;
  }
  // Punctuation that closes the word dropped (or the word just before the cut) goes with it
  // (`all. The` keeps `The`), when a space or a line's end follows.
  if (j > 0 && isWordAt(s, j - 1)) {
    let k = j;
    while (k < n && k - j < 3 && CLOSERS.includes(s.charAt(k))) k++;
    if (k > j && (k === n || isBlank(s.charCodeAt(k)) || s.charCodeAt(k) === 10 || s.charCodeAt(k) === 13)) j = k;
  }
  if (j > t) t = graphemeCeil(s, j);
  if (isBlank(mark.charCodeAt(mark.length - 1))) {
    let k = t;
    while (k < n && isBlank(s.charCodeAt(k))) k++;
    // (A tail of blanks alone is kept: an empty tail would mean no tail at all. A blank that a
    // mark or a joiner follows is part of that character.)
    if (k > t && k < n && graphemeFloor(s, k) === k) t = k;
  }
  return t;
}

/**
 * The start of the word that a cut at `i` would split (the units on both sides of `i` are word
 * units, see {@link isWordAt}), or -1 when the cut splits none or the word is longer than
 * {@link WORD_REACH} units (a hash, a long identifier, a run of one letter: cut where the
 * budget falls).
 */
function wordAround(s: string, i: number): number {
  const n = s.length;
  if (i <= 0 || i >= n || !isWordAt(s, i - 1) || !isWordAt(s, i)) return -1;
  let a = i - 1;
  while (a > 0 && i - a < WORD_REACH && isWordAt(s, a - 1)) a--;
  let b = i + 1;
  while (b < n && b - a <= WORD_REACH && isWordAt(s, b)) b++;
  return b - a <= WORD_REACH && (a === 0 || !isWordAt(s, a - 1)) ? a : -1;
}

/**
 * The spans a grapheme-safe cut of `s` to `maxToks` tokens keeps around `mark`, or `null` when
 * `s` fits whole. The reference's cut gives the first estimate (its head and tail are byte
 * prefixes and suffixes of `s`); both are moved inwards to grapheme boundaries, and the budget
 * is lowered one token at a time in the rare case the joined text re-tokenises longer.
 * With no room for any text beside the mark, both spans are empty. With `regrow` (prose and
 * calls), at budgets up to 32 tokens, the reference's cut at up to 4 tokens more is tried too
 * when the words dropped leave part of the budget unused, and the cut that keeps most wins, so
 * a small budget is used (`aaaa … llll` at 4 tokens, not `aaaa … `).
 */
export function cutSpans(s: string, maxToks: number, mark = ' … ', refCut?: (k: number) => CutParts | string, regrow = false): CutSpans | null {
  if (fitsToks(s, maxToks)) return null;
  const markToks = lenToks(mark);
  const at = (k: number): CutSpans => {
    const [h, t] = refSpans(s, refCut ? refCut(k) : midCutParts(s, k, mark, true)(k), mark);
    const head = headAtWord(s, graphemeFloor(s, h), mark);
    const tail = Math.max(head, tailAtWord(s, graphemeCeil(s, t), mark));
    // The joined text counted from the pieces of s already encoded: only its seams are encoded.
    return { head, tail, tokens: spliceCount(s, head, mark, tail, maxToks) };
  };
  for (let k = maxToks; k > markToks; k--) {
    let best = at(k);
    if (best.tokens === OVER) continue;
    // With `regrow`, at a small budget, where the words a cut drops leave much of it unused: the
    // reference's cut at a few tokens more, its words dropped too, may still fit and keep more.
    if (regrow && k === maxToks && best.tokens < maxToks && maxToks <= REGROW_MAX && refCut === undefined) {
      for (let more = k + 1; more <= k + REGROW_TRIES; more++) {
        const c = at(more);
        // (never a shorter head: a text's start says most of what it is about)
        if (c.tokens !== OVER && c.head >= best.head && c.head - c.tail > best.head - best.tail) best = c;
      }
    }
    return best;
  }
  return { head: 0, tail: s.length, tokens: -1 };
}

/** Budgets up to which {@link cutSpans} tries the reference's cut at a few more tokens. */
const REGROW_MAX = 32;
/** How many more tokens it tries. */
const REGROW_TRIES = 4;

/**
 * The longest prefix of `mark` made of whole grapheme clusters that fits `maxToks` (`''` when
 * none does): the clean rendering when the budget is too small for the mark itself.
 */
export function markWithin(mark: string, maxToks: number): string {
  if (fitsToks(mark, maxToks)) return mark;
  let best = '';
  let at = 0;
  for (const { segment } of segmenter().segment(mark)) {
    const next = mark.slice(0, at + segment.length);
    if (!fitsToks(next, maxToks)) break;
    best = next;
    at += segment.length;
  }
  return best;
}

/**
 * The clean middle cut: like `truncToksMid(s, maxToks, mark)` (a budget of 0 or less gives
 * `''`, a text that fits is returned whole) but only whole grapheme clusters of `s` are kept,
 * so it never holds U+FFFD that `s` does not, a split emoji or ZWJ sequence, or a combining
 * mark without its base; the result fits `maxToks`. A budget too small for any text beside the
 * mark gives the mark alone (or its longest whole-character prefix that fits). `regrow`: see
 * {@link cutSpans} (a small budget used in full).
 */
export function cleanTruncMid(s: string, maxToks: number, mark = ' … ', regrow = false): string {
  return cleanAt(s, maxToks, mark, undefined, regrow);
}

function cleanAt(s: string, maxToks: number, mark: string, refCut?: (k: number) => CutParts | string, regrow = false): string {
  return cutText(s, cleanPartsAt(s, maxToks, mark, refCut, regrow));
}

/** The clean cut of {@link cleanTruncMid} as parts of `s` when it keeps text around the mark, else as its text. */
function cleanPartsAt(s: string, maxToks: number, mark: string, refCut?: (k: number) => CutParts | string, regrow = false): CutParts | string {
  if (maxToks <= 0) return '';
  const spans = cutSpans(s, maxToks, mark, refCut, regrow);
  if (spans === null) return s;
  if (spans.head === 0 && spans.tail === s.length) return markWithin(mark, maxToks);
  return { head: spans.head, mid: mark, tail: spans.tail };
}

/**
 * {@link cleanTruncMid} with the token count of its result: `{ text, tokens }` where
 * `tokens === lenToks(text)`, taken from the cut's fit check where it counted the text.
 */
export function cleanTruncMidCounted(s: string, maxToks: number, mark = ' … '): { text: string; tokens: number } {
  if (maxToks <= 0) return { text: '', tokens: 0 };
  const spans = cutSpans(s, maxToks, mark);
  let text: string;
  if (spans === null) text = s;
  else if (spans.head === 0 && spans.tail === s.length) text = markWithin(mark, maxToks);
  else {
    text = s.slice(0, spans.head) + mark + s.slice(spans.tail);
    if (spans.tokens >= 0) return { text, tokens: spans.tokens };
  }
  return { text, tokens: lenToks(text) };
}

/**
 * Clean cuts of one text at every budget up to `maxToks`, sharing one tokenisation (as
 * `midCuts` does for the reference's cut): `k => cleanTruncMid(s, k, mark)` for `k <= maxToks`.
 */
export function cleanMidCuts(s: string, maxToks: number, mark = ' … '): (k: number) => string {
  const ref = midCutParts(s, maxToks, mark, false);
  return (k) => cleanAt(s, k, mark, ref);
}

/**
 * {@link cleanMidCuts} with each cut given as {@link CutParts} of `s` (`{ head, mid: mark,
 * tail }`, its text `s.slice(0, head) + mark + s.slice(tail)`) where it keeps text around the
 * mark, and as its text otherwise (`''`, `s` whole, or the mark alone or a prefix of it), so
 * that a caller can count the cut from the pieces of `s` without comparing texts.
 * `cutText(s, cleanMidCutParts(s, n, mark)(k)) === cleanTruncMid(s, k, mark)` for `k <= n`.
 */
export function cleanMidCutParts(s: string, maxToks: number, mark = ' … '): (k: number) => CutParts | string {
  const ref = midCutParts(s, maxToks, mark, false);
  return (k) => cleanPartsAt(s, k, mark, ref);
}
