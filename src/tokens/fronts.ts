/**
 * The encoded fronts of recently budgeted texts, shared by the fit check, the count and the
 * middle cut of one text (`budget.ts`, `encode.ts`), so that `fitsToks(s, k)` followed by
 * `truncToksMid(s, k)` or `lenToks(s)` encodes the head of `s` once.
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
  const f: Front = { s, ids: [], pos: 0, tail: undefined };
  FRONTS[frontNext] = f;
  frontNext = (frontNext + 1) % FRONTS_KEPT;
  return f;
}

/** Forget the encoded fronts (test hook, with the piece cache). */
export function clearFronts(): void {
  FRONTS.length = 0;
  frontNext = 0;
}

/** Tokens of `s` continuing from what a budget check already encoded (`lenToks` uses this). */
export function countFrom(s: string, t: Table): number {
  const f = frontFind(s);
  let count = f ? f.ids.length : 0;
  for (let pos = f ? f.pos : 0; pos < s.length; ) {
    const end = pieceEnd(s, pos);
    count += encodePiece(s, pos, end, t, null);
    pos = end;
  }
  return count;
}
