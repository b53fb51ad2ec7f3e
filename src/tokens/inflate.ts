/**
 * A small decoder of raw DEFLATE streams (RFC 1951: stored, fixed-Huffman and dynamic-Huffman
 * blocks), enough to unpack the rank table (`ranks.ts`) synchronously in any JavaScript engine
 * without a `node:` module or an asynchronous `DecompressionStream`.
 */

const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/**
 * A canonical Huffman code as a lookup table indexed by the next `bits` input bits (least
 * significant first, as DEFLATE packs them): entry = symbol << 4 | code length.
 */
interface Huffman {
  table: Int32Array;
  bits: number;
}

function huffman(lengths: ArrayLike<number>, n: number): Huffman {
  const counts = new Int32Array(16);
  let max = 1;
  for (let i = 0; i < n; i++) {
    counts[lengths[i]!]!++;
    if (lengths[i]! > max) max = lengths[i]!;
  }
  counts[0] = 0;
  const next = new Int32Array(16);
  for (let l = 1, code = 0; l < 16; l++) {
    code = (code + counts[l - 1]!) << 1;
    next[l] = code;
  }
  const table = new Int32Array(1 << max);
  for (let sym = 0; sym < n; sym++) {
    const len = lengths[sym]!;
    if (len === 0) continue;
    const code = next[len]!++;
    let rev = 0;
    for (let k = 0; k < len; k++) rev |= ((code >> k) & 1) << (len - 1 - k);
    for (let i = rev; i < table.length; i += 1 << len) table[i] = (sym << 4) | len;
  }
  return { table, bits: max };
}

/**
 * Inflate the raw DEFLATE stream `src` whose decoded size is `size` bytes.
 * @throws Error on a malformed stream or a size mismatch.
 */
export function inflateRaw(src: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  let buf = 0; // bit buffer (least significant bit first) and its length
  let have = 0;
  let pos = 0; // next byte of src
  const need = (n: number): void => {
    while (have < n) {
      buf |= (src[pos++] ?? 0) << have;
      have += 8;
    }
  };
  const bits = (n: number): number => {
    need(n);
    const v = buf & ((1 << n) - 1);
    buf >>>= n;
    have -= n;
    return v;
  };
  const decode = (h: Huffman): number => {
    need(h.bits);
    const e = h.table[buf & ((1 << h.bits) - 1)]!;
    const len = e & 15;
    if (len === 0) throw new Error('inflate: bad Huffman code');
    buf >>>= len;
    have -= len;
    return e >> 4;
  };
  let fixedLit: Huffman | undefined;
  let fixedDist: Huffman | undefined;
  for (let last = 0; !last; ) {
    if (pos > src.length + 4) throw new Error('inflate: truncated stream');
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      // drop the partial byte; whole bytes still buffered go back to the input
      bits(have & 7);
      pos -= have >> 3;
      buf = 0;
      have = 0;
      const len = src[pos]! | (src[pos + 1]! << 8);
      out.set(src.subarray(pos + 4, pos + 4 + len), at);
      at += len;
      pos += 4 + len;
      continue;
    }
    let lit: Huffman;
    let dist: Huffman;
    if (type === 1) {
      if (!fixedLit) {
        const l = new Uint8Array(288);
        l.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
        fixedLit = huffman(l, 288);
        fixedDist = huffman(new Uint8Array(30).fill(5), 30);
      }
      lit = fixedLit;
      dist = fixedDist!;
    } else if (type === 2) {
      const nlit = bits(5) + 257;
      const ndist = bits(5) + 1;
      const ncl = bits(4) + 4;
      const cl = new Uint8Array(19);
      for (let i = 0; i < ncl; i++) cl[CL_ORDER[i]!] = bits(3);
      const clh = huffman(cl, 19);
      const lens = new Uint8Array(nlit + ndist);
      for (let i = 0; i < nlit + ndist; ) {
        const sym = decode(clh);
        if (sym < 16) lens[i++] = sym;
        else {
          const [rep, prev] = sym === 16 ? [3 + bits(2), lens[i - 1]!] : sym === 17 ? [3 + bits(3), 0] : [11 + bits(7), 0];
          lens.fill(prev, i, i + rep);
          i += rep;
        }
      }
      lit = huffman(lens, nlit);
      dist = huffman(lens.subarray(nlit), ndist);
    } else throw new Error('inflate: bad block type');
    // The hot loop, with the bit buffer in locals.
    const lt = lit.table;
    const lm = (1 << lit.bits) - 1;
    const dt = dist.table;
    const dm = (1 << dist.bits) - 1;
    const end = src.length;
    for (;;) {
      while (have < 24) {
        buf |= (pos < end ? src[pos]! : 0) << have;
        pos++;
        have += 8;
      }
      const e = lt[buf & lm]!;
      const el = e & 15;
      if (el === 0) throw new Error('inflate: bad Huffman code');
      buf >>>= el;
      have -= el;
      const sym = e >> 4;
      if (sym < 256) {
        out[at++] = sym;
        continue;
      }
      if (sym === 256) break;
      const k = sym - 257;
      const lx = LEN_EXTRA[k]!;
      const len = LEN_BASE[k]! + (buf & ((1 << lx) - 1));
      buf >>>= lx;
      have -= lx;
      while (have < 24) {
        buf |= (pos < end ? src[pos]! : 0) << have;
        pos++;
        have += 8;
      }
      const f = dt[buf & dm]!;
      const fl = f & 15;
      if (fl === 0) throw new Error('inflate: bad Huffman code');
      buf >>>= fl;
      have -= fl;
      const d = f >> 4;
      const dx = DIST_EXTRA[d]!;
      while (have < dx) {
        buf |= (pos < end ? src[pos]! : 0) << have;
        pos++;
        have += 8;
      }
      const back = DIST_BASE[d]! + (buf & ((1 << dx) - 1));
      buf >>>= dx;
      have -= dx;
      if (back > at || at + len > size) throw new Error('inflate: bad distance or length');
      for (let i = 0; i < len; i++, at++) out[at] = out[at - back]!;
    }
  }
  if (at !== size) throw new Error(`inflate: expected ${size} bytes, got ${at}`);
  return out;
}
