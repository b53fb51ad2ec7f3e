/**
 * Exact o200k_base token counting, encoding, decoding and middle truncation (SPEC §2).
 *
 * Results equal Python `tiktoken` 0.14 with `o200k_base` and `disallowed_special=()`:
 * text that looks like a special token (`<|endoftext|>`) is ordinary text. Checked against
 * `conformance/tokens.json` and the `len_toks` / `trunctoks_mid` cases of `dsl.json`.
 *
 * How it works, and why it stays near-linear on adversarial input:
 * - Pre-tokenisation: one forward scan with a sticky regex equal to tiktoken's o200k pattern,
 *   except that `\s` / `\S` are spelled out as the Unicode White_Space set that Rust's regex
 *   crate uses (JS `\s` adds U+FEFF and lacks U+0085), and the case-insensitive contraction
 *   group `(?i:'s|…)` is expanded the way Rust's simple case folding reads it (`'s` also
 *   matches `'ſ`, U+017F; no fixture covers that one). No alternative nests quantifiers, so
 *   the scan is linear even on a 5 MB run of one character.
 * - Byte-pair merge per piece, tiktoken's rule: a piece that is itself a token is one token;
 *   otherwise repeatedly merge the adjacent pair whose concatenation has the lowest rank,
 *   leftmost on ties. Pieces of <= 128 bytes use tiktoken's plain loop; longer ones a linked
 *   list of parts and a priority queue with lazy invalidation, O(k log k) instead of O(k²).
 *   Byte strings are looked up in an open-addressing hash table over the raw bytes (no
 *   string is allocated per lookup).
 * - Budget checks ({@link fitsToks}, {@link truncToksMid}) merge only the pieces they need:
 *   pieces from the front until the budget is decided (using "a piece of k bytes yields 1..k
 *   tokens" to skip merges), and for a middle cut the tail pieces from a resynchronisation
 *   point near the end (a position where every scan has a piece boundary), never the whole
 *   text. The one exception is a single giant piece (5 MB of one letter): its head tokens
 *   need the whole merge, O(k log k).
 * - The rank table (from `js-tiktoken/ranks/o200k_base`; its module is parsed at import,
 *   about 40 ms) is decoded on first use (about 100–130 ms), not at import. No `node:`
 *   imports: this module runs in a browser.
 *
 * Units: budgets and counts are tokens; string positions in this file are UTF-16 code units;
 * byte counts are UTF-8 bytes.
 *
 * Known limit: Unicode categories (`\p{L}`, `\p{N}`, …) come from the JS engine's Unicode
 * version; characters assigned after it (none in the fixtures) may split differently.
 */
import o200k from 'js-tiktoken/ranks/o200k_base';
import { InvalidArgumentError } from '../errors.js';

// ---------------------------------------------------------------------------------------
// Rank table (lazy)
// ---------------------------------------------------------------------------------------

/** Decoded vocabulary: token bytes by rank, and an open-addressing hash table from bytes to rank. */
interface Table {
  /** all ordinary tokens' bytes, concatenated */
  readonly bytes: Uint8Array;
  /** offset of rank r's bytes in `bytes` (valid when `lens[r] > 0`) */
  readonly offs: Int32Array;
  /** byte length of rank r, 0 when r is not an ordinary token */
  readonly lens: Int32Array;
  /** hash slots holding rank + 1 (0 = empty); size a power of two */
  readonly slots: Int32Array;
  readonly mask: number;
  /** rank of each single byte (all 256 are tokens) */
  readonly byte1: Int32Array;
  /** rank of each two-byte string `(b0 << 8) | b1`, or NONE */
  readonly pair2: Int32Array;
  /** special token id -> its UTF-8 bytes (decoding only; encoding never emits them) */
  readonly special: Map<number, Uint8Array>;
  /** longest token, in bytes */
  readonly maxLen: number;
  /** number of ordinary tokens */
  readonly size: number;
}

const NONE = -1;
let table: Table | undefined;

const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
}

/** FNV-1a over `p[a, b)` plus a final mix; the table's hash. */
function hashBytes(p: Uint8Array, a: number, b: number): number {
  let h = 0x811c9dc5;
  for (let i = a; i < b; i++) h = Math.imul(h ^ p[i]!, 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h;
}

/**
 * Decode js-tiktoken's compact rank format: lines `NAME OFFSET TOK TOK …` separated by
 * `\n`, where the i-th base64 TOK (counting from 0) has rank OFFSET + i.
 */
function loadTable(): Table {
  const text = o200k.bpe_ranks;
  let buf = new Uint8Array(text.length); // decoded bytes are shorter than their base64
  let used = 0;
  const rankList: number[] = [];
  const startList: number[] = [];
  let maxLen = 0;
  let maxRank = -1;
  for (let lineStart = 0; lineStart < text.length; ) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const nameEnd = text.indexOf(' ', lineStart);
    if (nameEnd >= 0 && nameEnd < lineEnd) {
      let offEnd = text.indexOf(' ', nameEnd + 1);
      if (offEnd < 0 || offEnd > lineEnd) offEnd = lineEnd;
      let rank = Number.parseInt(text.slice(nameEnd + 1, offEnd), 10);
      if (!Number.isInteger(rank) || rank < 0) throw new Error('tokens: malformed o200k_base rank data');
      for (let p = offEnd + 1; p < lineEnd; rank++) {
        let q = text.indexOf(' ', p);
        if (q < 0 || q > lineEnd) q = lineEnd;
        const start = used;
        let acc = 0;
        let bits = 0;
        for (let i = p; i < q; i++) {
          const c = text.charCodeAt(i);
          const v = c < 128 ? B64[c]! : -1;
          if (v < 0) continue; // '=' padding
          acc = ((acc << 6) | v) & 0xffffff;
          bits += 6;
          if (bits >= 8) {
            bits -= 8;
            buf[used++] = (acc >> bits) & 0xff;
          }
        }
        rankList.push(rank);
        startList.push(start);
        if (used - start > maxLen) maxLen = used - start;
        if (rank > maxRank) maxRank = rank;
        p = q + 1;
      }
    }
    lineStart = lineEnd + 1;
  }
  startList.push(used);
  buf = buf.slice(0, used);
  const offs = new Int32Array(maxRank + 1);
  const lens = new Int32Array(maxRank + 1);
  let cap = 1;
  while (cap < rankList.length * 2.5) cap *= 2;
  const slots = new Int32Array(cap);
  const mask = cap - 1;
  const byte1 = new Int32Array(256).fill(NONE);
  const pair2 = new Int32Array(65536).fill(NONE);
  for (let k = 0; k < rankList.length; k++) {
    const r = rankList[k]!;
    const a = startList[k]!;
    const len = startList[k + 1]! - a;
    offs[r] = a;
    lens[r] = len;
    if (len === 1) byte1[buf[a]!] = r;
    else if (len === 2) pair2[(buf[a]! << 8) | buf[a + 1]!] = r;
    let i = hashBytes(buf, a, a + len) & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = r + 1;
  }
  for (let b = 0; b < 256; b++) if (byte1[b] === NONE) throw new Error('tokens: o200k_base rank data lacks a byte token');
  const enc = new TextEncoder();
  const special = new Map<number, Uint8Array>();
  for (const [name, id] of Object.entries(o200k.special_tokens)) special.set(id, enc.encode(name));
  return { bytes: buf, offs, lens, slots, mask, byte1, pair2, special, maxLen, size: rankList.length };
}

function tbl(): Table {
  if (table === undefined) table = loadTable();
  return table;
}

/** Rank of the bytes `p[a, b)` (b > a), or NONE when they are not a token. */
function rankOf(t: Table, p: Uint8Array, a: number, b: number): number {
  const len = b - a;
  if (len === 1) return t.byte1[p[a]!]!;
  if (len === 2) return t.pair2[(p[a]! << 8) | p[a + 1]!]!;
  if (len > t.maxLen) return NONE;
  return probe(t, p, a, b, hashBytes(p, a, b));
}

/** Hash-table lookup of `p[a, b)` (3 <= b - a <= maxLen) whose hash is `h`. */
function probe(t: Table, p: Uint8Array, a: number, b: number, h: number): number {
  const { slots, mask, lens, offs, bytes } = t;
  const len = b - a;
  for (let i = h & mask; ; i = (i + 1) & mask) {
    const v = slots[i]!;
    if (v === 0) return NONE;
    const r = v - 1;
    if (lens[r] === len) {
      const o = offs[r]! - a;
      let k = a;
      while (k < b && bytes[o + k] === p[k]) k++;
      if (k === b) return r;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Pre-tokenisation
// ---------------------------------------------------------------------------------------

/** Unicode White_Space as Rust's regex crate defines `\s` (JS `\s` differs). */
const WS = '\\t-\\r \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
const UPPERISH = '\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}';
const LOWERISH = '\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}';
/** `(?i:'s|'t|'re|'ve|'m|'ll|'d)` with Rust's simple case folding (s ~ S ~ ſ). */
const CONTRACTION = "(?:'[sS\\u017F]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?";
const PATTERN = [
  `[^\\r\\n\\p{L}\\p{N}]?[${UPPERISH}]*[${LOWERISH}]+${CONTRACTION}`,
  `[^\\r\\n\\p{L}\\p{N}]?[${UPPERISH}]+[${LOWERISH}]*${CONTRACTION}`,
  `\\p{N}{1,3}`,
  ` ?[^${WS}\\p{L}\\p{N}]+[\\r\\n/]*`,
  `[${WS}]*[\\r\\n]+`,
  `[${WS}]+(?![^${WS}])`,
  `[${WS}]+`,
].join('|');

/** Sticky: `test` at `lastIndex` only, no match array built. */
const PIECE = new RegExp(PATTERN, 'uy');

/**
 * End (exclusive, UTF-16 units) of the pre-token piece starting at `pos`. V8's regex engine
 * keeps a backtrack entry per iteration of a greedy loop over non-ASCII characters and
 * throws a RangeError ("Maximum call stack size exceeded") on runs of a few million of them
 * (2.5 M of `'a\u0301'`, 5 M of `'中'`); such a piece is then found by {@link scanPiece},
 * which implements the same pattern by hand.
 */
function pieceEnd(s: string, pos: number): number {
  PIECE.lastIndex = pos;
  let found: boolean;
  try {
    found = PIECE.test(s);
  } catch (e) {
    if (e instanceof RangeError) return scanPiece(s, pos);
    throw e;
  }
  if (!found) {
    // Unreachable: every code point is a letter, number, white space or "other", and each
    // class starts some alternative.
    throw new Error(`tokens: internal error, no pre-token at offset ${pos}`);
  }
  return PIECE.lastIndex;
}

// Categories for scanPiece: A = Lu|Lt (upper-only letters), B = Ll (lower-only), I = Lm|Lo|M
// (in both letter classes of the pattern), plus M, N, any letter, white space, \r or \n.
const K_A = 1;
const K_B = 2;
const K_I = 4;
const K_M = 8;
const K_N = 16;
const K_L = 32;
const K_WS = 64;
const K_NL = 128;
const K_DONE = 256;
const RE_A = /^[\p{Lu}\p{Lt}]$/u;
const RE_B = /^\p{Ll}$/u;
const RE_I = /^[\p{Lm}\p{Lo}\p{M}]$/u;
const BMP_KIND = new Uint16Array(65536);

function kindOf(cp: number): number {
  if (cp <= 0xffff && BMP_KIND[cp] !== 0) return BMP_KIND[cp]! & 255;
  const ch = String.fromCodePoint(cp);
  let k = 0;
  if (RE_A.test(ch)) k |= K_A;
  if (RE_B.test(ch)) k |= K_B;
  if (RE_I.test(ch)) k |= K_I;
  if (RE_M.test(ch)) k |= K_M;
  if (RE_N.test(ch)) k |= K_N;
  if (RE_L.test(ch)) k |= K_L;
  if (RE_WS.test(ch)) k |= K_WS;
  if (cp === 10 || cp === 13) k |= K_NL;
  if (cp <= 0xffff) BMP_KIND[cp] = k | K_DONE;
  return k;
}

/** Width in UTF-16 units of the code point at `i` (a lone surrogate counts as one). */
function cpWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** Kind of the code point at `i` (`i < s.length`). */
function kindAt(s: string, i: number): number {
  return kindOf(s.codePointAt(i)!);
}

/** End of the longest run from `i` of code points whose kind has a bit of `mask`. */
function runEnd(s: string, i: number, mask: number): number {
  const n = s.length;
  while (i < n && kindAt(s, i) & mask) i += cpWidth(s, i);
  return i;
}

/** `i` plus the length of the contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`, any case, `'ſ`) at `i`. */
function contractionEnd(s: string, i: number): number {
  if (s.charCodeAt(i) !== 0x27) return i;
  const c1 = s.charCodeAt(i + 1) | 0x20;
  const c2 = s.charCodeAt(i + 2) | 0x20;
  if (s.charCodeAt(i + 1) === 0x17f || c1 === 0x73 || c1 === 0x74 || c1 === 0x6d || c1 === 0x64) return i + 2; // s ſ t m d
  if ((c1 === 0x72 || c1 === 0x76) && c2 === 0x65) return i + 3; // re ve
  if (c1 === 0x6c && c2 === 0x6c) return i + 3; // ll
  return i;
}

/**
 * The pre-token piece starting at `pos`, computed without the regex: the same result as
 * {@link PIECE} (the alternatives in order, with the regex's greedy-then-backtrack choices
 * worked out), in linear time and constant stack. Used for giant pieces (see {@link pieceEnd});
 * tests check it against the regex.
 */
function scanPiece(s: string, pos: number): number {
  const n = s.length;
  const k0 = kindAt(s, pos);
  const w0 = cpWidth(s, pos);
  // `[^\r\n\p{L}\p{N}]?`: an optional first code point, tried taken first.
  const prefixed = !(k0 & (K_NL | K_L | K_N));
  const starts = prefixed && pos + w0 < n ? [pos + w0, pos] : [pos];
  const U = K_A | K_I;
  const LO = K_B | K_I;
  // 1. [^\r\n\p{L}\p{N}]?[U]*[LO]+ contraction?
  for (const q of starts) {
    const u = runEnd(s, q, U);
    if (u < n && kindAt(s, u) & K_B) return contractionEnd(s, runEnd(s, u, LO));
    // backtrack into the U run: the last code point that is also in LO (an I) ends the piece
    let lastI = -1;
    for (let i = q; i < u; i += cpWidth(s, i)) if (kindAt(s, i) & K_I) lastI = i;
    if (lastI >= 0) return contractionEnd(s, lastI + cpWidth(s, lastI));
  }
  // 2. [^\r\n\p{L}\p{N}]?[U]+[LO]* contraction?
  for (const q of starts) {
    const u = runEnd(s, q, U);
    if (u > q) return contractionEnd(s, runEnd(s, u, LO));
  }
  // 3. \p{N}{1,3}
  if (k0 & K_N) {
    let e = pos;
    for (let c = 0; c < 3 && e < n && kindAt(s, e) & K_N; c++) e += cpWidth(s, e);
    return e;
  }
  // 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  const q4 = s.charCodeAt(pos) === 0x20 ? pos + 1 : pos;
  let e4 = q4;
  while (e4 < n && !(kindAt(s, e4) & (K_WS | K_L | K_N))) e4 += cpWidth(s, e4);
  if (e4 > q4) {
    for (let c = s.charCodeAt(e4); e4 < n && (c === 10 || c === 13 || c === 0x2f); c = s.charCodeAt(++e4));
    return e4;
  }
  // 5. `\s*[\r\n]+`: up to the last \r or \n of the white-space run
  const w = runEnd(s, pos, K_WS); // white space is all in the BMP
  for (let i = w - 1; i >= pos; i--) {
    const c = s.charCodeAt(i);
    if (c === 10 || c === 13) return i + 1;
  }
  // 6. `\s+(?!\S)`, 7. `\s+`
  if (w > pos) return w === n || w - pos < 2 ? w : w - 1;
  throw new Error(`tokens: internal error, no pre-token at offset ${pos}`);
}

// Character classes used to find resynchronisation points (see `isBoundary`).
const C_N = 1; // \p{N}
const C_L = 2; // \p{L}
const C_M = 4; // \p{M}
const C_WS = 8; // White_Space
const C_NL = 16; // \r or \n
const C_SLASH = 32; // '/'
const C_APOS = 64; // "'"
const RE_N = /^\p{N}$/u;
const RE_L = /^\p{L}$/u;
const RE_M = /^\p{M}$/u;
const RE_WS = new RegExp(`^[${WS}]$`, 'u');

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
function isBoundary(s: string, i: number): boolean {
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

// ---------------------------------------------------------------------------------------
// Byte-pair merge
// ---------------------------------------------------------------------------------------

/** Pieces of at most this many bytes use the quadratic loop; longer ones the heap. */
let heapFrom = 128;

// Scratch for the short loop: part starts and pair ranks (pieces of <= heapFrom bytes).
let shortStarts = new Int32Array(heapFrom + 2);
let shortPairs = new Int32Array(heapFrom + 2);

/** tiktoken's merge loop over `p[0, n)`, 2 <= n <= heapFrom; appends the ids to `out`. */
function mergeShort(p: Uint8Array, n: number, t: Table, out: number[]): void {
  const st = shortStarts;
  const pr = shortPairs;
  // Part k spans [st[k], st[k+1]); pr[k] = rank of parts k and k+1 joined (k < parts-1).
  for (let i = 0; i < n; i++) {
    st[i] = i;
    pr[i] = i + 1 < n ? t.pair2[(p[i]! << 8) | p[i + 1]!]! : NONE;
  }
  st[n] = n;
  let parts = n;
  for (;;) {
    let best = NONE;
    let at = -1;
    for (let k = 0; k + 1 < parts; k++) {
      const r = pr[k]!;
      if (r !== NONE && (best === NONE || r < best)) {
        best = r;
        at = k;
      }
    }
    if (at < 0) break;
    // Join parts `at` and `at + 1`: drop the boundary st[at + 1].
    st.copyWithin(at + 1, at + 2, parts + 1);
    pr.copyWithin(at + 1, at + 2, parts);
    parts--;
    pr[at] = at + 1 < parts ? rankOf(t, p, st[at]!, st[at + 2]!) : NONE;
    if (at > 0) pr[at - 1] = rankOf(t, p, st[at - 1]!, st[at + 1]!);
  }
  for (let k = 0; k < parts; k++) out.push(rankOf(t, p, st[k]!, st[k + 1]!));
}

const SHIFT = 4294967296; // heap key = rank * 2^32 + part start

// Binary min-heap of keys for `mergeLong` (module scratch: mergeLong is not re-entrant).
let heap = new Float64Array(1024);
let heapSize = 0;

function heapPush(key: number): void {
  if (heapSize === heap.length) {
    const bigger = new Float64Array(heap.length * 2);
    bigger.set(heap);
    heap = bigger;
  }
  const h = heap;
  let i = heapSize++;
  while (i > 0) {
    const up = (i - 1) >> 1;
    const k = h[up]!;
    if (k <= key) break;
    h[i] = k;
    i = up;
  }
  h[i] = key;
}

function heapPop(): number {
  const h = heap;
  const top = h[0]!;
  const size = --heapSize;
  const last = h[size]!;
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= size) break;
    let kc = h[c]!;
    if (c + 1 < size) {
      const k2 = h[c + 1]!;
      if (k2 < kc) {
        c++;
        kc = k2;
      }
    }
    if (kc >= last) break;
    h[i] = kc;
    i = c;
  }
  h[i] = last;
  return top;
}

// Priority queue of merge candidates for `mergeLong`, ordered by (rank, part start).
// Candidates of one rank mostly arrive left to right (a sweep of merges creates them in
// order), so each rank gets a bucket that is an ordered array consumed from a cursor; a
// candidate that arrives out of order goes to the binary heap above instead. A small heap of
// the ranks whose buckets are non-empty gives the smallest bucket. Most operations are O(1)
// on sequential memory, where a single heap of n keys is O(log n) with cache misses.
let bucketItems: Array<number[] | undefined> = [];
let bucketHead = new Int32Array(0);
const touched: number[] = [];
const activeRanks: number[] = []; // binary min-heap of ranks with a non-empty bucket

function activePush(r: number): void {
  const h = activeRanks;
  let i = h.length;
  h.push(r);
  while (i > 0) {
    const up = (i - 1) >> 1;
    if (h[up]! <= r) break;
    h[i] = h[up]!;
    i = up;
  }
  h[i] = r;
}

function activePop(): void {
  const h = activeRanks;
  const last = h.pop()!;
  const size = h.length;
  if (size === 0) return;
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= size) break;
    if (c + 1 < size && h[c + 1]! < h[c]!) c++;
    if (h[c]! >= last) break;
    h[i] = h[c]!;
    i = c;
  }
  h[i] = last;
}

function queueReset(vocab: number): void {
  for (const r of touched) {
    bucketItems[r] = undefined;
    bucketHead[r] = 0;
  }
  touched.length = 0;
  activeRanks.length = 0;
  heapSize = 0;
  if (bucketHead.length < vocab) {
    bucketHead = new Int32Array(vocab);
    bucketItems = new Array<number[] | undefined>(vocab);
  }
}

function queuePush(r: number, pos: number): void {
  let items = bucketItems[r];
  if (items === undefined) {
    bucketItems[r] = [pos];
    bucketHead[r] = 0;
    touched.push(r);
    activePush(r);
    return;
  }
  if (bucketHead[r] === items.length) {
    // consumed: start over (the rank left the active heap when it emptied)
    items.length = 0;
    items.push(pos);
    bucketHead[r] = 0;
    activePush(r);
    return;
  }
  if (pos > items[items.length - 1]!) items.push(pos);
  else heapPush(r * SHIFT + pos);
}

/** Remove and return the smallest key rank * 2^32 + start, or -1 when empty. */
function queuePop(): number {
  let best = -1;
  if (activeRanks.length > 0) {
    const r = activeRanks[0]!;
    best = r * SHIFT + bucketItems[r]![bucketHead[r]!]!;
  }
  if (heapSize > 0 && (best < 0 || heap[0]! < best)) return heapPop();
  if (best >= 0) {
    const r = activeRanks[0]!;
    if (++bucketHead[r]! === bucketItems[r]!.length) activePop();
  }
  return best;
}

/** The same merge rule with a priority queue and lazy invalidation, O(n log n); appends to `out`. */
function mergeLong(p: Uint8Array, n: number, t: Table, out: number[]): void {
  const next = new Int32Array(n); // start of the following part (n at the end)
  const prev = new Int32Array(n); // start of the preceding part (-1 at the start)
  const pair = new Int32Array(n); // rank of this part joined with the next, or NONE
  const pair2 = t.pair2;
  queueReset(t.lens.length);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  for (let i = 0; i + 1 < n; i++) {
    const r = pair2[(p[i]! << 8) | p[i + 1]!]!;
    pair[i] = r;
    if (r !== NONE) queuePush(r, i);
  }
  pair[n - 1] = NONE;
  for (;;) {
    const key = queuePop();
    if (key < 0) break;
    const r = Math.floor(key / SHIFT);
    const a = key - r * SHIFT;
    if (pair[a] !== r) continue; // stale: the part changed or was absorbed
    const b = next[a]!;
    const c = next[b]!;
    next[a] = c;
    if (c < n) prev[c] = a;
    pair[b] = NONE;
    const ra = c >= n ? NONE : rankOf(t, p, a, next[c]!);
    pair[a] = ra;
    if (ra !== NONE) queuePush(ra, a);
    const before = prev[a]!;
    if (before >= 0) {
      const rb = rankOf(t, p, before, c);
      pair[before] = rb;
      if (rb !== NONE) queuePush(rb, before);
    }
  }
  queueReset(0);
  if (heap.length > SCRATCH_KEEP) heap = new Float64Array(1024);
  for (let a = 0; a < n; a = next[a]!) out.push(rankOf(t, p, a, next[a]!));
}

/** Scratch buffers larger than this (elements) are dropped after use rather than kept. */
const SCRATCH_KEEP = 1 << 20;

// Scratch holding the UTF-8 bytes of the current piece.
let pieceBytes = new Uint8Array(1024);
const UTF8_ENC = new TextEncoder();

/**
 * Put the UTF-8 bytes of `s[start, end)` in `pieceBytes`; returns their count. Lone
 * surrogates become EF BF BD (U+FFFD), as tiktoken does with Python surrogates.
 */
function loadPiece(s: string, start: number, end: number): number {
  const units = end - start;
  if (pieceBytes.length < 3 * units) pieceBytes = new Uint8Array(Math.max(3 * units, 2 * pieceBytes.length));
  const p = pieceBytes;
  for (let i = 0; i < units; i++) {
    const c = s.charCodeAt(start + i);
    if (c > 0x7f) return i + UTF8_ENC.encodeInto(s.slice(start + i, end), p.subarray(i)).written;
    p[i] = c;
  }
  return units;
}

// Cache of merged pieces (pieces that are not a single token and need the merge loop).
// Direct-mapped on the piece's byte hash, which the whole-token lookup computes anyway, so
// a lookup costs one string comparison; a newer piece evicts an older one in its slot.
// A piece is admitted on its second sighting (`seen` remembers the hash of the last miss per
// slot), so a stream of unrepeated pieces (base64, hex) costs one integer store each.
// Bounded: CACHE_SLOTS pieces of <= CACHE_MAX_BYTES bytes. (A Map keyed by piece strings
// was measured slower: its inserts churn on unrepeated pieces.)
const CACHE_SLOTS = 4096;
const CACHE_MAX_BYTES = 64;
let cacheKeys: Array<string | undefined> = new Array<string | undefined>(CACHE_SLOTS);
let cacheIds: Array<readonly number[] | undefined> = new Array<readonly number[] | undefined>(CACHE_SLOTS);
let cacheSeen = new Int32Array(CACHE_SLOTS);

function mergeInto(n: number, t: Table, out: number[]): void {
  if (n <= heapFrom) mergeShort(pieceBytes, n, t, out);
  else mergeLong(pieceBytes, n, t, out);
}

/**
 * Token ids of the piece `s[start, end)` (tiktoken's `byte_pair_encode`, with its rule that a
 * piece which is itself a token is one token): appended to `out` when given. Returns the count.
 */
function encodePiece(s: string, start: number, end: number, t: Table, out: number[] | null): number {
  if (end - start === 1) {
    const c = s.charCodeAt(start);
    if (c < 0x80) {
      if (out) out.push(t.byte1[c]!);
      return 1;
    }
  }
  const n = loadPiece(s, start, end);
  const p = pieceBytes;
  if (n > CACHE_MAX_BYTES) {
    const whole = rankOf(t, p, 0, n);
    if (whole !== NONE) {
      if (out) out.push(whole);
      return 1;
    }
    const ids: number[] = out ?? [];
    const before = ids.length;
    mergeInto(n, t, ids);
    if (pieceBytes.length > SCRATCH_KEEP) pieceBytes = new Uint8Array(1024); // don't hold megabytes
    return ids.length - before;
  }
  const h = hashBytes(p, 0, n);
  const whole = n === 1 ? t.byte1[p[0]!]! : n === 2 ? t.pair2[(p[0]! << 8) | p[1]!]! : probe(t, p, 0, n, h);
  if (whole !== NONE) {
    if (out) out.push(whole);
    return 1;
  }
  const slot = (h >>> 20) & (CACHE_SLOTS - 1);
  const units = end - start;
  const key = cacheKeys[slot];
  let ids: readonly number[] | undefined;
  if (key !== undefined && key.length === units) {
    let k = 0;
    while (k < units && key.charCodeAt(k) === s.charCodeAt(start + k)) k++;
    if (k === units) ids = cacheIds[slot];
  }
  if (ids === undefined) {
    const tag = h | 1;
    if (cacheSeen[slot] !== tag) {
      cacheSeen[slot] = tag;
      const direct: number[] = out ?? [];
      const before = direct.length;
      mergeInto(n, t, direct);
      return direct.length - before;
    }
    const fresh: number[] = [];
    mergeInto(n, t, fresh);
    cacheKeys[slot] = s.slice(start, end);
    cacheIds[slot] = fresh;
    ids = fresh;
  }
  if (out) for (let k = 0; k < ids.length; k++) out.push(ids[k]!);
  return ids.length;
}

/** Append the ids of every piece of `s[from, s.length)` to `out` (from must be a boundary). */
function encodeFrom(s: string, from: number, out: number[], t: Table): void {
  for (let pos = from; pos < s.length; ) {
    const end = pieceEnd(s, pos);
    encodePiece(s, pos, end, t, out);
    pos = end;
  }
}

/** Fewest tokens a piece of `units` UTF-16 units can yield (each token <= maxLen bytes). */
function minTokens(units: number, t: Table): number {
  return Math.ceil(units / t.maxLen); // UTF-8 bytes >= UTF-16 units
}

// ---------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------

const UTF8_DEC = new TextDecoder('utf-8', { ignoreBOM: true });

function checkIds(ids: readonly number[], where: string, t: Table): void {
  if (!Array.isArray(ids)) throw new InvalidArgumentError(`${where}: ids must be an array of token ids, got ${typeof ids}`);
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k];
    const ok =
      typeof id === 'number' && Number.isInteger(id) && ((id >= 0 && id < t.lens.length && t.lens[id]! > 0) || t.special.has(id));
    if (!ok) throw new InvalidArgumentError(`${where}: ${String(id)} at index ${k} is not an o200k_base token id`);
  }
}

/** UTF-8 decode (invalid byte runs -> U+FFFD, as Python's errors='replace') of id lists. */
function decodeLists(lists: ReadonlyArray<readonly number[]>, t: Table): string {
  let total = 0;
  for (const ids of lists) for (const id of ids) total += t.lens[id] || t.special.get(id)!.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const ids of lists) {
    for (const id of ids) {
      const len = t.lens[id] || 0;
      if (len > 0) {
        const off = t.offs[id]!;
        for (let i = 0; i < len; i++) out[at + i] = t.bytes[off + i]!;
        at += len;
      } else {
        const sp = t.special.get(id)!;
        out.set(sp, at);
        at += sp.length;
      }
    }
  }
  return UTF8_DEC.decode(out);
}

// ---------------------------------------------------------------------------------------
// Argument checks
// ---------------------------------------------------------------------------------------

function checkText(s: unknown, where: string, what = 'text'): asserts s is string {
  if (typeof s !== 'string') throw new InvalidArgumentError(`${where}: ${what} must be a string, got ${s === null ? 'null' : typeof s}`);
}

function checkBudget(n: unknown, where: string): asserts n is number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(`${where}: maxToks must be an integer number of tokens, got ${typeof n === 'number' ? String(n) : typeof n}`);
  }
}

// ---------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------

/**
 * Encode text as o200k_base token ids, exactly as Python
 * `tiktoken.get_encoding('o200k_base').encode(s, disallowed_special=())` (SPEC §2;
 * fixture `tokens.json`). Special-token text is encoded as ordinary text.
 * Lone surrogates are encoded as U+FFFD (as tiktoken does for Python surrogates).
 * @param s the text (any string; may be empty).
 * @returns a fresh array of token ids (integers in [0, 199997]).
 * @throws InvalidArgumentError when `s` is not a string.
 */
export function encToks(s: string): number[] {
  checkText(s, 'encToks');
  const out: number[] = [];
  if (s.length > 0) encodeFrom(s, 0, out, tbl());
  return out;
}

/**
 * Decode token ids to text as Python `enc.decode(ids)` does (UTF-8 with `errors='replace'`:
 * each invalid byte run becomes U+FFFD; a leading BOM is kept). The special tokens
 * `<|endoftext|>` (199999) and `<|endofprompt|>` (200018) decode to their text.
 * Source: SPEC §2; fixture `tokens.json` (`decodes`, cuts inside multi-byte characters).
 * @param ids token ids.
 * @returns the decoded string.
 * @throws InvalidArgumentError when `ids` is not an array or holds a value that is not an
 *   o200k_base token id (Python raises KeyError there).
 */
export function decToks(ids: readonly number[]): string {
  const t = tbl();
  checkIds(ids, 'decToks', t);
  return decodeLists([ids], t);
}

/**
 * Number of o200k_base tokens in `s` (the reference's `len_toks`; SPEC §2), equal to
 * `encToks(s).length` without building the id list.
 * @param s the text.
 * @returns a token count (>= 0).
 * @throws InvalidArgumentError when `s` is not a string.
 */
export function lenToks(s: string): number {
  checkText(s, 'lenToks');
  if (s.length === 0) return 0;
  const t = tbl();
  let count = 0;
  for (let pos = 0; pos < s.length; ) {
    const end = pieceEnd(s, pos);
    count += encodePiece(s, pos, end, t, null);
    pos = end;
  }
  return count;
}

/**
 * Whether `lenToks(s) <= maxToks`, decided with as little work as possible: a string of
 * at most `maxToks / 3` UTF-16 units always fits (a unit is at most 3 UTF-8 bytes, a token
 * at least one byte); otherwise pieces are merged from the front only until the count
 * exceeds `maxToks` or the rest provably fits. Cost is O(maxToks) pieces when `s` does not fit.
 * @param s the text.
 * @param maxToks budget in tokens (an integer; a negative budget never fits).
 * @returns true when `s` has at most `maxToks` tokens.
 * @throws InvalidArgumentError when `s` is not a string or `maxToks` is not a safe integer
 *   (NaN, ±Infinity, fractions and non-numbers are rejected).
 */
export function fitsToks(s: string, maxToks: number): boolean {
  checkText(s, 'fitsToks');
  checkBudget(maxToks, 'fitsToks');
  if (maxToks < 0) return false;
  const n = s.length;
  if (3 * n <= maxToks) return true;
  const t = tbl();
  let count = 0;
  for (let pos = 0; pos < n; ) {
    if (count + 3 * (n - pos) <= maxToks) return true;
    const end = pieceEnd(s, pos);
    if (count + minTokens(end - pos, t) > maxToks) return false;
    count += encodePiece(s, pos, end, t, null);
    if (count > maxToks) return false;
    pos = end;
  }
  return true;
}

/**
 * The last `b` ids of the encoding of `s`, given that the ids of `s[0, q)` are `front` and
 * `q` is a piece boundary. Starts from a resynchronisation point near the end and widens
 * the window geometrically; falls back to `q` (so at most O(n) work overall).
 */
function tailIds(s: string, q: number, front: readonly number[], b: number, t: Table): number[] {
  const n = s.length;
  for (let win = Math.max(64, 8 * b); ; win *= 2) {
    const lo = n - win;
    const p = lo <= q ? q : syncPoint(s, lo, q);
    if (p < 0) continue;
    // Encode [p, n) keeping only a bounded suffix of ids.
    const ids: number[] = p === q ? front.slice(Math.max(0, front.length - b)) : [];
    for (let pos = p; pos < n; ) {
      const end = pieceEnd(s, pos);
      encodePiece(s, pos, end, t, ids);
      pos = end;
      if (ids.length > 4 * b + 4096) ids.splice(0, ids.length - b);
    }
    if (ids.length >= b || p === q) return ids.slice(Math.max(0, ids.length - b));
  }
}

/**
 * The first resynchronisation point in [lo, s.length), or -1 when there is none; `q < lo`
 * is a known piece boundary. Besides {@link isBoundary}, a position inside a run of number
 * characters is found from the run's start: the scan cuts such a run into groups of three
 * code points counted from where the run starts (or from `q`, when the run reaches back to it).
 */
function syncPoint(s: string, lo: number, q: number): number {
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
  return cutsOf(s, maxToks, mark)(maxToks);
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
  return cutsOf(s, maxToks, mark);
}

function cutsOf(s: string, maxToks: number, mark: string): (k: number) => string {
  const whole = (k: number): string => {
    if (k > maxToks) throw new InvalidArgumentError(`midCuts: budget ${k} exceeds the ${maxToks} prepared`);
    return k <= 0 ? '' : s;
  };
  if (maxToks <= 0) return () => '';
  const n = s.length;
  if (3 * n <= maxToks) return whole;
  const t = tbl();
  const front: number[] = [];
  let pos = 0;
  while (pos < n && front.length <= maxToks) {
    const end = pieceEnd(s, pos);
    // A huge piece that alone overflows the budget need not be merged here: the head
    // already has enough ids once front.length >= maxToks / 2 + 1 >= ceil(n/2).
    if (front.length > maxToks >> 1 && front.length + minTokens(end - pos, t) > maxToks) break;
    encodePiece(s, pos, end, t, front);
    pos = end;
  }
  // `front` is the whole encoding when the text ran out within the budget.
  const complete = pos >= n && front.length <= maxToks;
  const markAll = encToks(mark);
  const bMax = Math.floor(maxToks / 2);
  let tail: number[] | undefined;
  return (k: number): string => {
    checkBudget(k, 'midCuts');
    if (k > maxToks) throw new InvalidArgumentError(`midCuts: budget ${k} exceeds the ${maxToks} prepared`);
    if (k <= 0) return '';
    if (complete && front.length <= k) return s;
    const markIds = markAll.slice(0, k);
    const room = k - markIds.length;
    const a = Math.ceil(room / 2);
    const b = Math.floor(room / 2);
    if (b > 0) tail ??= complete ? front.slice(Math.max(0, front.length - bMax)) : tailIds(s, pos, front, bMax, t);
    const tl = b > 0 ? tail!.slice(Math.max(0, tail!.length - b)) : [];
    return decodeLists([front.slice(0, a), markIds, tl], t);
  };
}

/**
 * Internal hooks for tests and benchmarks; not part of the public API and may change.
 * - `load()`: decode the rank table now; returns the vocabulary size.
 * - `loaded()`: whether the rank table has been decoded.
 * - `pieces(s)`: the pre-token pieces of `s` (UTF-16 strings).
 * - `isBoundary(s, i)`: whether `i` is a resynchronisation point.
 * - `syncPoint(s, lo, q)`: the first resynchronisation point in `[lo, s.length)` given the
 *   piece boundary `q < lo` (number runs included), or -1.
 * - `setHeapFrom(k)`: pieces longer than `k` bytes use the heap merge (default 128).
 * - `clearCache()`: empty the piece cache.
 */
export const tokensInternals = {
  load: (): number => tbl().size,
  loaded: (): boolean => table !== undefined,
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
  /** The piece end at `pos` by the hand-written scanner (the fallback for giant pieces). */
  scanPiece,
  /** The piece end at `pos` by the regex (may throw RangeError on giant non-ASCII runs). */
  regexPieceEnd(s: string, pos: number): number {
    PIECE.lastIndex = pos;
    if (!PIECE.test(s)) throw new Error('no piece');
    return PIECE.lastIndex;
  },
  setHeapFrom(k: number): void {
    heapFrom = k;
    shortStarts = new Int32Array(k + 2);
    shortPairs = new Int32Array(k + 2);
  },
  clearCache(): void {
    cacheKeys = new Array<string | undefined>(CACHE_SLOTS);
    cacheIds = new Array<readonly number[] | undefined>(CACHE_SLOTS);
    cacheSeen = new Int32Array(CACHE_SLOTS);
  },
};
