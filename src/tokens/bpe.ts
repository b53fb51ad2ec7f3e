/**
 * Byte-pair merging of one pre-token piece (SPEC §2), tiktoken's rule: a piece that is itself a
 * token is one token; otherwise repeatedly merge the adjacent pair whose concatenation has the
 * lowest rank, leftmost on ties. Short pieces use tiktoken's plain loop; longer ones a linked
 * list of parts and a priority queue with lazy invalidation, O(k log k) instead of O(k²): one
 * binary heap on reused scratch up to 4096 bytes (long CJK or Cyrillic words), a bucket queue
 * for giant pieces. A piece holding runs of 3-byte characters (Han, Kana, Hangul) is first cut at
 * the boundaries no token can straddle (split.ts) and its segments merged on their own, from a
 * cache of segments and of single characters; a piece so cut is no token and skips the
 * whole-token probe and the piece cache.
 * Merged pieces are cached; an ASCII piece of up to four characters that is a token is looked up
 * from its characters without copying its bytes, and the ids of an ASCII piece of five to eight
 * and of nine to sixteen characters come from two memos keyed by its characters. The plain
 * loop looks the ranks of joined parts up by the ids of the two parts in a small cache first.
 * Byte counts are UTF-8 bytes; string offsets UTF-16 units.
 */
import { NONE, hashBytes, probe, rankOf, shortGet, type Table } from './ranks.js';
import { pieceEnd } from './pretokenize.js';
import { closedBetween, isLead3, splitReady } from './split.js';

/** Pieces of at most this many bytes use the quadratic loop; longer ones a heap merge. */
let heapFrom = 24;

// Scratch for the short loop: part starts, part ids and pair ranks (pieces of <= heapFrom bytes).
let shortStarts = new Int32Array(heapFrom + 2);
let shortIds = new Int32Array(heapFrom + 2);
let shortPairs = new Int32Array(heapFrom + 2);

// Ranks of joined parts by the ids of the two parts (a part is a token, so its id names its
// bytes and the pair of ids names the joined bytes): a direct-mapped cache of JOIN_SLOTS
// entries [left id + 1, right id, rank], which the merges of different pieces share (the same
// subwords meet again and again). It holds ranks of 3 bytes or more, whose lookup in the rank
// table hashes the bytes and reads tables of megabytes; left id + 1 = 0 marks an empty entry.
const JOIN_SLOTS = 16384;
let joinCache = new Int32Array(4 * JOIN_SLOTS);
let joinFor: Table | undefined;

/**
 * Rank of the parts `p[a, m)` and `p[m, b)` joined, whose ids are `l` and `r` (b - a >= 3),
 * or NONE when the joined bytes are not a token.
 */
function joinRank(t: Table, p: Uint8Array, l: number, r: number, a: number, b: number): number {
  if (joinFor !== t) {
    joinCache.fill(0);
    joinFor = t;
  }
  const jc = joinCache;
  const e = 4 * ((Math.imul(l ^ Math.imul(r, 0x9e3779b1), 0x85ebca6b) >>> 18) & (JOIN_SLOTS - 1));
  if (jc[e] === l + 1 && jc[e + 1] === r) return jc[e + 2]!;
  const v = rankOf(t, p, a, b);
  jc[e] = l + 1;
  jc[e + 1] = r;
  jc[e + 2] = v;
  return v;
}

/** tiktoken's merge loop over `p[0, n)`, 2 <= n <= heapFrom; appends the ids to `out`. */
function mergeShort(p: Uint8Array, n: number, t: Table, out: number[]): void {
  const st = shortStarts;
  const ids = shortIds;
  const pr = shortPairs;
  const pair2 = t.pair2;
  const byte1 = t.byte1;
  // Part k spans [st[k], st[k+1]) and is the token ids[k]; pr[k] = rank of parts k and k+1
  // joined (k < parts-1), NONE when that is no token.
  for (let i = 0; i < n; i++) {
    st[i] = i;
    ids[i] = byte1[p[i]!]!;
    pr[i] = i + 1 < n ? pair2[(p[i]! << 8) | p[i + 1]!]! : NONE;
  }
  st[n] = n;
  let parts = n;
  for (;;) {
    // The lowest rank, leftmost on ties; NONE (-1) masked to the largest int loses to any rank.
    let best = 0x7fffffff;
    let at = -1;
    for (let k = 0; k + 1 < parts; k++) {
      const r = pr[k]! & 0x7fffffff;
      if (r < best) {
        best = r;
        at = k;
      }
    }
    if (at < 0) break;
    // Join parts `at` and `at + 1`: drop the boundary st[at + 1]. (Plain loops: a call of
    // copyWithin costs more than moving the few ints of a short piece.)
    for (let k = at + 1; k < parts; k++) {
      st[k] = st[k + 1]!;
      ids[k] = ids[k + 1]!;
      pr[k] = pr[k + 1]!;
    }
    parts--;
    ids[at] = best;
    pr[at] = at + 1 < parts ? joinRank(t, p, best, ids[at + 1]!, st[at]!, st[at + 2]!) : NONE;
    if (at > 0) pr[at - 1] = joinRank(t, p, ids[at - 1]!, best, st[at - 1]!, st[at + 1]!);
  }
  for (let k = 0; k < parts; k++) out.push(ids[k]!);
}

const MID_MAX = 4096; // mergeMid's heap keys rank * 4096 + start fit an Int32 (ranks < 2^18)
/** Heap-merged pieces of more than this many bytes use `mergeLong`, shorter ones `mergeMid`. */
let longFrom = MID_MAX;

// Scratch for mergeMid: part links, pair ranks and a binary min-heap of keys.
const midNext = new Int32Array(MID_MAX + 1);
const midPrev = new Int32Array(MID_MAX + 1);
const midPair = new Int32Array(MID_MAX + 1);
let midHeap = new Int32Array(3 * MID_MAX);

/**
 * The merge rule for pieces of heapFrom < n <= longFrom (<= MID_MAX) bytes: linked parts and one binary heap
 * of (rank, start) keys with lazy invalidation, O(n log n), on reused scratch (no allocation),
 * where the plain loop rescans every pair after each merge. Long CJK or Cyrillic words are
 * the usual such pieces.
 */
function mergeMid(p: Uint8Array, n: number, t: Table, out: number[]): void {
  const next = midNext;
  const prev = midPrev;
  const pair = midPair;
  // Each merge pushes at most two keys: n initial pairs plus 2n give the heap's bound.
  if (midHeap.length < 3 * n) midHeap = new Int32Array(3 * n);
  const h = midHeap;
  let size = 0;
  const pair2 = t.pair2;
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    const r = i + 1 < n ? pair2[(p[i]! << 8) | p[i + 1]!]! : NONE;
    pair[i] = r;
    if (r !== NONE) size = heapInsert(h, size, r * MID_MAX + i);
  }
  while (size > 0) {
    const key = h[0]!;
    const last = h[--size]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      let kc = h[c]!;
      if (c + 1 < size && h[c + 1]! < kc) kc = h[++c]!;
      if (kc >= last) break;
      h[i] = kc;
      i = c;
    }
    h[i] = last;
    const r = (key / MID_MAX) | 0;
    const a = key - r * MID_MAX;
    if (pair[a] !== r) continue; // stale: the part changed or was absorbed
    joinParts(t, p, n, next, prev, pair, a);
    if (pair[a] !== NONE) size = heapInsert(h, size, pair[a]! * MID_MAX + a);
    const before = prev[a]!;
    if (before >= 0 && pair[before] !== NONE) size = heapInsert(h, size, pair[before]! * MID_MAX + before);
  }
  for (let a = 0; a < n; a = next[a]!) out.push(rankOf(t, p, a, next[a]!));
}

/**
 * One merge on linked parts (`next`/`prev` starts, `pair` the rank of each part joined with the
 * next): part `a` absorbs the part after it, and the ranks of `a` and of the part before it are
 * refreshed (`NONE` where no merge exists). The callers queue the refreshed ranks.
 */
function joinParts(t: Table, p: Uint8Array, n: number, next: Int32Array, prev: Int32Array, pair: Int32Array, a: number): void {
  const b = next[a]!;
  const c = next[b]!;
  next[a] = c;
  if (c < n) prev[c] = a;
  pair[b] = NONE;
  pair[a] = c >= n ? NONE : rankOf(t, p, a, next[c]!);
  const before = prev[a]!;
  if (before >= 0) pair[before] = rankOf(t, p, before, c);
}

/** Insert `key` into the binary min-heap `h[0, size)`; returns the new size. */
function heapInsert(h: Int32Array, size: number, key: number): number {
  siftUp(h, size, key);
  return size + 1;
}

/** Put `key` at slot `i` of a binary min-heap and move it up to its place. */
function siftUp(h: Int32Array | Float64Array, i: number, key: number): void {
  while (i > 0) {
    const up = (i - 1) >> 1;
    const k = h[up]!;
    if (k <= key) break;
    h[i] = k;
    i = up;
  }
  h[i] = key;
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
  siftUp(heap, heapSize++, key);
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
  const items = bucketItems[r];
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
    joinParts(t, p, n, next, prev, pair, a);
    if (pair[a] !== NONE) queuePush(pair[a]!, a);
    const before = prev[a]!;
    if (before >= 0 && pair[before] !== NONE) queuePush(pair[before]!, before);
  }
  queueReset(0);
  if (heap.length > SCRATCH_KEEP) heap = new Float64Array(1024);
  for (let a = 0; a < n; a = next[a]!) out.push(rankOf(t, p, a, next[a]!));
}

/** Scratch buffers larger than this (elements) are dropped after use rather than kept. */
const SCRATCH_KEEP = 1 << 20;

// Scratch holding the UTF-8 bytes of the current piece, and whether they may hold a 3-byte character.
let pieceBytes = new Uint8Array(1024);
let pieceHas3 = false;
const UTF8_ENC = new TextEncoder();
// Where mergeCut puts the ids of segments of a piece it only counts (emptied once it is long).
const countScratch: number[] = [];

/**
 * Put the UTF-8 bytes of `s[start, end)` in `pieceBytes`; returns their count. Lone
 * surrogates become EF BF BD (U+FFFD), as tiktoken does with Python surrogates.
 */
function loadPiece(s: string, start: number, end: number): number {
  const units = end - start;
  if (pieceBytes.length < 3 * units) pieceBytes = new Uint8Array(Math.max(3 * units, 2 * pieceBytes.length));
  const p = pieceBytes;
  let o = 0;
  pieceHas3 = false;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) p[o++] = c;
    else if (c < 0x800) {
      p[o++] = 0xc0 | (c >> 6);
      p[o++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      pieceHas3 = true;
      p[o++] = 0xe0 | (c >> 12);
      p[o++] = 0x80 | ((c >> 6) & 0x3f);
      p[o++] = 0x80 | (c & 0x3f);
    } else {
      pieceHas3 = true; // a lone surrogate becomes EF BF BD; later characters may be of 3 bytes
      return o + UTF8_ENC.encodeInto(s.slice(i, end), p.subarray(o)).written;
    }
  }
  return o;
}

// Cache of merged pieces (pieces that are not a single token and need the merge loop).
// Direct-mapped on the piece's byte hash, which the whole-token lookup computes anyway, so
// a lookup costs one string comparison; a newer piece evicts an older one in its slot.
// A piece is admitted on its second sighting (`seen` remembers the hash of the last miss per
// slot), so a stream of unrepeated pieces (base64, hex) costs one integer store each.
// Bounded: CACHE_SLOTS pieces of <= CACHE_MAX_BYTES bytes. (A Map keyed by piece strings
// was measured slower: its inserts churn on unrepeated pieces.)
const CACHE_SLOTS = 4096;
const CACHE_MAX_BYTES = 128;
let cacheKeys: Array<string | undefined> = new Array<string | undefined>(CACHE_SLOTS);
let cacheIds: Array<readonly number[] | undefined> = new Array<readonly number[] | undefined>(CACHE_SLOTS);
let cacheSeen = new Int32Array(CACHE_SLOTS);

/** The merge rule over `p[0, n)` (n >= 2), by the loop that suits the length. */
function mergePlain(p: Uint8Array, n: number, t: Table, out: number[]): void {
  if (n <= heapFrom) mergeShort(p, n, t, out);
  else if (n <= longFrom) mergeMid(p, n, t, out);
  else mergeLong(p, n, t, out);
}

/** Pieces of at least this many bytes are cut at their closed boundaries (split.ts) before merging. */
let splitFrom = 6;
// Scratch holding the bytes of one segment, for the merge loops (which start at offset 0).
let segBuf = new Uint8Array(256);

// Cache of merged segments of cut pieces, keyed by their bytes (direct-mapped on the hash, no
// allocation): in text without spaces most segments are a character or two, and repeat.
const SEG_SLOTS = 4096;
const SEG_MAX = 48;
const segLen = new Int32Array(SEG_SLOTS); // byte length of the slot's segment, 0 = empty
const segKey = new Uint8Array(SEG_SLOTS * SEG_MAX);
const segCount = new Int32Array(SEG_SLOTS);
const segIds = new Int32Array(SEG_SLOTS * SEG_MAX);
// The merge of each 3-byte character alone, by code point: id + 1 when it is one token, -1
// when it is more, 0 when not yet known.
const charMerge = new Int32Array(65536);

function mergeInto(n: number, t: Table, out: number[]): void {
  if (n >= splitFrom && pieceHas3 && mergeCut(n, t, out) >= 0) return;
  mergePlain(pieceBytes, n, t, out);
}

/**
 * Cut the piece in `pieceBytes[0, n)` at its closed boundaries and append the merges of its
 * segments to `out` (only count them when `out` is null); returns their count, or -1 (and
 * appends nothing) when the piece has no closed boundary. A piece with one is no token (no
 * token straddles the boundary), so its ids are the segments' ids whatever the whole-token
 * rule says.
 */
function mergeCut(n: number, t: Table, out: number[] | null): number {
  const p = pieceBytes;
  const ids = out ?? countScratch;
  const before = ids.length;
  let singles = 0; // ids of one-character segments counted but not appended (out null)
  let a = 0;
  let prev = -1; // the bytes of the 3-byte character ending at k, or -1
  splitReady(t); // records the table's windows on the first call of the process
  for (let k = 0; k + 3 <= n; ) {
    if (!isLead3(p[k]!)) {
      prev = -1;
      k++;
      continue;
    }
    const cur = (p[k]! << 16) | (p[k + 1]! << 8) | p[k + 2]!;
    if (prev >= 0 && closedBetween(prev, cur)) {
      // A segment of one character that is one token (most of them): its id from charMerge.
      const v = k - a === 3 ? charMerge[((prev >> 4) & 0xf000) | ((prev >> 2) & 0xfc0) | (prev & 0x3f)]! : 0;
      if (v <= 0) mergeSegment(p, a, k, t, ids);
      else if (out) out.push(v - 1);
      else singles++;
      a = k;
    }
    prev = cur;
    k += 3;
  }
  if (a === 0) return -1;
  mergeSegment(p, a, n, t, ids);
  const c = ids.length - before + singles;
  if (out === null && countScratch.length > 4096) countScratch.length = 0;
  return c;
}

/** Append the merge of the segment `p[a, b)` (b - a >= 3) to `out`, from the segment cache when there. */
function mergeSegment(p: Uint8Array, a: number, b: number, t: Table, out: number[]): void {
  const len = b - a;
  if (len === 3 && isLead3(p[a]!)) {
    const cp = ((p[a]! & 0xf) << 12) | ((p[a + 1]! & 0x3f) << 6) | (p[a + 2]! & 0x3f);
    const v = charMerge[cp]!;
    if (v > 0) {
      out.push(v - 1);
      return;
    }
    if (v === 0) {
      const before = out.length;
      segBuf[0] = p[a]!;
      segBuf[1] = p[a + 1]!;
      segBuf[2] = p[a + 2]!;
      mergePlain(segBuf, 3, t, out);
      charMerge[cp] = out.length - before === 1 ? out[before]! + 1 : -1;
      return;
    }
  }
  if (segBuf.length < len) segBuf = new Uint8Array(Math.max(len, 2 * segBuf.length));
  if (len > SEG_MAX) {
    segBuf.set(p.subarray(a, b));
    mergePlain(segBuf, len, t, out);
    if (segBuf.length > SCRATCH_KEEP) segBuf = new Uint8Array(256);
    return;
  }
  const slot = (hashBytes(p, a, b) >>> 20) & (SEG_SLOTS - 1);
  const base = slot * SEG_MAX;
  if (segLen[slot] === len) {
    let k = 0;
    while (k < len && segKey[base + k] === p[a + k]) k++;
    if (k === len) {
      const c = segCount[slot]!;
      for (let i = 0; i < c; i++) out.push(segIds[base + i]!);
      return;
    }
  }
  const sb = segBuf;
  for (let k = 0; k < len; k++) sb[k] = p[a + k]!;
  const before = out.length;
  mergePlain(sb, len, t, out);
  const c = out.length - before;
  segLen[slot] = len;
  segCount[slot] = c;
  for (let k = 0; k < len; k++) segKey[base + k] = sb[k]!;
  for (let i = 0; i < c; i++) segIds[base + i] = out[before + i]!;
}

// The ids of ASCII pieces of 5 to 8 characters (most of the longer pieces of English and
// code; most are one token), direct-mapped on their characters packed into two ints: a hit
// costs one cache line and no copy of the piece, where the whole-token probe alone reads the
// hash slot, the rank's length and offset and its bytes (four lines of tables of megabytes).
// Entries of MEMO_INTS ints: [lo, hi, units, count, id0 .. id3], pieces of at most 4 ids;
// units 0 marks an empty entry. A missed piece is encoded and stored in its entry.
const MEMO_SLOTS = 8192;
const MEMO_INTS = 8;
const MEMO_IDS = 4;
let memo = new Int32Array(MEMO_INTS * MEMO_SLOTS);
// The entry and key of the piece of the last memoLookup.
let memoAt = 0;
let memoLo = 0;
let memoHi = 0;

/**
 * Look the ASCII piece `s[start, start + units)` (5 <= units <= 8) up in the memo: its number
 * of ids when there (they are at `memo[memoAt + 4 ..]`), 0 when not (`memoAt` is its entry, to
 * fill), -1 when the piece is not ASCII.
 */
function memoLookup(s: string, start: number, units: number): number {
  const c0 = s.charCodeAt(start);
  const c1 = s.charCodeAt(start + 1);
  const c2 = s.charCodeAt(start + 2);
  const c3 = s.charCodeAt(start + 3);
  let or = c0 | c1 | c2 | c3;
  const lo = (c0 << 24) | (c1 << 16) | (c2 << 8) | c3;
  let hi = 0;
  for (let k = start + 4; k < start + units; k++) {
    const c = s.charCodeAt(k);
    or |= c;
    hi = (hi << 8) | c;
  }
  if (or >= 0x80) return -1;
  const e = MEMO_INTS * ((Math.imul(lo ^ Math.imul(hi ^ units, 0x9e3779b1), 0x85ebca6b) >>> 19) & (MEMO_SLOTS - 1));
  const m = memo;
  memoAt = e;
  if (m[e] === lo && m[e + 1] === hi && m[e + 2] === units) return m[e + 3]!;
  memoLo = lo;
  memoHi = hi;
  return 0;
}

/**
 * Encode the ASCII piece `s[start, end)` of 5 to 8 characters that {@link memoLookup} missed
 * (its entry `e`): a whole token, or the merge rule's ids; stored in the entry when at most
 * {@link MEMO_IDS}. Appends to `out` when given; returns the count.
 */
function memoFill(s: string, start: number, end: number, t: Table, out: number[] | null, e: number): number {
  const n = loadPiece(s, start, end);
  const p = pieceBytes;
  const m = memo;
  const whole = probe(t, p, 0, n, hashBytes(p, 0, n));
  m[e] = memoLo;
  m[e + 1] = memoHi;
  if (whole !== NONE) {
    m[e + 2] = n;
    m[e + 3] = 1;
    m[e + 4] = whole;
    if (out) out.push(whole);
    return 1;
  }
  const ids: number[] = out ?? [];
  const before = ids.length;
  mergePlain(p, n, t, ids);
  const c = ids.length - before;
  if (c <= MEMO_IDS) {
    m[e + 2] = n;
    m[e + 3] = c;
    for (let k = 0; k < c; k++) m[e + 4 + k] = ids[before + k]!;
  } else m[e + 2] = 0; // too many ids to keep: the entry is left empty
  return c;
}

// The same for ASCII pieces of 9 to 16 characters (identifiers, long words, runs of
// punctuation), whose whole-token probe and merge cost the most per piece: their characters
// packed into four ints. Entries of MEMO16_INTS ints: [w0, w1, w2, w3, units, id0 .. id2] with
// units 0 for an empty entry; the count of ids is in the high bits of the units int. A piece of
// more ids is not kept here (the piece cache has it).
const MEMO16_SLOTS = 8192;
const MEMO16_INTS = 8;
const MEMO16_IDS = 3;
let memo16 = new Int32Array(MEMO16_INTS * MEMO16_SLOTS);
// The entry and key of the piece of the last memo16Lookup.
let memo16At = 0;
let memo16W0 = 0;
let memo16W1 = 0;
let memo16W2 = 0;
let memo16W3 = 0;

/**
 * Look the ASCII piece `s[start, start + units)` (9 <= units <= 16) up in the memo of longer
 * pieces: its number of ids when there (they are at `memo16[memo16At + 5 ..]`), 0 when not
 * (`memo16At` is its entry, to fill), -1 when the piece is not ASCII.
 */
function memo16Lookup(s: string, start: number, units: number): number {
  const c0 = s.charCodeAt(start);
  const c1 = s.charCodeAt(start + 1);
  const c2 = s.charCodeAt(start + 2);
  const c3 = s.charCodeAt(start + 3);
  const c4 = s.charCodeAt(start + 4);
  const c5 = s.charCodeAt(start + 5);
  const c6 = s.charCodeAt(start + 6);
  const c7 = s.charCodeAt(start + 7);
  let or = c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7;
  const w0 = (c0 << 24) | (c1 << 16) | (c2 << 8) | c3;
  const w1 = (c4 << 24) | (c5 << 16) | (c6 << 8) | c7;
  let w2 = 0;
  let w3 = 0;
  const mid = units < 12 ? start + units : start + 12;
  for (let k = start + 8; k < mid; k++) {
    const c = s.charCodeAt(k);
    or |= c;
    w2 = (w2 << 8) | c;
  }
  for (let k = start + 12; k < start + units; k++) {
    const c = s.charCodeAt(k);
    or |= c;
    w3 = (w3 << 8) | c;
  }
  if (or >= 0x80) return -1;
  const h = Math.imul(w0 ^ Math.imul(w1 ^ Math.imul(w2 ^ Math.imul(w3 ^ units, 0x9e3779b1), 0x85ebca6b), 0xc2b2ae35), 0x27d4eb2f);
  const e = MEMO16_INTS * ((h >>> 19) & (MEMO16_SLOTS - 1));
  const m = memo16;
  memo16At = e;
  if (m[e] === w0 && m[e + 1] === w1 && m[e + 2] === w2 && m[e + 3] === w3 && (m[e + 4]! & 0xff) === units) return m[e + 4]! >> 8;
  memo16W0 = w0;
  memo16W1 = w1;
  memo16W2 = w2;
  memo16W3 = w3;
  return 0;
}

/**
 * Encode the ASCII piece `s[start, end)` of 9 to 16 characters that {@link memo16Lookup}
 * missed (its entry `e`): a whole token, or the merge rule's ids by the piece cache; stored in
 * the entry when at most {@link MEMO16_IDS}. Appends to `out` when given; returns the count.
 */
function memo16Fill(s: string, start: number, end: number, t: Table, out: number[] | null, e: number): number {
  const n = loadPiece(s, start, end);
  const p = pieceBytes;
  const m = memo16;
  const h = hashBytes(p, 0, n);
  const whole = probe(t, p, 0, n, h);
  m[e] = memo16W0;
  m[e + 1] = memo16W1;
  m[e + 2] = memo16W2;
  m[e + 3] = memo16W3;
  if (whole !== NONE) {
    m[e + 4] = n | (1 << 8);
    m[e + 5] = whole;
    if (out) out.push(whole);
    return 1;
  }
  const ids: number[] = out ?? [];
  const before = ids.length;
  const c = mergeCached(s, start, end, n, h, t, ids);
  if (c <= MEMO16_IDS) {
    m[e + 4] = n | (c << 8);
    for (let k = 0; k < c; k++) m[e + 5 + k] = ids[before + k]!;
  } else m[e + 4] = 0; // too many ids to keep: the entry is left empty
  return c;
}

/**
 * Token ids of the piece `s[start, end)` (tiktoken's `byte_pair_encode`, with its rule that a
 * piece which is itself a token is one token): appended to `out` when given. Returns the count.
 */
export function encodePiece(s: string, start: number, end: number, t: Table, out: number[] | null): number {
  const units = end - start;
  if (units <= 4) {
    // An ASCII piece of up to 4 characters that is a token is looked up from its characters
    // (its bytes), without copying them; other short pieces go the usual way.
    const c0 = s.charCodeAt(start);
    if (units === 1) {
      if (c0 < 0x80) {
        if (out) out.push(t.byte1[c0]!);
        return 1;
      }
    } else {
      // (No read past the piece: one past the string's end would slow the optimised code.)
      const c1 = s.charCodeAt(start + 1);
      let whole = NONE;
      if (units === 2) {
        if ((c0 | c1) < 0x80) whole = t.pair2[(c0 << 8) | c1]!;
      } else if (units === 3) {
        const c2 = s.charCodeAt(start + 2);
        if ((c0 | c1 | c2) < 0x80) whole = shortGet(t.short3, (c0 << 16) | (c1 << 8) | c2);
      } else if (units === 4) {
        const c2 = s.charCodeAt(start + 2);
        const c3 = s.charCodeAt(start + 3);
        if ((c0 | c1 | c2 | c3) < 0x80) whole = shortGet(t.short4, (c0 << 24) | (c1 << 16) | (c2 << 8) | c3);
      }
      if (whole !== NONE) {
        if (out) out.push(whole);
        return 1;
      }
    }
  }
  if (units >= 5 && units <= 8) {
    const c = memoLookup(s, start, units);
    if (c > 0) {
      if (out) for (let k = 0, e = memoAt + 4; k < c; k++) out.push(memo[e + k]!);
      return c;
    }
    if (c === 0) return memoFill(s, start, end, t, out, memoAt);
  }
  if (units >= 9 && units <= 16) {
    const c = memo16Lookup(s, start, units);
    if (c > 0) {
      if (out) for (let k = 0, e = memo16At + 5; k < c; k++) out.push(memo16[e + k]!);
      return c;
    }
    if (c === 0) return memo16Fill(s, start, end, t, out, memo16At);
  }
  const n = loadPiece(s, start, end);
  const p = pieceBytes;
  if (pieceHas3 && n >= splitFrom) {
    // Runs of Han, Kana or Hangul: cut first. A piece that is cut needs neither the
    // whole-token probe nor the piece cache (its segments are cached), and such pieces
    // rarely repeat whole.
    const c = mergeCut(n, t, out);
    if (c >= 0) {
      if (pieceBytes.length > SCRATCH_KEEP) pieceBytes = new Uint8Array(1024);
      return c;
    }
    pieceHas3 = false; // not cut: mergeInto below need not look for closed boundaries again
  }
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
  // Whole-token lookup: pieces of up to 4 bytes in their own tables (one memory access, no hash).
  let h = 0;
  let whole: number;
  if (n === 1) whole = t.byte1[p[0]!]!;
  else if (n === 2) whole = t.pair2[(p[0]! << 8) | p[1]!]!;
  else if (n === 3) whole = shortGet(t.short3, (p[0]! << 16) | (p[1]! << 8) | p[2]!);
  else if (n === 4) whole = shortGet(t.short4, (p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!);
  else {
    h = hashBytes(p, 0, n);
    whole = probe(t, p, 0, n, h);
  }
  if (whole !== NONE) {
    if (out) out.push(whole);
    return 1;
  }
  if (n <= 4) h = hashBytes(p, 0, n);
  return mergeCached(s, start, end, n, h, t, out);
}

/**
 * The merge of the piece `s[start, end)` whose `n` <= CACHE_MAX_BYTES bytes are in
 * `pieceBytes` (hash `h`) and which is not a single token, through the piece cache; appends to
 * `out` when given and returns the count.
 */
function mergeCached(s: string, start: number, end: number, n: number, h: number, t: Table, out: number[] | null): number {
  const units = end - start;
  const slot = (h >>> 20) & (CACHE_SLOTS - 1);
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
export function encodeFrom(s: string, from: number, out: number[], t: Table): void {
  for (let pos = from; pos < s.length; ) {
    const end = pieceEnd(s, pos);
    encodePiece(s, pos, end, t, out);
    pos = end;
  }
}

/** Test hook: heap-merged pieces longer than `k` bytes (at most 4096, the default) use the bucket queue. */
export function setLongFrom(k: number): void {
  longFrom = Math.min(k, MID_MAX);
}

/** Test hook: pieces longer than `k` bytes use a heap merge (default 24). */
export function setHeapFrom(k: number): void {
  heapFrom = k;
  shortStarts = new Int32Array(k + 2);
  shortIds = new Int32Array(k + 2);
  shortPairs = new Int32Array(k + 2);
}

/** Test hook: pieces of at least `k` bytes are cut at closed boundaries before merging (default 6; Infinity: never). */
export function setSplitFrom(k: number): void {
  splitFrom = k;
}

/** Test hook: empty the piece cache (and the cache of merged segments). */
export function clearPieceCache(): void {
  memo = new Int32Array(MEMO_INTS * MEMO_SLOTS);
  memo16 = new Int32Array(MEMO16_INTS * MEMO16_SLOTS);
  joinCache = new Int32Array(4 * JOIN_SLOTS);
  segLen.fill(0);
  charMerge.fill(0);
  cacheKeys = new Array<string | undefined>(CACHE_SLOTS);
  cacheIds = new Array<readonly number[] | undefined>(CACHE_SLOTS);
  cacheSeen = new Int32Array(CACHE_SLOTS);
}
