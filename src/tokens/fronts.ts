/**
 * The encoded fronts of recently budgeted texts, shared by the fit check, the count and the
 * middle cut of one text (`budget.ts`, `encode.ts`), so that `fitsToks(s, k)` followed by
 * `truncToksMid(s, k)` or `lenToks(s)` encodes the head of `s` once; with each front, where its
 * pieces end and the pieces of its text's end, from which `splice.ts` counts cuts of the text;
 * and the counts of a few texts just made, which are often counted again.
 */
import { encodePiece } from './bpe.js';
import { pieceEnd } from './pretokenize.js';
import type { Table } from './ranks.js';

/** Budgets above this many tokens do not keep their ids here (they would hold megabytes). */
export const FRONT_MAX_IDS = 1 << 16;

/**
 * The encoded front of a recently budgeted text: `ids` are the ids of `s[0, pos)`, `pos` a
 * piece boundary; `tail` the last ids of the whole text when a cut has needed them. A few are
 * kept, so the fit check, the count and the cut of one text (and the budgets a caller tries in
 * turn) share one encoding instead of each encoding the head again.
 */
export interface Front {
  s: string;
  ids: number[];
  pos: number;
  tail: number[] | undefined;
  /** End of each piece encoded into `ids`, and `ids.length` after it (`splice.ts` counts from them). */
  ends: number[];
  cums: number[];
  /** Piece ends and counts of the text's end, from a resynchronisation point (`splice.ts`). */
  rec: PieceRecord | undefined;
  /** The text is known to have more tokens than this (-1: nothing known). */
  over: number;
  /** Whether the text holds no lone surrogate: 1 yes, 0 no, -1 not known yet. */
  wf: number;
  /** The seams of the text's last splice count (`splice.ts`), which the next count often shares. */
  seams: SeamMemo | undefined;
}

/**
 * Token counts of the seams of a splice of a front's text `s` (`splice.ts`): the prefix seam
 * (`pre` before the text up to the resynchronisation point `j0`), the middle seam (the head's
 * seam `hpre + s.slice(hq, hh) + hmid`, then the text's end from `tail` up to the point `j`)
 * and the end seam (the text from `e`, then `suf`). A count is kept only when exact (-1 for
 * "no piece ends there", also exact); -2 means unknown.
 */
export interface SeamMemo {
  pre: string;
  j0: number;
  c1: number;
  hpre: string;
  hq: number;
  hh: number;
  hmid: string;
  tail: number;
  j: number;
  c2: number;
  e: number;
  suf: string;
  c3: number;
  /**
   * The middle seam in two parts, split at a piece boundary inside the middle text (see
   * `splice.ts`, `midSplit`): the tokens `cl` of the head's seam `lpre + s.slice(lq, lh) +`
   * the middle up to the split (`lmid` the whole middle), and the tokens `cr` of the middle's
   * rest `right` then the text from `rTail` up to the point `rJ`; so a cut that moves one end
   * of its middle alone (as a budget stepped down one token at a time does) encodes only that
   * end's part again.
   */
  lpre: string;
  lq: number;
  lh: number;
  lmid: string;
  cl: number;
  right: string;
  rTail: number;
  rJ: number;
  cr: number;
}

/**
 * The pieces of `s[from, s.length)`, `from` a resynchronisation point: the end of each piece
 * and the token count from `from` to it.
 */
export interface PieceRecord {
  from: number;
  ends: number[];
  cums: number[];
}

/** A front of `s` that no one else shares (budgets above {@link FRONT_MAX_IDS}). */
export function privateFront(s: string): Front {
  return { s, ids: [], pos: 0, tail: undefined, ends: [], cums: [], rec: undefined, over: -1, wf: -1, seams: undefined };
}
const FRONTS: Front[] = [];
const FRONTS_KEPT = 4;
let frontNext = 0;

export function frontFind(s: string): Front | undefined {
  for (let i = 0; i < FRONTS.length; i++) if (FRONTS[i]!.s === s) return FRONTS[i];
  return undefined;
}

export function frontOf(s: string): Front {
  const known = frontFind(s);
  if (known) return known;
  const f = privateFront(s);
  FRONTS[frontNext] = f;
  frontNext = (frontNext + 1) % FRONTS_KEPT;
  return f;
}

/**
 * Token counts of recently made texts that are likely to be counted again (a cut that a caller
 * checks once more, a rendering compacted a second time to confirm its fixed point), so that
 * the second count is a lookup. Only texts of at least {@link COUNT_MIN_UNITS} units are kept.
 */
const COUNTS: Array<{ s: string; n: number }> = [];
const COUNTS_KEPT = 8;
const COUNT_MIN_UNITS = 64;
let countNext = 0;

/** Remember that `s` has `n` tokens (`n` must be its exact count). */
export function noteCount(s: string, n: number): void {
  if (s.length < COUNT_MIN_UNITS) return;
  COUNTS[countNext] = { s, n };
  countNext = (countNext + 1) % COUNTS_KEPT;
}

/** The remembered token count of `s`, or -1. */
export function knownCount(s: string): number {
  if (s.length < COUNT_MIN_UNITS) return -1;
  for (let i = 0; i < COUNTS.length; i++) {
    const e = COUNTS[i]!;
    if (e.s.length === s.length && e.s === s) return e.n;
  }
  return -1;
}

/** Forget the encoded fronts and the remembered counts (test hook, with the piece cache). */
export function clearFronts(): void {
  FRONTS.length = 0;
  frontNext = 0;
  COUNTS.length = 0;
  countNext = 0;
  SHORT_COUNTS.clear();
}

/**
 * Counts of short texts (marks, prefixes, delimiters: counted again and again by the
 * renderers), by the text; emptied when full.
 */
const SHORT_COUNTS = new Map<string, number>();
const SHORT_UNITS = 16;
const SHORT_KEPT = 4096;

/** Tokens of `s` continuing from what a budget check already encoded (`lenToks` uses this). */
export function countFrom(s: string, t: Table): number {
  if (s.length <= SHORT_UNITS) {
    const c = SHORT_COUNTS.get(s);
    if (c !== undefined) return c;
    let count = 0;
    for (let pos = 0; pos < s.length; ) {
      const end = pieceEnd(s, pos);
      count += encodePiece(s, pos, end, t, null);
      pos = end;
    }
    if (SHORT_COUNTS.size >= SHORT_KEPT) SHORT_COUNTS.clear();
    SHORT_COUNTS.set(s, count);
    return count;
  }
  const known = knownCount(s);
  if (known >= 0) return known;
  const f = frontFind(s);
  let count = f ? f.ids.length : 0;
  const rec = f ? f.rec : undefined;
  for (let pos = f ? f.pos : 0; pos < s.length; ) {
    if (rec !== undefined && rec.from === pos) {
      // The pieces of the text's end are known from here.
      count += rec.cums.length > 0 ? rec.cums[rec.cums.length - 1]! : 0;
      break;
    }
    const end = pieceEnd(s, pos);
    count += encodePiece(s, pos, end, t, null);
    pos = end;
  }
  return count;
}
