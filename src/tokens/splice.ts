/**
 * Token counts of texts spliced from a budgeted text (SPEC §2 counts, exactly): the tokens of
 * `pre + s.slice(0, head) + mid + s.slice(tail) + suf` from the pieces of `s` already encoded
 * (its front, `fronts.ts`) and a record of the pieces of its end, so that a cut of `s` is
 * counted by encoding only its seams: the few pieces around each join, not the kept text.
 *
 * Why the known pieces still hold in the spliced text. The pre-tokeniser reads forward only:
 * - a piece of `s` that ends at `q`, where `s[q - 1]` is not white space, was decided by the
 *   characters up to `q + 2` at most (a letter, number or punctuation run looks one character
 *   past its end, a contraction `'re` three), so every piece of `s` up to such a `q`, at least
 *   {@link MARGIN} units before a join, is a piece of the spliced text too;
 * - a resynchronisation point (`resync.ts`, `isBoundary`) is a piece boundary in every scan
 *   that reaches it, and whether a position is one depends on the two characters around it; so
 *   from such a point in the kept tail, the pieces are those of `s`, up to a piece end as above
 *   {@link MARGIN} units before the end of `s` (where `suf` follows).
 * The seams in between are encoded as they stand in the spliced text (with the characters that
 * follow them, so their last pieces are decided as in the whole). When a condition cannot be
 * met (no resynchronisation point near a join, a seam that does not end where expected), the
 * spliced text is counted directly.
 */
import { encodePiece } from './bpe.js';
import { ENDS_FROM, endRecord, utf8Within } from './budget.js';
import { checkText } from './encode.js';
import { FRONT_MAX_IDS, frontOf, knownCount, noteCount, type Front, type PieceRecord, type SeamMemo } from './fronts.js';
import { pieceEnd, WS } from './pretokenize.js';
import { tbl, type Table } from './ranks.js';
import { isBoundary } from './resync.js';

/** Remember a text's token count (see `fronts.ts`), for renderers that make a text they know the count of. */
export { noteCount };

/**
 * Units kept between a known piece end and a join: the scan that ends a piece at `q` after a
 * character other than white space reads at most `s[q, q + 3)` (a contraction such as `'ll`),
 * so 3 would do; one more for slack. (Fewer units before a join: fewer pieces encoded again.)
 */
const MARGIN = 4;
/** Units of text after a seam's last piece given to the scan, so that piece is decided as in the whole. */
const LOOK = 8;
/** How far past a join a resynchronisation point is looked for. */
const SYNC_SCAN = 256;
/** End seams (the text after the last stable piece, then the suffix) up to this many units are counted whole. */
const SEAM_WHOLE = 64;
/** Spliced texts shorter than this are counted directly. */
const DIRECT_BELOW = 96;

const WS_CHAR = new RegExp(`[${WS}]`);

/** Whether the UTF-16 unit `c` is white space to the pre-tokeniser (all such characters are in the BMP). */
function isWs(c: number): boolean {
  if (c < 0x80) return c === 32 || (c >= 9 && c <= 13);
  return WS_CHAR.test(String.fromCharCode(c));
}

/** Index of the last element of the ascending `a` that is at most `x`, or -1. */
function lastAtMost(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length - 1;
  let at = -1;
  while (lo <= hi) {
    const m = (lo + hi) >> 1;
    if (a[m]! <= x) {
      at = m;
      lo = m + 1;
    } else hi = m - 1;
  }
  return at;
}

/**
 * Tokens of the pieces of `x`, scanned from 0, that end at or before `stop`; -1 when no piece
 * ends exactly at `stop`. Once the count provably exceeds `budget` (a piece of k units has at
 * least k / maxLen tokens, so a giant piece need not be merged) a number above `budget` is
 * returned early.
 */
function countTo(x: string, stop: number, t: Table, budget: number): number {
  let count = 0;
  let pos = 0;
  while (pos < stop) {
    const end = pieceEnd(x, pos);
    if (count + Math.ceil((end - pos) / t.maxLen) > budget) return budget + 1;
    count += encodePiece(x, pos, end, t, null);
    pos = end;
    if (count > budget) return count;
  }
  return pos === stop ? count : -1;
}

/** Tokens of all of `x` (a number above `budget` once it exceeds it, see {@link countTo}). */
function countAll(x: string, t: Table, budget: number): number {
  return countTo(x, x.length, t, budget);
}

/**
 * The last piece end `q` of `ends` with `floor < q <= limit` that follows a character other
 * than white space, or -1 when there is none.
 */
function stableEnd(s: string, ends: readonly number[], limit: number, floor: number): number {
  for (let i = lastAtMost(ends, limit); i >= 0; i--) {
    const q = ends[i]!;
    if (q <= floor) return -1;
    if (!isWs(s.charCodeAt(q - 1))) return q;
  }
  return -1;
}

/** Token count up to the piece end `q` of a record (`q === from` gives 0), or -1 when `q` is no piece end there. */
function cumAt(ends: readonly number[], cums: readonly number[], from: number, q: number): number {
  if (q === from) return 0;
  const i = lastAtMost(ends, q);
  return i >= 0 && ends[i] === q ? cums[i]! : -1;
}

/** The first resynchronisation point in `[lo, min(hi, s.length))`, or -1. */
function syncIn(s: string, lo: number, hi: number): number {
  const end = Math.min(hi, s.length);
  for (let p = lo; p < end; p++) if (isBoundary(s, p)) return p;
  return -1;
}

/**
 * Encode the front of `s` (recording its pieces) until it covers `upTo`, or holds more than
 * `stopIds` ids and ends after a character other than white space, or holds more than
 * {@link FRONT_MAX_IDS} ids.
 */
function extendFront(f: Front, upTo: number, stopIds: number, t: Table): void {
  const { s, ids, ends, cums } = f;
  let pos = f.pos;
  const most = Math.min(stopIds, FRONT_MAX_IDS);
  while (pos < upTo) {
    // (Past `stopIds` ids the white-space test decides; past FRONT_MAX_IDS the front stops.)
    if (ids.length > most && (ids.length > FRONT_MAX_IDS || (pos > 0 && !isWs(s.charCodeAt(pos - 1))))) break;
    const end = pieceEnd(s, pos);
    encodePiece(s, pos, end, t, ids);
    f.pos = pos = end;
    ends.push(end);
    cums.push(ids.length);
  }
}

/**
 * Tokens of the pieces of `rec` (of `s`) that are pieces of `… + s + suf` too: all of them
 * when `suf` is empty, else those up to a piece end {@link MARGIN} units before the end.
 */
function endSpan(s: string, rec: PieceRecord, suf: string): number {
  const { ends, cums } = rec;
  if (ends.length === 0) return 0;
  if (suf === '') return cums[cums.length - 1]!;
  const e = stableEnd(s, ends, s.length - MARGIN, rec.from);
  return e < 0 ? 0 : cums[lastAtMost(ends, e)]!;
}

/** The record of the pieces of `s` from a resynchronisation point at or before `j` (kept on the front). */
function recordFrom(f: Front, j: number, t: Table): PieceRecord {
  const known = f.rec;
  if (known !== undefined && known.from <= j) return known;
  const s = f.s;
  const rec: PieceRecord = { from: j, ends: [], cums: [] };
  let count = 0;
  for (let pos = j; pos < s.length; ) {
    const end = pieceEnd(s, pos);
    count += encodePiece(s, pos, end, t, null);
    pos = end;
    rec.ends.push(end);
    rec.cums.push(count);
  }
  f.rec = rec;
  return rec;
}

/**
 * `lenToks(pre + s.slice(0, head) + mid + s.slice(tail) + suf)`, exactly, encoding only the
 * seams when `s` has been budgeted before (its front covers `head`); a count above `limit` may
 * be returned as any number above `limit`. Requires `0 <= head <= tail <= s.length`.
 */
export function spliceToks(s: string, head: number, mid: string, tail: number, limit: number, pre = '', suf = ''): number {
  const n = s.length;
  if (!(head >= 0 && head <= tail && tail <= n)) throw new RangeError(`spliceToks: bad spans ${head}, ${tail} of ${n}`);
  if (limit < 0) limit = 0; // every count is above a negative limit
  const t = tbl();
  const direct = (): number => countAll(pre + s.slice(0, head) + mid + s.slice(tail) + suf, t, limit);
  if (pre.length + head + mid.length + (n - tail) + suf.length < DIRECT_BELOW) return direct();
  if (head === n && mid === '' && pre === '' && suf === '') {
    const known = knownCount(s);
    if (known >= 0) return known;
  }
  const f = frontOf(s);
  // Head side: the pieces of s from j0 to q are pieces of the splice; with a prefix, j0 is a
  // resynchronisation point (the prefix may change the first pieces), else 0.
  const reach = head - MARGIN;
  let j0 = 0;
  let q = 0;
  let known = 0;
  if (pre !== '') j0 = reach - LOOK > 2 ? syncIn(s, 2, Math.min(reach - LOOK, SYNC_SCAN)) : -1;
  if (j0 >= 0 && reach > 0) {
    extendFront(f, j0, Number.MAX_SAFE_INTEGER, t);
    const fj0 = cumAt(f.ends, f.cums, 0, j0);
    if (fj0 < 0) return direct();
    if (head === n && mid === '' && limit < FRONT_MAX_IDS && reach - f.pos > ENDS_FROM) {
      // The whole text with a prefix or suffix: half the budget in the front, then the end
      // may show that it cannot fit, without encoding the middle (cuts need no more).
      extendFront(f, reach, Math.floor(limit / 2) + 1 + fj0, t);
      const q1 = f.pos < reach ? stableEnd(s, f.ends, f.pos, j0) : -1;
      if (q1 > 0) {
        const lower = f.cums[lastAtMost(f.ends, q1)]! - fj0 + endSpan(s, endRecord(f, limit, t), suf);
        if (lower > limit) return lower;
        // It may fit: the front needs to reach only the record's start, not the end again.
        const c = wholeByRecord(f, j0, fj0, pre, suf, limit, t);
        if (c >= 0) return c;
      }
    }
    extendFront(f, reach, limit + fj0, t);
    q = stableEnd(s, f.ends, reach, j0 + (pre === '' ? 0 : LOOK - 1));
    if (q > 0) {
      known = f.cums[lastAtMost(f.ends, q)]! - fj0;
      // The count already exceeds the limit (the rest counts at least 0).
      if (known > limit) return known;
      if (f.pos < reach) return direct(); // the front stopped short of the join (a huge head)
      if (pre !== '') {
        const m = seamsOf(f);
        let c1 = m.pre === pre && m.j0 === j0 ? m.c1 : -2;
        if (c1 === -2) {
          c1 = countTo(pre + s.slice(0, j0 + LOOK), pre.length + j0, t, limit - known);
          if (c1 <= limit - known) {
            m.pre = pre;
            m.j0 = j0;
            m.c1 = c1;
          }
        }
        if (c1 < 0) return direct();
        known += c1;
        if (known > limit) return known;
      }
    } else q = 0;
  }
  const hpre = q === 0 ? pre : '';
  // Tail side: from a resynchronisation point j after the join, the pieces are those of s, up
  // to a piece end e before the suffix.
  const j = tail < n ? syncIn(s, tail + 2, tail + SYNC_SCAN) : -1;
  if (j < 0 || j + LOOK + MARGIN >= n) return known + countAll(hpre + s.slice(q, head) + mid + s.slice(tail) + suf, t, limit - known);
  const m = seamsOf(f);
  // (The memo's keys are the seam's bounds, not its text: no string is made for a hit.)
  let c2 = m.tail === tail && m.j === j && m.hq === q && m.hh === head && m.hmid === mid && m.hpre === hpre ? m.c2 : -2;
  if (c2 === -2) {
    c2 = splitSeam(s, m, hpre, q, head, mid, tail, j, limit - known, t);
    if (c2 === -2) {
      const seamHead = hpre + s.slice(q, head) + mid;
      c2 = countTo(seamHead + s.slice(tail, j + LOOK), seamHead.length + (j - tail), t, limit - known);
    }
    if (c2 <= limit - known) {
      m.hpre = hpre;
      m.hq = q;
      m.hh = head;
      m.hmid = mid;
      m.tail = tail;
      m.j = j;
      m.c2 = c2;
    }
  }
  if (c2 < 0) return direct();
  if (known + c2 > limit) return known + c2;
  const rec = recordFrom(f, j, t);
  let e = n;
  if (suf !== '') {
    e = stableEnd(s, rec.ends, n - MARGIN, j);
    if (e < 0) e = j;
  }
  const rj = cumAt(rec.ends, rec.cums, rec.from, j);
  const re = cumAt(rec.ends, rec.cums, rec.from, e);
  if (rj < 0 || re < 0) return direct();
  const mid2 = known + c2 + (re - rj);
  return mid2 + endSeam(f, e, suf, limit - mid2, t);
}

/** The last text given to {@link midSplit}, and its answer. */
let splitMid = '';
let splitAt = -1;

/**
 * A UTF-16 index `i` (`0 < i < mid.length`) where every scan of a text holding `mid` has a piece
 * boundary, whatever comes before or after it, or -1 for none found: the first `i` with
 * `mid[i]` a space and `mid[i - 1]` ASCII punctuation other than `'`, or `…` (U+2026). No
 * alternative of the pre-token pattern takes such a character and then a space: a letter run
 * may begin with it but must then go on with a letter, a punctuation run stops at the space
 * (its optional tail takes only `\r`, `\n` and `/`), the white-space runs hold no punctuation.
 * The scan that decides the piece ending there reads nothing past the space, and the pattern
 * has no look-behind, so the pieces up to `i` are those of the text before `i` plus `mid[i]`,
 * and the pieces from `i` are those of the text from `i` on.
 */
export function midSplit(mid: string): number {
  if (mid === splitMid) return splitAt;
  let at = -1;
  for (let i = 1; i < mid.length; i++) {
    if (mid.charCodeAt(i) !== 32) continue;
    const c = mid.charCodeAt(i - 1);
    const punct = (c >= 0x21 && c <= 0x2f && c !== 0x27) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
    if (punct || c === 0x2026) {
      at = i;
      break;
    }
  }
  splitMid = mid;
  splitAt = at;
  return at;
}

/**
 * The middle seam's tokens (the head's seam `hpre + s.slice(q, head) + mid`, then `s[tail, j)`,
 * the pieces ending at `j`) counted in two parts split at {@link midSplit} of `mid`, each kept
 * on the memo `m` on its own, so that a cut that keeps one end of the last one encodes only the
 * other part; above `budget`, any number above it. -2 when `mid` has no split point or a part
 * has no piece end where expected (the caller then counts the seam whole).
 */
function splitSeam(s: string, m: SeamMemo, hpre: string, q: number, head: number, mid: string, tail: number, j: number, budget: number, t: Table): number {
  const at = midSplit(mid);
  if (at < 0) return -2;
  const rest = mid.length - at;
  let l = m.lq === q && m.lh === head && m.lmid === mid && m.lpre === hpre ? m.cl : -2;
  if (l === -2) {
    const left = hpre + s.slice(q, head) + mid;
    l = countTo(left, left.length - rest, t, budget);
    if (l < 0) return -2;
    if (l <= budget) {
      m.lpre = hpre;
      m.lq = q;
      m.lh = head;
      m.lmid = mid;
      m.cl = l;
    }
  }
  if (l > budget) return l;
  const right = rest === 1 ? ' ' : mid.slice(at);
  let r = m.rTail === tail && m.rJ === j && m.right === right ? m.cr : -2;
  if (r === -2) {
    r = countTo(right + s.slice(tail, j + LOOK), rest + (j - tail), t, budget - l);
    if (r < 0) return -2;
    if (r <= budget - l) {
      m.right = right;
      m.rTail = tail;
      m.rJ = j;
      m.cr = r;
    }
  }
  return l + r;
}

/**
 * Tokens of `s.slice(e) + suf` (`s` the front's text, `e` a piece end of its record), from the
 * front's seam memo when it holds them; above `budget`, any number above it. Nothing follows
 * the record when `e` is the end and `suf` is empty (0, and the memo is left as it is: the
 * counts with and without a suffix alternate). A short seam is counted whole, so that its
 * count is kept even when it is over the budget (the next cut of the text shares it).
 */
function endSeam(f: Front, e: number, suf: string, budget: number, t: Table): number {
  const s = f.s;
  if (e === s.length && suf === '') return 0;
  const m = seamsOf(f);
  if (m.e === e && m.suf === suf && m.c3 !== -2) return m.c3;
  const c3 = countAll(s.slice(e) + suf, t, s.length - e + suf.length <= SEAM_WHOLE ? Number.MAX_SAFE_INTEGER : budget);
  if (c3 >= 0 && (c3 <= budget || s.length - e + suf.length <= SEAM_WHOLE)) {
    m.e = e;
    m.suf = suf;
    m.c3 = c3;
  }
  return c3;
}

/**
 * `lenToks(pre + s + suf)` (a count above `limit` may be any number above it) from the front up
 * to the start of the record of the text's end (`f.rec`) and the record itself, or -1 when they
 * do not allow it. The record starts at a resynchronisation point, a piece boundary in every
 * scan, so the front's pieces up to it (from `j0`, see {@link spliceToks}) and the record's up to
 * a piece end {@link MARGIN} units before the end are pieces of the whole; only the prefix's seam
 * and the text's last units with `suf` are encoded besides.
 */
function wholeByRecord(f: Front, j0: number, fj0: number, pre: string, suf: string, limit: number, t: Table): number {
  const s = f.s;
  const n = s.length;
  const rec = f.rec;
  if (rec === undefined || rec.from < f.pos || rec.from + MARGIN > n || rec.from < j0 + LOOK + MARGIN) return -1;
  // Stopped short (past the limit, or a huge front): the usual way decides.
  extendFront(f, rec.from, limit + fj0, t);
  if (f.pos !== rec.from) return -1;
  let known = f.ids.length - fj0;
  if (known > limit) return known;
  if (pre !== '') {
    const c1 = preSeam(f, pre, j0, limit - known, t);
    if (c1 < 0) return -1;
    known += c1;
    if (known > limit) return known;
  }
  let e = n;
  if (suf !== '') {
    e = stableEnd(s, rec.ends, n - MARGIN, rec.from);
    if (e < 0) e = rec.from;
  }
  const re = cumAt(rec.ends, rec.cums, rec.from, e);
  if (re < 0) return -1;
  known += re;
  if (known > limit) return known;
  return known + endSeam(f, e, suf, limit - known, t);
}

/**
 * Tokens of `pre + s[0, j0)` in `pre + s` (`j0` a resynchronisation point of `s`), from the
 * front's seam memo when it holds them; a number above `budget` once they exceed it, -1 when no
 * piece ends at `j0` there.
 */
function preSeam(f: Front, pre: string, j0: number, budget: number, t: Table): number {
  const m = seamsOf(f);
  if (m.pre === pre && m.j0 === j0 && m.c1 !== -2) return m.c1;
  const c1 = countTo(pre + f.s.slice(0, j0 + LOOK), pre.length + j0, t, budget);
  if (c1 <= budget) {
    m.pre = pre;
    m.j0 = j0;
    m.c1 = c1;
  }
  return c1;
}

/** Whether the last UTF-16 unit of `x` is white space to the pre-tokeniser (false for `''`). */
export function endsInWs(x: string): boolean {
  return x.length > 0 && isWs(x.charCodeAt(x.length - 1));
}

/**
 * `lenToks(' ' + x)`, exactly, given `n === lenToks(x)`. The pieces of `x` from its first
 * resynchronisation point `j` on are pieces of `' ' + x` too (a boundary in every scan, decided
 * by the two characters around it), so only the pieces before `j` are encoded, with and without
 * the space (each with a few characters after `j`, so its last piece is decided as in the whole).
 */
export function spacedToks(x: string, n: number): number {
  const t = tbl();
  const j = x.length > 2 * LOOK ? syncIn(x, 2, Math.min(x.length - LOOK, SYNC_SCAN)) : -1;
  if (j > 0) {
    const head = x.slice(0, j + LOOK);
    const a = countTo(head, j, t, Number.MAX_SAFE_INTEGER);
    const b = countTo(' ' + head, j + 1, t, Number.MAX_SAFE_INTEGER);
    if (a >= 0 && b >= 0) return n - a + b;
  }
  return countAll(' ' + x, t, Number.MAX_SAFE_INTEGER);
}

/** The seam counts kept on `f` (see `SeamMemo`), made empty on first use. */
function seamsOf(f: Front): SeamMemo {
  let m = f.seams;
  if (m === undefined) {
    m = {
      pre: '',
      j0: -1,
      c1: -2,
      hpre: '',
      hq: -1,
      hh: -1,
      hmid: '',
      tail: -1,
      j: -1,
      c2: -2,
      e: -1,
      suf: '',
      c3: -2,
      lpre: '',
      lq: -1,
      lh: -1,
      lmid: '',
      cl: -2,
      right: '',
      rTail: -1,
      rJ: -1,
      cr: -2,
    };
    f.seams = m;
  }
  return m;
}

/**
 * Whether `lenToks(pre + s.slice(0, head) + mid + s.slice(tail) + suf) <= maxToks`, exactly
 * (see {@link spliceToks}); a text of at most `maxToks` UTF-8 bytes fits without encoding.
 */
export function spliceFits(s: string, head: number, mid: string, tail: number, maxToks: number, pre = '', suf = ''): boolean {
  if (maxToks < 0) return false;
  if (byLength(s, head, mid, tail, maxToks, pre, suf)) return true;
  return spliceToks(s, head, mid, tail, maxToks, pre, suf) <= maxToks;
}

/** What {@link spliceCount} returns for a splice over its budget. */
export const OVER = -2;

/**
 * `lenToks(pre + s.slice(0, head) + mid + s.slice(tail) + suf)` when it is at most `maxToks`
 * ({@link spliceFits} with the count it makes): the count, -1 when the splice fits by its
 * length alone (not counted), {@link OVER} when it does not fit.
 */
export function spliceCount(s: string, head: number, mid: string, tail: number, maxToks: number, pre = '', suf = ''): number {
  if (maxToks < 0) return OVER;
  if (byLength(s, head, mid, tail, maxToks, pre, suf)) return -1;
  const n = spliceToks(s, head, mid, tail, maxToks, pre, suf);
  return n <= maxToks ? n : OVER;
}

/** Whether the splice has at most `maxToks` UTF-8 bytes (so at most that many tokens). */
function byLength(s: string, head: number, mid: string, tail: number, maxToks: number, pre: string, suf: string): boolean {
  const units = pre.length + head + mid.length + (s.length - tail) + suf.length;
  if (3 * units <= maxToks) return true;
  if (units > maxToks) return false;
  return (
    utf8Within(pre, maxToks) +
      utf8Within(s.slice(0, head), maxToks) +
      utf8Within(mid, maxToks) +
      utf8Within(s.slice(tail), maxToks) +
      utf8Within(suf, maxToks) <=
    maxToks
  );
}

/**
 * `x` as a splice of `s`: `head`, `mid` and `tail` with `x === s.slice(0, head) + mid +
 * s.slice(tail)` and `head <= tail` (the longest common prefix, then the longest common suffix
 * that does not overlap it).
 */
export function asSplice(s: string, x: string): { head: number; mid: string; tail: number } {
  const n = s.length;
  if (x === s) return { head: n, mid: '', tail: n };
  const m = Math.min(n, x.length);
  let h = 0;
  while (h < m && s.charCodeAt(h) === x.charCodeAt(h)) h++;
  const room = Math.min(x.length - h, n - h);
  let k = 0;
  while (k < room && s.charCodeAt(n - 1 - k) === x.charCodeAt(x.length - 1 - k)) k++;
  return { head: h, mid: x.slice(h, x.length - k), tail: n - k };
}

/**
 * `lenToks(pre + x + suf)` (exactly; above `limit`, any count above it) for a text `x` that
 * keeps the start and the end of `s`, a text budgeted before: only the seams are encoded.
 */
export function lenToksLike(s: string, x: string, limit = Number.MAX_SAFE_INTEGER, pre = '', suf = ''): number {
  checkText(x, 'lenToksLike');
  const { head, mid, tail } = asSplice(s, x);
  return spliceToks(s, head, mid, tail, limit, pre, suf);
}

/** Whether `lenToks(pre + x + suf) <= maxToks` for a text `x` that keeps the start and end of `s` (see {@link lenToksLike}). */
export function fitsToksLike(s: string, x: string, maxToks: number, pre = '', suf = ''): boolean {
  const { head, mid, tail } = asSplice(s, x);
  return spliceFits(s, head, mid, tail, maxToks, pre, suf);
}

/**
 * `pre + x + suf` when it fits `maxToks` tokens, else `null`, for a text `x` that keeps the
 * start and end of `s` (see {@link lenToksLike}). A text that fits is remembered with its
 * count, so counting or fitting it again (a second compaction) costs a lookup.
 */
export function fitLike(s: string, x: string, maxToks: number, pre = '', suf = ''): string | null {
  const { head, mid, tail } = asSplice(s, x);
  if (maxToks < 0) return null;
  if (byLength(s, head, mid, tail, maxToks, pre, suf)) return pre + x + suf;
  const n = spliceToks(s, head, mid, tail, maxToks, pre, suf);
  if (n > maxToks) return null;
  const out = pre + x + suf;
  noteCount(out, n);
  return out;
}
