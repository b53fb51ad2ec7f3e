/**
 * Hooks into the tokenizer's process-wide state, for tests and benchmarks only. No package
 * entry exports this module (tests import it from the source tree); it may change at any time.
 */
import { clearPieceCache, setHeapFrom, setLongFrom } from './bpe.js';
import { asciiPieceEnd, pieceEnd, regexPieceEnd, scanPiece } from './pretokenize.js';
import { tableLoaded, tbl } from './ranks.js';
import { isBoundary, syncPoint } from './resync.js';
import { clearFronts } from './fronts.js';
import { utf8Within } from './budget.js';

/**
 * - `load()`: decode the rank table now; returns the vocabulary size.
 * - `loaded()`: whether the rank table has been decoded.
 * - `pieces(s)`: the pre-token pieces of `s` (UTF-16 strings).
 * - `isBoundary(s, i)`: whether `i` is a resynchronisation point.
 * - `syncPoint(s, lo, q)`: the first resynchronisation point in `[lo, s.length)` given the
 *   piece boundary `q < lo` (number runs included), or -1.
 * - `scanPiece(s, pos)` / `regexPieceEnd(s, pos)`: the piece end at `pos` by the hand-written
 *   scanner (the fallback for giant pieces) or by the regex alone (may throw RangeError).
 * - `asciiPieceEnd(s, pos)`: the piece end by the fast path (ASCII, and non-ASCII punctuation
 *   and symbols), or -1 when it defers to the regex (a non-ASCII letter, mark, number, space or
 *   surrogate decides the piece).
 * - `setHeapFrom(k)`: pieces longer than `k` bytes use a heap merge (default 24), the others
 *   tiktoken's plain loop.
 * - `setLongFrom(k)`: heap-merged pieces longer than `k` bytes use the bucket queue, the others
 *   one binary heap (default and maximum 4096).
 * - `utf8Within(s, limit)`: the UTF-8 bytes of `s`, counted up to `limit + 1`.
 * - `clearCache()`: empty the piece cache and forget the encoded fronts of budgeted texts.
 */
export const tokensInternals = {
  load: (): number => tbl().size,
  loaded: tableLoaded,
  pieces(s: string): string[] {
    const out: string[] = [];
    for (let pos = 0; pos < s.length; ) {
      const end = pieceEnd(s, pos);
      out.push(s.slice(pos, end));
      pos = end;
    }
    return out;
  },
  isBoundary,
  syncPoint,
  scanPiece,
  regexPieceEnd,
  asciiPieceEnd: (s: string, pos: number): number => asciiPieceEnd(s, pos),
  setHeapFrom,
  setLongFrom,
  utf8Within,
  clearCache(): void {
    clearPieceCache();
    clearFronts();
  },
};
