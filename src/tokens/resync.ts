/**
 * Resynchronisation points of the o200k pre-tokeniser (SPEC §2): offsets where every forward
 * scan has a piece boundary, so a scan started there yields the same pieces as one from the
 * start of the text. The middle cut (`budget.ts`) encodes a text's tail from such a point near
 * the end instead of encoding the whole text.
 */
import { RE_L, RE_M, RE_N, RE_WS } from './pretokenize.js';

// Character classes used to find resynchronisation points (see `isBoundary`).
const C_N = 1; // \p{N}
const C_L = 2; // \p{L}
const C_M = 4; // \p{M}
const C_WS = 8; // White_Space
const C_NL = 16; // \r or \n
const C_SLASH = 32; // '/'
const C_APOS = 64; // "'"

function classOf(cp: number): number {
  const ch = String.fromCodePoint(cp);
  let c = 0;
  if (RE_N.test(ch)) c |= C_N;
  if (RE_L.test(ch)) c |= C_L;
  if (RE_M.test(ch)) c |= C_M;
  if (RE_WS.test(ch)) c |= C_WS;
  if (cp === 10 || cp === 13) c |= C_NL;
  if (cp === 0x2f) c |= C_SLASH;
  if (cp === 0x27) c |= C_APOS;
  return c;
}
const ASCII_CLASS = new Uint8Array(128);
for (let i = 0; i < 128; i++) ASCII_CLASS[i] = classOf(i);

// Classes of BMP code points, filled on demand (bit 128 marks an entry as computed).
const BMP_CLASS = new Uint8Array(65536);
for (let i = 0; i < 128; i++) BMP_CLASS[i] = ASCII_CLASS[i]! | 128;

function classAt(cp: number): number {
  if (cp > 0xffff) return classOf(cp);
  let c = BMP_CLASS[cp]!;
  if (c === 0) BMP_CLASS[cp] = c = classOf(cp) | 128;
  return c & 127;
}

/**
 * True when offset `i` (0 < i < s.length) is a piece boundary in EVERY forward scan that
 * reaches past it, so a scan started at `i` produces the same pieces as one from 0:
 * - a piece holding a number character holds only number characters (`\p{N}{1,3}`), so a
 *   change between number and non-number is a boundary;
 * - a piece holding `\r`/`\n` continues only with white space or `[\r\n/]`;
 * - a piece holding a letter continues only with letters, marks or a contraction's `'`.
 */
export function isBoundary(s: string, i: number): boolean {
  const after = s.codePointAt(i)!;
  if (after >= 0xdc00 && after <= 0xdfff) {
    const hi = s.charCodeAt(i - 1);
    if (hi >= 0xd800 && hi <= 0xdbff) return false; // inside a surrogate pair
  }
  let before = s.charCodeAt(i - 1);
  if (before >= 0xdc00 && before <= 0xdfff && i >= 2) {
    const hi = s.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) before = s.codePointAt(i - 2)!;
  }
  const cb = classAt(before);
  const ca = classAt(after);
  if ((cb & C_N) !== (ca & C_N)) return true;
  if (cb & C_NL && !(ca & (C_WS | C_SLASH))) return true;
  if (cb & C_L && !(ca & (C_L | C_M | C_APOS))) return true;
  return false;
}

/**
 * The first resynchronisation point in [lo, s.length), or -1 when there is none; `q < lo`
 * is a known piece boundary. Besides {@link isBoundary}, a position inside a run of number
 * characters is found from the run's start: the scan cuts such a run into groups of three
 * code points counted from where the run starts (or from `q`, when the run reaches back to it).
 */
export function syncPoint(s: string, lo: number, q: number): number {
  const n = s.length;
  for (let p = lo; p < n; p++) if (isBoundary(s, p)) return p;
  const at = s.codePointAt(lo)!;
  if (at >= 0xdc00 && at <= 0xdfff) return -1; // inside a surrogate pair: give up here
  if (!(classAt(at) & C_N)) return -1;
  let r = lo;
  let astral = false;
  while (r > q) {
    let cp = s.charCodeAt(r - 1);
    if (cp >= 0x30 && cp <= 0x39) {
      r--; // ASCII digit, the common case
      continue;
    }
    let back = 1;
    if (cp >= 0xdc00 && cp <= 0xdfff && r - 2 >= q) {
      const hi = s.charCodeAt(r - 2);
      if (hi >= 0xd800 && hi <= 0xdbff) {
        cp = s.codePointAt(r - 2)!;
        back = 2;
      }
    }
    if (!(classAt(cp) & C_N)) break;
    astral ||= back === 2;
    r -= back;
  }
  // Code points from the run's start to lo, then on to the next multiple of three.
  let count = 0;
  if (astral) for (let i = r; i < lo; i += s.codePointAt(i)! > 0xffff ? 2 : 1) count++;
  else count = lo - r;
  let p = lo;
  while (count % 3 !== 0) {
    if (p >= n) return -1;
    p += s.codePointAt(p)! > 0xffff ? 2 : 1;
    count++;
  }
  return p < n ? p : -1;
}
