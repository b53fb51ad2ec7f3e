/**
 * The o200k_base vocabulary (SPEC §2): rank data from `js-tiktoken/ranks/o200k_base`, decoded
 * on first use (not at import) into a byte table and an open-addressing hash from token bytes
 * to rank, so lookups allocate no string. See docs/benchmarks.md for the load cost.
 */
import o200k from 'js-tiktoken/ranks/o200k_base';

/** Decoded vocabulary: token bytes by rank, and an open-addressing hash table from bytes to rank. */
export interface Table {
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

/** Rank of "no token". */
export const NONE = -1;
let table: Table | undefined;

const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
}

/** FNV-1a over `p[a, b)` plus a final mix; the table's hash. */
export function hashBytes(p: Uint8Array, a: number, b: number): number {
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

/** The vocabulary, decoded on the first call. */
export function tbl(): Table {
  if (table === undefined) table = loadTable();
  return table;
}

/** Whether the vocabulary has been decoded yet. */
export function tableLoaded(): boolean {
  return table !== undefined;
}

/** Rank of the bytes `p[a, b)` (b > a), or NONE when they are not a token. */
export function rankOf(t: Table, p: Uint8Array, a: number, b: number): number {
  const len = b - a;
  if (len === 1) return t.byte1[p[a]!]!;
  if (len === 2) return t.pair2[(p[a]! << 8) | p[a + 1]!]!;
  if (len > t.maxLen) return NONE;
  return probe(t, p, a, b, hashBytes(p, a, b));
}

/** Hash-table lookup of `p[a, b)` (3 <= b - a <= maxLen) whose hash is `h`. */
export function probe(t: Table, p: Uint8Array, a: number, b: number, h: number): number {
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
