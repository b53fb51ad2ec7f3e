/**
 * Closed boundaries of a pre-token piece: offsets between two 3-byte UTF-8 characters (Han,
 * Kana, Hangul, full-width punctuation) that no token of the vocabulary can straddle given the
 * bytes on either side. Every part the merge rule builds is a token, so no part ever spans a
 * closed boundary, the parts on each side are merged independently, and the merge of the piece
 * is the merges of its segments joined (the lowest-rank, leftmost pair of the piece is always
 * the lowest-rank, leftmost pair of its own segment). Long runs of letters without spaces then
 * merge as short segments, which repeat and are cached.
 *
 * The check is derived from the whole rank table, on first use: for every token and every
 * offset inside it where a 3-byte lead byte follows a continuation byte, the window of up to 3
 * bytes before and 3 after that offset is recorded. A token straddling the boundary between
 * characters A and B has such a window whose left side is a suffix of A and whose right side a
 * prefix of B, so a boundary for which no recorded window matches is closed.
 */
import type { Table } from './ranks.js';

/** Keys of recorded windows: (left length << 24 | left bytes, right length << 24 | right bytes); 0 = empty. */
let winLeft = new Int32Array(0);
let winRight = new Int32Array(0);
let winMask = 0;
/** 1 at `(last left byte << 8) | first right byte` of the windows shorter than 3 + 3 bytes. */
let shortEnds = new Uint8Array(0);
let builtFor: Table | undefined;

/** One bit per 2^21 hash values of the recorded windows (a filter that fits a core's cache): 0 = not recorded. */
const filter = new Int32Array(1 << 16);

function hashOf(kl: number, kr: number): number {
  let h = Math.imul(kl ^ Math.imul(kr, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 13);
}

function has(kl: number, kr: number): boolean {
  const h = hashOf(kl, kr);
  if ((filter[(h >>> 11) & 0xffff]! & (1 << (h & 31))) === 0) return false;
  for (let i = h & winMask; ; i = (i + 1) & winMask) {
    const l = winLeft[i]!;
    if (l === 0) return false;
    if (l === kl && winRight[i] === kr) return true;
  }
}

function add(kl: number, kr: number): void {
  const h = hashOf(kl, kr);
  const at = (h >>> 11) & 0xffff;
  filter[at] = filter[at]! | (1 << (h & 31));
  for (let i = h & winMask; ; i = (i + 1) & winMask) {
    const l = winLeft[i]!;
    if (l === 0) {
      winLeft[i] = kl;
      winRight[i] = kr;
      return;
    }
    if (l === kl && winRight[i] === kr) return;
  }
}

/** Record the windows of every token of `t` (once per table). */
function build(t: Table): void {
  const { bytes, offs, lens } = t;
  const found: number[] = [];
  for (let id = 0; id < lens.length; id++) {
    const len = lens[id]!;
    if (len < 2) continue;
    const o = offs[id]!;
    for (let m = 1; m < len; m++) {
      const b = bytes[o + m]!;
      const a = bytes[o + m - 1]!;
      if (!isLead3(b) || a < 0x80 || a > 0xbf) continue;
      const nl = Math.min(m, 3);
      const nr = Math.min(len - m, 3);
      let l = 0;
      for (let k = m - nl; k < m; k++) l = (l << 8) | bytes[o + k]!;
      let r = 0;
      for (let k = m; k < m + nr; k++) r = (r << 8) | bytes[o + k]!;
      found.push((nl << 24) | l, (nr << 24) | r);
    }
  }
  let cap = 1024;
  while (cap < found.length * 1.25) cap *= 2; // found holds two ints per window: load <= 0.4
  winLeft = new Int32Array(cap);
  winRight = new Int32Array(cap);
  winMask = cap - 1;
  shortEnds = new Uint8Array(65536);
  filter.fill(0);
  for (let i = 0; i < found.length; i += 2) {
    const kl = found[i]!;
    const kr = found[i + 1]!;
    add(kl, kr);
    const nl = kl >>> 24;
    const nr = kr >>> 24;
    if (nl < 3 || nr < 3) shortEnds[((kl & 0xff) << 8) | ((kr >>> ((nr - 1) * 8)) & 0xff)] = 1;
  }
  builtFor = t;
}

/**
 * Whether some recorded window has a left side that is a suffix of the character `left` and a
 * right side that is a prefix of the character `right` (each 3 bytes, big-endian in an int).
 */
function straddled(left: number, right: number): boolean {
  if (has((3 << 24) | left, (3 << 24) | right)) return true;
  if (shortEnds[((left & 0xff) << 8) | (right >>> 16)] === 0) return false;
  // The windows of tokens that start inside A or end inside B: the other eight length pairs.
  for (let nl = 1; nl <= 3; nl++) {
    const kl = (nl << 24) | (left & ((1 << (8 * nl)) - 1));
    for (let nr = 1; nr <= 3; nr++) {
      if (nl === 3 && nr === 3) continue;
      if (has(kl, (nr << 24) | (right >>> (8 * (3 - nr))))) return true;
    }
  }
  return false;
}

/** Make {@link closedAt} ready for the table `t` (recording its windows on first use). */
export function splitReady(t: Table): void {
  if (builtFor !== t) build(t);
}

/** Whether `b` is the lead byte of a 3-byte UTF-8 character. */
export function isLead3(b: number): boolean {
  return b >= 0xe0 && b <= 0xef;
}

/**
 * Whether the boundary between the 3-byte characters `left` and `right` (their bytes
 * big-endian in an int) is closed; after {@link splitReady} for the table in use.
 */
export function closedBetween(left: number, right: number): boolean {
  return !straddled(left, right);
}

/**
 * Whether `k` is a closed boundary of the valid UTF-8 bytes `p`, where `p[k - 3]` and `p[k]`
 * are the lead bytes of two 3-byte characters (after {@link splitReady} for the table in use).
 */
export function closedAt(p: Uint8Array, k: number): boolean {
  return !straddled((p[k - 3]! << 16) | (p[k - 2]! << 8) | p[k - 1]!, (p[k]! << 16) | (p[k + 1]! << 8) | p[k + 2]!);
}
