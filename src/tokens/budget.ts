/**
 * Token budgets over o200k_base (SPEC §2, §3): whether a text fits a budget
 * ({@link fitsToks}) and the reference's middle cut `trunctoks_mid` ({@link truncToksMid},
 * {@link midCuts}). Only the pieces needed are merged: pieces from the front until half the
 * budget (all a cut's head needs), then the tail pieces from a resynchronisation point near
 * the end (`resync.ts`), which a cut needs too and which often settle the budget already (the
 * two together are a lower bound of the count); the front goes on only when they do not (a
 * piece of k bytes yields 1..k tokens, which lets merges be skipped). Never the whole text,
 * except for one giant piece (megabytes of one letter), whose head tokens need its whole
 * merge, O(k log k). Budgets are tokens; string lengths UTF-16 units.
 */
import { InvalidArgumentError } from '../errors.js';
import { utf8Within } from '../python/utf8.js';

export { utf8Within };
import { encodePiece } from './bpe.js';
import { checkText, decodeLists, encToks } from './encode.js';
import { pieceEnd } from './pretokenize.js';
import { tbl, type Table } from './ranks.js';
import { syncPoint } from './resync.js';
import { FRONT_MAX_IDS, frontOf, knownCount, noteCount, privateFront, type Front, type PieceRecord } from './fronts.js';

function checkBudget(n: unknown, where: string): asserts n is number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(`${where}: maxToks must be an integer number of tokens, got ${typeof n === 'number' ? String(n) : typeof n}`);
  }
}

/** Fewest tokens a piece of `units` UTF-16 units can yield (each token <= maxLen bytes). */
function minTokens(units: number, t: Table): number {
  return Math.ceil(units / t.maxLen); // UTF-8 bytes >= UTF-16 units
}

/** Whether `s` (of `n` UTF-16 units) fits `maxToks` tokens by its length alone (no encoding). */
export function fitsByLength(s: string, n: number, maxToks: number): boolean {
  return 3 * n <= maxToks || (n <= maxToks && utf8Within(s, maxToks) <= maxToks);
}

/**
 * Whether `lenToks(s) <= maxToks`, decided with as little work as possible: a string of
 * at most `maxToks / 3` UTF-16 units always fits (a unit is at most 3 UTF-8 bytes, a token
 * at least one byte); a text just counted is looked up; otherwise pieces are merged from the
 * front until half the budget, then from the end (see the module comment), and from the front
 * again only until the count exceeds `maxToks` or the rest provably fits. Cost is O(maxToks)
 * pieces when `s` does not fit.
 * @param s the text.
 * @param maxToks budget in tokens (an integer; a negative budget never fits).
 * @returns true when `s` has at most `maxToks` tokens.
 * @throws InvalidArgumentError when `s` is not a string or `maxToks` is not a safe integer
 *   (NaN, ±Infinity, fractions and non-numbers are rejected).
 */
export function fitsToks(s: string, maxToks: number): boolean {
  checkText(s, 'fitsToks');
  checkBudget(maxToks, 'fitsToks');
  return fitsFrom(s, maxToks, true);
}

/**
 * {@link fitsToks} for a caller that will not cut `s` when it does not fit: the text is encoded
 * from the front only (its end is not encoded for a cut), which decides a text over the budget
 * with the fewest pieces, about `maxToks + 1` tokens' worth. Shares the fronts of `fitsToks`.
 * @param s the text. @param maxToks budget in tokens (an integer; a negative budget never fits).
 * @returns true when `s` has at most `maxToks` tokens.
 * @throws InvalidArgumentError as {@link fitsToks}.
 */
export function fitsToksFront(s: string, maxToks: number): boolean {
  checkText(s, 'fitsToksFront');
  checkBudget(maxToks, 'fitsToksFront');
  return fitsFrom(s, maxToks, false);
}

/** The check of {@link fitsToks}; `ends` says whether the text's end may settle it (see the module comment). */
function fitsFrom(s: string, maxToks: number, ends: boolean): boolean {
  if (maxToks < 0) return false;
  const n = s.length;
  if (fitsByLength(s, n, maxToks)) return true;
  const known = knownCount(s);
  if (known >= 0) return known <= maxToks;
  const t = tbl();
  // Huge budgets count into a private front rather than keep megabytes of ids.
  const f: Front = maxToks > FRONT_MAX_IDS ? privateFront(s) : frontOf(s);
  const ids = f.ids;
  if (ids.length > maxToks || f.over >= maxToks) return false;
  let tried = !ends;
  for (let pos = f.pos; pos < n; ) {
    if (ids.length + 3 * (n - pos) <= maxToks) return true;
    const rec = f.rec;
    if (rec !== undefined && rec.from === pos) {
      // The end's pieces are known from here: the front and they are the whole encoding.
      const total = ids.length + (rec.cums.length > 0 ? rec.cums[rec.cums.length - 1]! : 0);
      noteCount(s, total);
      return total <= maxToks;
    }
    if (!tried && ids.length > Math.floor(maxToks / 2) && n - pos > ENDS_FROM) {
      // Half the budget in the front (all a cut needs): the end may settle it now.
      tried = true;
      const d = decideByEnds(f, maxToks, t);
      if (d >= 0) return d === 0;
    }
    const end = pieceEnd(s, pos);
    const least = ids.length + minTokens(end - pos, t);
    if (least > maxToks) {
      // Known to be over without merging the piece: say so for the next check of this text.
      if (least - 1 > f.over) f.over = least - 1;
      return false;
    }
    encodePiece(s, pos, end, t, ids);
    f.pos = pos = end;
    f.ends.push(end);
    f.cums.push(ids.length);
    if (ids.length > maxToks) return false;
  }
  return true;
}

/** Texts with fewer units than this after the front are not decided by {@link decideByEnds}. */
export const ENDS_FROM = 64;

/**
 * The pieces of the end of `f.s` from a resynchronisation point at or after the front's end,
 * encoded for a budget of `maxToks` if not known yet (`tailIds`, whose last ids are kept as
 * `f.tail` for a cut). The front's ids plus the record's are a lower bound of the text's count
 * (kept as `f.over`), and its count when the record starts where the front ends.
 */
export function endRecord(f: Front, maxToks: number, t: Table): PieceRecord {
  let rec = f.rec;
  if (rec === undefined || rec.from < f.pos) {
    f.tail = tailIds(f, f.pos, f.ids, f.ids.length, Math.floor(maxToks / 2) + 1, t);
    rec = f.rec!;
  }
  const lower = f.ids.length + (rec.cums.length > 0 ? rec.cums[rec.cums.length - 1]! : 0);
  if (lower - 1 > f.over) f.over = lower - 1;
  return rec;
}

/**
 * Decide whether `f.s` has more than `maxToks` tokens without encoding its middle, from the
 * front and the end ({@link endRecord}).
 * @returns 1 when the text has more than `maxToks` tokens, 0 when it has at most `maxToks`
 *   (counted, and remembered by `noteCount`), -1 when undecided.
 */
function decideByEnds(f: Front, maxToks: number, t: Table): number {
  if (f.over >= maxToks) return 1;
  const rec = endRecord(f, maxToks, t);
  if (f.over >= maxToks) return 1;
  if (rec.from !== f.pos) return -1;
  // The record starts where the front ends: together they are the whole encoding.
  noteCount(f.s, f.ids.length + (rec.cums.length > 0 ? rec.cums[rec.cums.length - 1]! : 0));
  return 0;
}

/**
 * The last `b` ids of the encoding of `s`, given that the ids of `s[0, q)` are `front` and
 * `q` is a piece boundary. Starts from a resynchronisation point near the end, in a window
 * sized by the front's units per token, and widens it by half while it holds too few ids,
 * encoding only the new part each time (the pieces from a resynchronisation point end at the
 * next one); falls back to `q` (so at most O(n) work overall). The pieces encoded from the
 * point are recorded on `f` (`PieceRecord`), for counts of splices of `s`.
 */
function tailIds(f: Front, q: number, front: readonly number[], flen: number, b: number, t: Table): number[] {
  const s = f.s;
  const n = s.length;
  const perTok = flen > 0 ? q / flen : 4;
  // The pieces of [p, n) found so far: their ends, counts from p, and the last of their ids.
  let p = n;
  let ends: number[] = [];
  let cums: number[] = [];
  let ids: number[] = [];
  let win = Math.max(16, Math.ceil(1.05 * perTok * b) + 4);
  for (; ; win = Math.ceil(1.5 * win)) {
    const lo = n - win;
    const np = lo <= q ? q : syncPoint(s, lo, q);
    if (np < 0 || (np >= p && np !== q)) continue;
    if (np < p) {
      // Encode [np, p) in front of what is known.
      const segEnds: number[] = [];
      const segCums: number[] = [];
      const seg: number[] = [];
      let count = 0;
      let pos = np;
      // Pieces from `pos` while before `limit`, keeping the last `b` ids (and some slack).
      const encodeTo = (limit: number): void => {
        while (pos < limit) {
          const end = pieceEnd(s, pos);
          count += encodePiece(s, pos, end, t, seg);
          pos = end;
          segEnds.push(end);
          segCums.push(count);
          if (seg.length > 4 * b + 4096) seg.splice(0, seg.length - b);
        }
      };
      encodeTo(p);
      if (pos !== p) {
        // Not expected (a resynchronisation point ends the pieces before it): encode afresh.
        encodeTo(n);
        ends = segEnds;
        cums = segCums;
        ids = seg;
      } else {
        // (The first window has nothing after it: its arrays are taken as they are.)
        for (let i = 0; i < cums.length; i++) cums[i]! += count;
        ends = ends.length === 0 ? segEnds : segEnds.length > 0 ? segEnds.concat(ends) : ends;
        cums = cums.length === 0 ? segCums : segCums.length > 0 ? segCums.concat(cums) : cums;
        ids = ids.length === 0 ? seg : seg.length > 0 ? seg.concat(ids) : ids;
      }
      if (ids.length > b) ids = ids.slice(ids.length - b);
      p = np;
    }
    if (ids.length >= b || p === q) {
      f.rec = { from: p, ends, cums };
      if (p === q && ids.length < b) ids = front.slice(Math.max(0, flen - (b - ids.length)), flen).concat(ids);
      return ids;
    }
    // Too few ids: the next window is sized by the units per token of the end just encoded
    // (the loop's step then widens it by half of that); at least by a quarter.
    const have = cums.length > 0 ? cums[cums.length - 1]! : 0;
    if (have > 0) win = Math.max(Math.ceil(1.25 * (n - p)), n - p + Math.ceil((1.1 * (n - p) * (b - have)) / have) + 4) / 1.5;
  }
}

/**
 * Cut the middle out of `s` so it fits `maxToks` tokens (the reference's `trunctoks_mid`;
 * SPEC §2, fixture `dsl.json`):
 * - `maxToks <= 0` -> `''` (negative budgets included, as the reference);
 * - `s` fits -> `s` unchanged;
 * - else with `m` = the mark's tokens cut to `maxToks`, `n = maxToks - m.length`, keep the
 *   first `ceil(n/2)` and the last `floor(n/2)` tokens and decode `head + m + tail` as one
 *   UTF-8 byte string (invalid bytes at the cuts -> U+FFFD, as Python's errors='replace').
 * Only the pieces needed are merged: from the front until the budget is exceeded, and from a
 * resynchronisation point near the end for the tail, so a 5 MB input costs O(maxToks) merges.
 * @param s the text.
 * @param maxToks budget in tokens (an integer).
 * @param mark text put where the middle was cut; default `' … '` (U+2026 between spaces).
 * @returns a string of at most `maxToks` tokens when re-encoded in the usual case (a cut
 *   can re-tokenise differently at its seams, as in the reference).
 * @throws InvalidArgumentError when `s` or `mark` is not a string, or `maxToks` is not a
 *   safe integer (NaN, ±Infinity, fractions, non-numbers).
 */
export function truncToksMid(s: string, maxToks: number, mark: string = ' … '): string {
  checkText(s, 'truncToksMid');
  checkBudget(maxToks, 'truncToksMid');
  checkText(mark, 'truncToksMid', 'mark');
  return cutText(s, cutsOf(s, maxToks, mark, true, true)(maxToks));
}

/**
 * Middle cuts of one text at every budget up to `maxToks`, sharing one tokenisation: returns
 * `k => truncToksMid(s, k, mark)` for integers `k <= maxToks` (a larger `k` throws). The head
 * and tail ids are encoded once, on this call, so a caller that tries budgets one by one (the
 * fenced-code step-down of SPEC §3) pays for the merges once rather than once per budget.
 * @throws InvalidArgumentError on non-string text or mark, or a budget that is not a safe integer.
 */
export function midCuts(s: string, maxToks: number, mark: string = ' … '): (k: number) => string {
  checkText(s, 'midCuts');
  checkBudget(maxToks, 'midCuts');
  checkText(mark, 'midCuts', 'mark');
  const cut = cutsOf(s, maxToks, mark, false, true);
  return (k) => cutText(s, cut(k));
}

/**
 * A middle cut as parts of its text: `s.slice(0, head) + mid + s.slice(tail)`, where `mid` is
 * the (possibly cut) mark. {@link midCutParts} gives one where the cut's token ids split no
 * character of `s`; where they do, it gives the decoded text itself (a string).
 */
export interface CutParts {
  head: number;
  mid: string;
  tail: number;
}

/**
 * Middle cuts of `s` at every budget up to `maxToks` as {@link CutParts} (or, when the ids
 * split a character or `s` holds a lone surrogate, as the decoded text), without decoding
 * ids in the usual case: `truncToksMid(s, k, mark)` is the text of `midCutParts(...)(k)`.
 * `oneBudget` says the caller asks for `maxToks` only (see {@link truncToksMid}).
 */
export function midCutParts(s: string, maxToks: number, mark: string, oneBudget: boolean): (k: number) => CutParts | string {
  checkText(s, 'midCuts');
  checkBudget(maxToks, 'midCuts');
  checkText(mark, 'midCuts', 'mark');
  return cutsOf(s, maxToks, mark, oneBudget, true) as (k: number) => CutParts | string;
}

/** The text of a cut given as {@link CutParts} or as a string. */
export function cutText(s: string, c: CutParts | string): string {
  return typeof c === 'string' ? c : s.slice(0, c.head) + c.mid + s.slice(c.tail);
}

/** Index of the first element of the ascending `a` (within `[0, len)`) that is at least `x`, or `len`. */
function firstAtLeast(a: readonly number[], len: number, x: number): number {
  let lo = 0;
  let hi = len;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (a[m]! < x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** UTF-8 bytes of the ids `ids[from, to)`. */
function idBytes(ids: readonly number[], from: number, to: number, t: Table): number {
  let b = 0;
  for (let i = from; i < to; i++) b += t.lens[ids[i]!]!;
  return b;
}

/**
 * The UTF-16 index reached from `from` after `bytes` UTF-8 bytes of `s`, or -1 when that falls
 * inside a character or the walk meets a lone surrogate.
 */
function unitsAfter(s: string, from: number, bytes: number): number {
  let i = from;
  let b = 0;
  while (b < bytes) {
    const c = s.charCodeAt(i);
    if (c < 0x80) b += 1;
    else if (c < 0x800) b += 2;
    else if (c >= 0xd800 && c <= 0xdfff) {
      if (c > 0xdbff || (s.charCodeAt(i + 1) & 0xfc00) !== 0xdc00) return -1;
      b += 4;
      i++;
    } else b += 3;
    i++;
  }
  return b === bytes ? i : -1;
}

/** The UTF-16 index `bytes` UTF-8 bytes of `s` before `to`, or -1 (as {@link unitsAfter}). */
function unitsBefore(s: string, to: number, bytes: number): number {
  let i = to;
  let b = 0;
  while (b < bytes) {
    const c = s.charCodeAt(i - 1);
    if (c < 0x80) b += 1;
    else if (c < 0x800) b += 2;
    else if (c >= 0xd800 && c <= 0xdfff) {
      if (c < 0xdc00 || (s.charCodeAt(i - 2) & 0xfc00) !== 0xd800) return -1;
      b += 4;
      i--;
    } else b += 3;
    i--;
  }
  return b === bytes ? i : -1;
}

const DEFAULT_MARK = ' … ';

/** The ids of the mark of the last cut (read only: cuts slice them). */
let lastMark = '';
let lastMarkIds: readonly number[] = [];

/** Whether `s` holds no lone surrogate (so its UTF-8 bytes decode back to it). */
function wellFormed(s: string): boolean {
  const f = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  if (typeof f === 'function') return f.call(s);
  return !/[\uD800-\uDFFF]/.test(s);
}

/**
 * The UTF-16 index where the first `a` ids of the pieces `ends`/`cums` (ids `ids`, pieces
 * from `from`) end, or -1 when that splits a character.
 */
function headUnits(
  s: string,
  ids: readonly number[],
  ends: readonly number[],
  cums: readonly number[],
  len: number,
  from: number,
  a: number,
  t: Table,
): number {
  if (a === 0) return from;
  const i = firstAtLeast(cums, len, a);
  if (i >= len) return -1;
  if (cums[i] === a) return ends[i]!;
  const base = i > 0 ? cums[i - 1]! : 0;
  return unitsAfter(s, i > 0 ? ends[i - 1]! : from, idBytes(ids, base, a, t));
}

/**
 * The cut function behind `truncToksMid` and `midCuts`. `oneBudget` says the caller asks for
 * `maxToks` only: then a text of at most `maxToks / 3` UTF-16 units (so at most `maxToks` UTF-8
 * bytes, hence tokens) is returned whole without encoding; smaller budgets need the ids.
 * With `asParts`, a cut is returned as {@link CutParts} where its ids split no character.
 */
function cutsOf(s: string, maxToks: number, mark: string, oneBudget = true, asParts = false): (k: number) => string | CutParts {
  const whole = (k: number): string => {
    if (k > maxToks) throw new InvalidArgumentError(`midCuts: budget ${k} exceeds the ${maxToks} prepared`);
    return k <= 0 ? '' : s;
  };
  if (maxToks <= 0) return () => '';
  const n = s.length;
  if (oneBudget && fitsByLength(s, n, maxToks)) return whole;
  if (oneBudget) {
    const known = knownCount(s);
    if (known >= 0 && known <= maxToks) return whole;
  }
  const t = tbl();
  const f: Front = maxToks > FRONT_MAX_IDS ? privateFront(s) : frontOf(s);
  const front = f.ids;
  let pos = f.pos;
  let tried = false;
  const half = Math.floor(maxToks / 2);
  while (pos < n && front.length <= maxToks && !(f.over >= maxToks && front.length > half)) {
    if (!tried && front.length > half && n - pos > ENDS_FROM) {
      // The head has enough ids once front.length >= maxToks / 2 + 1: stop when the end shows
      // that the text does not fit.
      tried = true;
      const d = decideByEnds(f, maxToks, t);
      if (d === 1) break;
      if (d === 0 && oneBudget) return whole; // counted: it fits
    }
    const end = pieceEnd(s, pos);
    // A huge piece that alone overflows the budget need not be merged here: the head
    // already has enough ids once front.length >= maxToks / 2 + 1 >= ceil(n/2).
    if (front.length > maxToks >> 1 && front.length + minTokens(end - pos, t) > maxToks) break;
    encodePiece(s, pos, end, t, front);
    f.pos = pos = end;
    f.ends.push(end);
    f.cums.push(front.length);
  }
  // The ids of s[0, pos) as of now (the shared front may grow later).
  const flen = front.length;
  // `front` is the whole encoding when the text ran out within the budget.
  const complete = pos >= n && flen <= maxToks;
  if (mark !== lastMark) {
    lastMarkIds = encToks(mark);
    lastMark = mark;
  }
  const markAll = lastMarkIds;
  const bMax = Math.floor(maxToks / 2);
  let tail: number[] | undefined;
  const tailOf = (): number[] => {
    if (complete) return front.slice(Math.max(0, flen - bMax), flen);
    const known = f.tail;
    if (known && known.length >= bMax) return known;
    const fresh = tailIds(f, pos, front, flen, bMax, t);
    if (fresh.length >= bMax) f.tail = fresh;
    return fresh;
  };
  // Cuts as parts of `s`: the head's and tail's ids mapped to UTF-16 offsets through the piece
  // records, where they split no character (then their bytes decode to slices of `s`).
  const partsOf = (a: number, b: number, markIds: number[]): CutParts | null => {
    if (f.wf < 0) f.wf = wellFormed(s) ? 1 : 0;
    if (f.wf === 0 || a > flen) return null;
    const head = headUnits(s, front, f.ends, f.cums, f.ends.length, 0, a, t);
    if (head < 0) return null;
    let tl = n;
    if (b > 0) {
      const ids = tail!;
      if (complete) {
        const x = flen - b;
        const i = firstAtLeast(f.cums, f.cums.length, x + 1);
        if (i >= f.cums.length) return null;
        const base = i > 0 ? f.cums[i - 1]! : 0;
        tl = base === x ? (i > 0 ? f.ends[i - 1]! : 0) : unitsBefore(s, f.ends[i]!, idBytes(front, x, f.cums[i]!, t));
      } else {
        if (ids.length < b) return null;
        const rec = f.rec;
        const cnt = rec === undefined ? 0 : rec.cums.length;
        const total = cnt > 0 ? rec!.cums[cnt - 1]! : 0;
        if (total >= b) {
          // From the pieces of the text's end: the piece holding the tail's first id.
          const x = total - b;
          const i = firstAtLeast(rec!.cums, cnt, x + 1);
          const base = i > 0 ? rec!.cums[i - 1]! : 0;
          const off = ids.length - b; // the tail's ids of piece i start here
          tl = base === x ? (i > 0 ? rec!.ends[i - 1]! : rec!.from) : unitsBefore(s, rec!.ends[i]!, idBytes(ids, off, off + rec!.cums[i]! - x, t));
        } else {
          // The record kept is another budget's and holds fewer ids (or none): the tail's bytes,
          // counted back from the text's end, say where it starts. Either way a cut comes back
          // as parts whatever was cut before, so its callers read the same spans.
          tl = unitsBefore(s, n, idBytes(ids, ids.length - b, ids.length, t));
        }
      }
      if (tl < 0 || tl < head) return null;
    }
    const mid = markIds.length === markAll.length && (mark === DEFAULT_MARK || wellFormed(mark)) ? mark : decodeLists([markIds], t);
    return { head, mid, tail: tl };
  };
  return (k: number): string | CutParts => {
    checkBudget(k, 'midCuts');
    if (k > maxToks) throw new InvalidArgumentError(`midCuts: budget ${k} exceeds the ${maxToks} prepared`);
    if (k <= 0) return '';
    if (complete && flen <= k) return s;
    const markIds = markAll.slice(0, k);
    const room = k - markIds.length;
    const a = Math.ceil(room / 2);
    const b = Math.floor(room / 2);
    if (b > 0) tail ??= tailOf();
    if (asParts) {
      const c = partsOf(a, b, markIds);
      if (c !== null) return c;
    }
    const tl = b > 0 ? tail!.slice(Math.max(0, tail!.length - b)) : [];
    return decodeLists([front.slice(0, a), markIds, tl], t);
  };
}
