/**
 * The o200k_base vocabulary (SPEC §2): the packed table of `o200k-data.ts` (built by
 * scripts/pack-ranks.mjs from the published ranks, checked by test/tokens-packed.test.ts),
 * decoded on first use (not at import) into a byte table and an open-addressing hash from token
 * bytes to rank, so lookups allocate no string. The decoded arrays live in one buffer (a
 * SharedArrayBuffer where the engine has one), which {@link shareTable} hands to worker threads
 * and {@link adoptTable} takes, so a process decodes the table once. The packed bytes are
 * inflated by `inflate.ts` unless a host registered its own raw-DEFLATE decoder first
 * ({@link setInflateRaw}: Node's zlib, registered by the package root and the command).
 * See docs/benchmarks.md.
 */
import { inflateRaw } from './inflate.js';
import { PACKED, PACKED_BYTES, SPECIAL } from './o200k-data.js';

/** Decoded vocabulary: token bytes by rank, and an open-addressing hash table from bytes to rank. */
export interface Table {
  /** all ordinary tokens' bytes, concatenated */
  readonly bytes: Uint8Array;
  /** offset of rank r's bytes in `bytes` (valid when `lens[r] > 0`) */
  readonly offs: Int32Array;
  /** byte length of rank r, 0 when r is not an ordinary token */
  readonly lens: Int32Array;
  /**
   * hash slots of the tokens of 5 bytes or more, two ints each: rank + 1 in the low 18 bits
   * and 13 more bits of the hash above them ({@link slotTag}), so most probes that miss read
   * no token bytes (0 = empty); then the token's offset in `bytes` times 256 plus its length,
   * so a probe that hits reads this slot and the token's bytes only. `mask` + 1 slots, a power
   * of two.
   */
  readonly slots: Int32Array;
  readonly mask: number;
  /** rank of each single byte (all 256 are tokens) */
  readonly byte1: Int32Array;
  /** rank of each two-byte string `(b0 << 8) | b1`, or NONE */
  readonly pair2: Int32Array;
  /**
   * Tokens of 3 and 4 bytes by their bytes packed big-endian into an int: open-addressing
   * tables of `[key, rank]` pairs (rank NONE = empty slot), sizes powers of two.
   */
  readonly short3: Int32Array;
  readonly short4: Int32Array;
  /** special token id -> its UTF-8 bytes (decoding only; encoding never emits them) */
  readonly special: Map<number, Uint8Array>;
  /** longest token, in bytes */
  readonly maxLen: number;
  /** number of ordinary tokens */
  readonly size: number;
  /** the buffer behind the arrays (see {@link shareTable}) */
  readonly buffer: ArrayBufferLike;
}

/** Rank of "no token". */
export const NONE = -1;
let table: Table | undefined;

/** A raw-DEFLATE decoder (RFC 1951, no header): the decoded bytes of `src`. */
export type InflateRaw = (src: Uint8Array) => Uint8Array;
let hostInflate: InflateRaw | undefined;

/**
 * Inflate the packed table with `fn` (a native decoder of the host, such as Node's
 * `zlib.inflateRawSync`) instead of the JavaScript one of inflate.ts, which runs before the
 * engine has optimised it; `undefined` goes back to the JavaScript decoder. Only the decoding
 * speed changes: the table is the same, and a decoder that returns the wrong number of bytes
 * fails the decoding. Takes effect if called before the table is first used.
 */
export function setInflateRaw(fn: InflateRaw | undefined): void {
  hostInflate = fn;
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

/** The 91 characters of the packed table's text (scripts/pack-ranks.mjs): printable ASCII and the space, less quotes and backslash. */
const ALPHABET = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i))
  .filter((c) => !`'"\\\``.includes(c))
  .join('');

/**
 * The packed table's `size` bytes from its base-91 text (see scripts/pack-ranks.mjs): each two
 * characters are 13 bits, most significant first. Throws on a character outside the alphabet,
 * a group of 8192 or more, or a text too short for `size` bytes.
 */
function unbase91(text: string, size: number): Uint8Array {
  const val = new Int8Array(128).fill(-1);
  for (let i = 0; i < 91; i++) val[ALPHABET.charCodeAt(i)] = i;
  const out = new Uint8Array(Math.floor(((text.length / 2) * 13) / 8));
  if (text.length % 2 !== 0 || out.length < size) throw new Error('tokens: malformed packed rank table');
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < text.length; i += 2) {
    const a = val[text.charCodeAt(i) & 127]!;
    const b = val[text.charCodeAt(i + 1) & 127]!;
    const v = a + 91 * b;
    if (a < 0 || b < 0 || text.charCodeAt(i) > 127 || text.charCodeAt(i + 1) > 127 || v >= 8192) throw new Error('tokens: malformed packed rank table');
    acc = (acc << 13) | v;
    bits += 13;
    while (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >>> bits) & 0xff;
    }
    acc &= (1 << bits) - 1;
  }
  return out.subarray(0, size);
}

/** Int32 slots at the start of a table buffer: size, ranks, bytes, hash capacity, maxLen. */
const HEAD = 8;
/** Slots of each of the 3- and 4-byte tables (o200k_base has some 12 k and 18 k such tokens). */
const SHORT_SLOTS = 1 << 16;

/** Views of a table buffer laid out by {@link loadTable}: header, Int32 arrays, then the bytes. */
function viewsOf(buf: ArrayBufferLike): Table {
  const head = new Int32Array(buf, 0, HEAD);
  const [size, nRanks, nBytes, cap, maxLen] = [head[0]!, head[1]!, head[2]!, head[3]!, head[4]!];
  let at = HEAD * 4;
  const ints = (n: number): Int32Array => {
    const a = new Int32Array(buf, at, n);
    at += 4 * n;
    return a;
  };
  const offs = ints(nRanks);
  const lens = ints(nRanks);
  const slots = ints(2 * cap);
  const byte1 = ints(256);
  const pair2 = ints(65536);
  const short3 = ints(2 * SHORT_SLOTS);
  const short4 = ints(2 * SHORT_SLOTS);
  const bytes = new Uint8Array(buf, at, nBytes);
  const enc = new TextEncoder();
  const special = new Map<number, Uint8Array>(SPECIAL.map(([id, name]) => [id, enc.encode(name)]));
  return { bytes, offs, lens, slots, mask: cap - 1, byte1, pair2, short3, short4, special, maxLen, size, buffer: buf };
}

/**
 * Decode the packed table: inflate the front-coded lengths and bytes, read the ranks (three
 * to a 53-bit number), rebuild each token (in byte order) from its predecessor, and fill the
 * rank arrays, the short tables and the hash.
 */
function loadTable(): Table {
  const packed = unbase91(PACKED, PACKED_BYTES);
  const dv = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const n = dv.getUint32(0, true);
  const zLen = dv.getUint32(8, true);
  // H: (shared prefix, rest) lengths of each token in byte order; then S, the rests' bytes.
  const z = packed.subarray(12, 12 + zLen);
  const hsLen = dv.getUint32(4, true);
  const HS = hostInflate === undefined ? inflateRaw(z, hsLen) : hostInflate(z);
  if (HS.length !== hsLen) throw new Error('tokens: malformed packed rank table');
  const R = packed.subarray(12 + zLen);
  // The ranks, three to a 53-bit number (r0 + n r1 + n^2 r2), in byte order of the tokens.
  const ranks = new Int32Array(n);
  for (let g = 0, bit = 0; 3 * g < n; g++, bit += 53) {
    const o = bit >> 3;
    const sh = bit & 7;
    if (o + 8 > R.length) throw new Error('tokens: malformed packed rank table');
    const w1 = ((R[o]! << 24) | (R[o + 1]! << 16) | (R[o + 2]! << 8) | R[o + 3]!) >>> 0;
    const w2 = ((R[o + 4]! << 24) | (R[o + 5]! << 16) | (R[o + 6]! << 8) | R[o + 7]!) >>> 0;
    const hi = (sh === 0 ? w1 : (w1 << sh) | (w2 >>> (32 - sh))) >>> 0;
    const lo = ((w2 << sh) >>> 0) >>> 11;
    let v = hi * 2 ** 21 + lo;
    for (let k = 3 * g; k < 3 * g + 3 && k < n; k++) {
      const r = v % n;
      ranks[k] = r;
      v = (v - r) / n;
    }
  }
  let nBytes = 0;
  let maxLen = 0;
  for (let i = 0; i < n; i++) {
    const len = HS[2 * i]! + HS[2 * i + 1]!;
    nBytes += len;
    if (len > maxLen) maxLen = len;
  }
  // A hash slot keeps a token's offset and length in one int (offset * 256 + length).
  if (maxLen > 255 || nBytes >= 1 << 23) throw new Error('tokens: packed rank table too large for the hash slots');
  let cap = 1;
  while (cap < n * 2.5) cap *= 2;
  const words = HEAD + 2 * n + 2 * cap + 256 + 65536 + 4 * SHORT_SLOTS;
  const Buf = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer;
  const buf = new Buf(words * 4 + nBytes);
  new Int32Array(buf, 0, HEAD).set([n, n, nBytes, cap, maxLen]);
  const t = viewsOf(buf);
  const { bytes, offs, lens, slots, byte1, pair2, short3, short4, mask } = t;
  byte1.fill(NONE);
  pair2.fill(NONE);
  short3.fill(NONE);
  short4.fill(NONE);
  let at = 0;
  let s = 2 * n;
  let prev = 0; // offset of the previous token's bytes
  // fnv[k]: the FNV-1a state of hashBytes after the first k bytes of the previous token, which
  // the next one shares up to its prefix length: only the rest of each token is hashed.
  const fnv = new Int32Array(maxLen + 1);
  fnv[0] = 0x811c9dc5;
  for (let i = 0; i < n; i++) {
    const p = HS[2 * i]!;
    const len = p + HS[2 * i + 1]!;
    for (let k = 0; k < p; k++) bytes[at + k] = bytes[prev + k]!;
    let hash = fnv[p]!;
    for (let k = p; k < len; k++) {
      const b = HS[s++]!;
      bytes[at + k] = b;
      hash = Math.imul(hash ^ b, 0x01000193);
      fnv[k + 1] = hash;
    }
    const r = ranks[i]!;
    if (r >= n || lens[r] !== 0) throw new Error('tokens: malformed packed rank table');
    offs[r] = at;
    lens[r] = len;
    if (len === 1) byte1[bytes[at]!] = r;
    else if (len === 2) pair2[(bytes[at]! << 8) | bytes[at + 1]!] = r;
    else if (len === 3) shortPut(short3, (bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!, r);
    else if (len === 4) shortPut(short4, (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!, r);
    else {
      // Only tokens of 5 bytes or more are looked up by hash ({@link rankOf}); the final mix of hashBytes:
      hash ^= hash >>> 15;
      hash = Math.imul(hash, 0x2c1b3c6d);
      hash ^= hash >>> 12;
      let h = hash & mask;
      while (slots[2 * h] !== 0) h = (h + 1) & mask;
      slots[2 * h] = (r + 1) | slotTag(hash);
      slots[2 * h + 1] = at * 256 + len; // at < 2^23 (o200k_base has 1.4 MB of token bytes), len <= 255
    }
    prev = at;
    at += len;
  }
  for (let b = 0; b < 256; b++) if (byte1[b] === NONE) throw new Error('tokens: o200k_base rank data lacks a byte token');
  return t;
}

/**
 * The decoded table's buffer (decoding it first if needed), for a worker thread to
 * {@link adoptTable}: a SharedArrayBuffer where the engine has one (shared, not copied).
 */
export function shareTable(): ArrayBufferLike {
  return tbl().buffer;
}

/**
 * Use a table buffer from {@link shareTable} (of another thread) instead of decoding the
 * packed table; ignored when this thread has decoded or adopted one already.
 */
export function adoptTable(buf: ArrayBufferLike): void {
  if (table === undefined) table = viewsOf(buf);
}
/**
 * Version of the decoded table's layout (the header and arrays of {@link viewsOf}): a table
 * built ahead of time records it, and a host refuses one of another version.
 */
export const TABLE_LAYOUT = 2;

/** A host's source of a table buffer built ahead of time, or `undefined` when it has none. */
export type TableSource = () => ArrayBufferLike | undefined;
let tableSource: TableSource | undefined;

/**
 * Take the decoded table from `fn` on first use instead of decoding the packed table (Node's
 * host reads the one the build wrote, which takes a few milliseconds where decoding takes tens).
 * A buffer whose header does not describe its own size, or a source that throws or returns
 * `undefined`, falls back to decoding: counts never depend on the source. `undefined` removes
 * the source. Takes effect if called before the table is first used.
 */
export function setTableSource(fn: TableSource | undefined): void {
  tableSource = fn;
}

/** Whether `buf` has the layout {@link viewsOf} reads: a header whose sizes add up to the buffer's length. */
function isTableBuffer(buf: ArrayBufferLike): boolean {
  if (buf.byteLength < HEAD * 4) return false;
  const [size, nRanks, nBytes, cap, maxLen] = new Int32Array(buf, 0, HEAD);
  if (!(size! > 256 && nRanks === size && nBytes! >= size! && maxLen! > 0 && cap! >= size! * 2 && (cap! & (cap! - 1)) === 0)) return false;
  return (HEAD + 2 * size! + 2 * cap! + 256 + 65536 + 4 * SHORT_SLOTS) * 4 + nBytes! === buf.byteLength;
}

/** The table of the host's source, when it has a well-formed one. */
function sourcedTable(): Table | undefined {
  let buf: ArrayBufferLike | undefined;
  try {
    buf = tableSource?.();
  } catch {
    return undefined;
  }
  return buf !== undefined && isTableBuffer(buf) ? viewsOf(buf) : undefined;
}

/** The vocabulary: on the first call, the host's prebuilt table ({@link setTableSource}) or the packed one decoded. */
export function tbl(): Table {
  if (table === undefined) table = sourcedTable() ?? loadTable();
  return table;
}

/** Whether the vocabulary has been decoded yet. */
export function tableLoaded(): boolean {
  return table !== undefined;
}

/** Slot of `key` in a 3- or 4-byte table (a multiplicative hash). */
function shortSlot(key: number): number {
  return (Math.imul(key, 0x9e3779b1) >>> 16) & (SHORT_SLOTS - 1);
}

function shortPut(table: Int32Array, key: number, rank: number): void {
  let i = shortSlot(key);
  while (table[2 * i + 1] !== NONE) i = (i + 1) & (SHORT_SLOTS - 1);
  table[2 * i] = key;
  table[2 * i + 1] = rank;
}

/** Rank of the 3- or 4-byte token whose packed bytes are `key`, or NONE. */
export function shortGet(table: Int32Array, key: number): number {
  for (let i = shortSlot(key); ; i = (i + 1) & (SHORT_SLOTS - 1)) {
    const r = table[2 * i + 1]!;
    if (r === NONE || table[2 * i] === key) return r;
  }
}

/** Rank of the bytes `p[a, b)` (b > a), or NONE when they are not a token. */
export function rankOf(t: Table, p: Uint8Array, a: number, b: number): number {
  const len = b - a;
  if (len === 1) return t.byte1[p[a]!]!;
  if (len === 2) return t.pair2[(p[a]! << 8) | p[a + 1]!]!;
  if (len === 3) return shortGet(t.short3, (p[a]! << 16) | (p[a + 1]! << 8) | p[a + 2]!);
  if (len === 4) return shortGet(t.short4, (p[a]! << 24) | (p[a + 1]! << 16) | (p[a + 2]! << 8) | p[a + 3]!);
  if (len > t.maxLen) return NONE;
  return probe(t, p, a, b, hashBytes(p, a, b));
}

/** Rank + 1 of a hash slot's value (ranks are below 2^18). */
const SLOT_RANK = 0x3ffff;
const SLOT_TAG = 0x7ffc0000;

/** The hash bits a slot keeps beside the rank: 13 bits above those that index a table of up to 2^19 slots. */
function slotTag(hash: number): number {
  return ((hash >>> 19) & 0x1fff) << 18;
}

/** Hash-table lookup of `p[a, b)` (5 <= b - a <= maxLen: shorter tokens are not in the hash) whose hash is `h`. */
export function probe(t: Table, p: Uint8Array, a: number, b: number, h: number): number {
  const { slots, mask, bytes } = t;
  const len = b - a;
  const tag = slotTag(h);
  for (let i = h & mask; ; i = (i + 1) & mask) {
    const v = slots[2 * i]!;
    if (v === 0) return NONE;
    if ((v & SLOT_TAG) !== tag) continue;
    const at = slots[2 * i + 1]!;
    if ((at & 0xff) === len) {
      const o = (at >>> 8) - a;
      let k = a;
      while (k < b && bytes[o + k] === p[k]) k++;
      if (k === b) return (v & SLOT_RANK) - 1;
    }
  }
}
